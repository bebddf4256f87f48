// GET /docs: a readable reference page rendered on the server from the OpenAPI document. Plain
// HTML and one stylesheet, no script and nothing from another origin, so the CSP can forbid all
// of it: the stylesheet is allowed by its hash.
import { escapeHtml } from "../util/html-escape.ts";
import type { JsonSchema } from "./openapi.ts";

interface Parameter {
  name: string;
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

interface ResponseObject {
  description: string;
  headers?: Record<string, { description?: string; required?: boolean }>;
  content?: Record<string, { schema?: JsonSchema }>;
}

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  parameters?: Parameter[];
  responses: Record<string, ResponseObject>;
  security?: unknown[];
}

/** The methods the page shows, in this order; HEAD is GET's twin and is named beside it. */
const methods = ["get", "post", "delete"] as const;
type Method = (typeof methods)[number];

interface Document {
  info: { title: string; version: string; description: string };
  paths: Record<string, Partial<Record<Method, Operation>>>;
  components: { schemas: Record<string, JsonSchema> };
}

const style = `
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fff}
h1,h2,h3{line-height:1.2}h2{margin-top:2.5rem;border-bottom:1px solid #ddd;padding-bottom:.3rem}
h3{margin-top:2rem}code{font:.9em ui-monospace,monospace;background:#f3f3f3;padding:.1em .3em;border-radius:3px}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid #e5e5e5}
th{font-weight:600;background:#fafafa}.method{font-weight:700;color:#0a5}.muted{color:#666}nav ul{columns:2}
@media (prefers-color-scheme:dark){body{background:#161616;color:#e8e8e8}code,th{background:#262626}th,td{border-color:#333}.muted{color:#aaa}}
`.trim();

export async function docsResponse(document: object): Promise<Response> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style));
  const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
  const body = new TextEncoder().encode(renderDocs(document as Document));
  return new Response(body, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-length": String(body.byteLength),
      "content-security-policy":
        `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
  });
}

export function renderDocs(document: Document): string {
  const { info, paths, components } = document;
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    methods.flatMap((method) => (item[method] ? [{ path, method, ...item[method] }] : []))
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} ${escapeHtml(info.version)}</title>
<style>${style}</style>
</head>
<body>
<h1>${escapeHtml(info.title)} <span class="muted">${escapeHtml(info.version)}</span></h1>
${info.description.split("\n\n").map((paragraph) => `<p>${inline(paragraph)}</p>`).join("\n")}
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</p>
<nav><h2>Contents</h2><ul>
${
    operations.map((op) =>
      `<li><a href="#${op.operationId}"><code>${op.method.toUpperCase()} ${escapeHtml(op.path)}</code></a></li>`
    ).join(
      "\n",
    )
  }
${
    Object.keys(components.schemas).map((name) => `<li><a href="#schema-${name}">${escapeHtml(name)}</a></li>`).join(
      "\n",
    )
  }
</ul></nav>
<h2>Operations</h2>
${operations.map(renderOperation).join("\n")}
<h2>Schemas</h2>
${Object.entries(components.schemas).map(([name, schema]) => renderSchema(name, schema)).join("\n")}
</body>
</html>
`;
}

function renderOperation(op: Operation & { path: string; method: Method }): string {
  const parameters = op.parameters ?? [];
  return `<section id="${escapeHtml(op.operationId)}">
<h3><span class="method">${op.method.toUpperCase()}</span>${
    op.method === "get" ? ' <span class="muted">(and HEAD)</span>' : ""
  } <code>${escapeHtml(op.path)}</code></h3>
<p><strong>${inline(op.summary)}</strong>${
    op.security?.length === 0 ? ' <span class="muted">(no key needed)</span>' : ""
  }</p>
${op.description === undefined ? "" : `<p>${inline(op.description)}</p>`}
${
    parameters.length === 0
      ? ""
      : `<table><tr><th>Query parameter</th><th>Type</th><th>Required</th><th>Meaning</th></tr>
${
        parameters.map((p) =>
          `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${typeOf(p.schema)}</td><td>${
            p.required ? "yes" : "no"
          }</td><td>${inline(p.description ?? "")}</td></tr>`
        ).join("\n")
      }
</table>`
  }
<table><tr><th>Status</th><th>Meaning</th><th>Body</th><th>Headers</th></tr>
${Object.entries(op.responses).map(([status, response]) => renderResponse(status, response)).join("\n")}
</table>
</section>`;
}

function renderResponse(status: string, response: ResponseObject): string {
  const body = Object.entries(response.content ?? {})
    .map(([type, media]) => `<code>${escapeHtml(type)}</code>${media.schema ? ` ${typeOf(media.schema)}` : ""}`)
    .join("<br>");
  const headers = Object.keys(response.headers ?? {}).map((name) => `<code>${escapeHtml(name)}</code>`).join(", ");
  return `<tr><td>${escapeHtml(status)}</td><td>${
    inline(response.description)
  }</td><td>${body}</td><td>${headers}</td></tr>`;
}

function renderSchema(name: string, schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const requiredNames = new Set((schema.required ?? []) as string[]);
  return `<section id="schema-${escapeHtml(name)}">
<h3>${escapeHtml(name)}</h3>
<table><tr><th>Field</th><th>Type</th><th>Always present</th><th>Meaning</th></tr>
${
    Object.entries(properties)
      .map(([field, property]) =>
        `<tr><td><code>${escapeHtml(field)}</code></td><td>${typeOf(property)}</td><td>${
          requiredNames.has(field) ? "yes" : "no"
        }</td><td>${inline(String(property.description ?? ""))}</td></tr>`
      )
      .join("\n")
  }
</table>
</section>`;
}

/** A short human reading of a JSON schema: "string | null", "array of TweetVideoVariant", ... */
export function typeOf(schema: JsonSchema): string {
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop()!;
    return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  // allOf narrows a named schema (a problem's status and codes); the name is what a reader needs.
  if (Array.isArray(schema.allOf)) {
    return (schema.allOf as JsonSchema[]).filter((part) => part.$ref).map(typeOf).join(", ");
  }
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(typeOf).join(" | ");
  if (Array.isArray(schema.enum)) {
    return `one of ${schema.enum.map((value) => `<code>${escapeHtml(String(value))}</code>`).join(", ")}`;
  }
  if ("const" in schema) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === "string"
    ? [schema.type]
    : [];
  if (types.length === 0) return schema.properties ? "object" : "any";
  return types
    .map((type) => {
      if (type === "array") return `array of ${typeOf((schema.items ?? {}) as JsonSchema)}`;
      if (type === "string" && schema.format === "uri") return "string (URL)";
      return escapeHtml(type);
    })
    .join(" | ");
}

// The document's prose uses `code` spans and nothing else.
function inline(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}
