// The request path is the same code on every runtime: no file on it imports a runtime module or
// names a runtime's global. Those live in src/runtime/, which hands them in as capabilities
// (src/app-deps.ts). Besides, the folders depend one way.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

interface SourceFacts {
  file: string;
  /** Each import's specifier, relative ones resolved to a path from the repository's root. */
  imports: string[];
  /** The imports that load a module when the file loads: all but `import type` and `export type`, which are erased. */
  loads: string[];
  /** Runtime globals the file names, as `name:line`. */
  globals: string[];
  /** Functions longer than the house allows, as `name:line (N lines)`. */
  longFunctions: string[];
  /** `WeakMap`s and `Symbol`s the file makes, as `name:line`: ways to hang state on another layer's objects. */
  sideChannels: string[];
}

/** The house rule: no function over this many lines; a longer one is a module of several. */
const MAX_FUNCTION_LINES = 80;

/** Node's, Bun's and Deno's own globals; the Web platform's (fetch, crypto, URL, streams) are fine. */
const runtimeGlobals = new Set([
  "Bun",
  "Deno",
  "process",
  "Buffer",
  "NodeJS",
  "require",
  "module",
  "__dirname",
  "__filename",
  "global",
  "setImmediate",
]);

function factsOf(file: string): SourceFacts {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const imports: string[] = [];
  const loads: string[] = [];
  const globals: string[] = [];
  const longFunctions: string[] = [];
  const sideChannels: string[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const lastLineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
  const addImport = (specifier: string, erased = false) => {
    const resolved = specifier.startsWith(".")
      ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier))
      : specifier;
    imports.push(resolved);
    if (!erased) loads.push(resolved);
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const erased = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly;
      addImport(node.moduleSpecifier.text, erased);
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      addImport(node.arguments[0].text);
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)
    ) {
      addImport(node.argument.literal.text, true);
    } else if (ts.isIdentifier(node) && runtimeGlobals.has(node.text) && !isMemberName(node)) {
      globals.push(`${node.text}:${lineOf(node)}`);
    } else if (
      ts.isStringLiteral(node) && runtimeGlobals.has(node.text) && ts.isBinaryExpression(node.parent) &&
      node.parent.operatorToken.kind === ts.SyntaxKind.InKeyword
    ) {
      globals.push(`"${node.text}" in:${lineOf(node)}`);
    }
    if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) &&
      ["WeakMap", "WeakSet", "Symbol"].includes(node.expression.text)
    ) {
      sideChannels.push(`${node.expression.text}:${lineOf(node)}`);
    }
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const lines = lastLineOf(node) - lineOf(node) + 1;
      if (lines > MAX_FUNCTION_LINES) longFunctions.push(`${functionName(node)}:${lineOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { file, imports, loads, globals, longFunctions, sideChannels };
}

/** A function's own name, or the name it is bound to (`const f = () => ...`, `{ f: () => ... }`). */
function functionName(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText();
  }
  return "(anonymous)";
}

/** `x.process`, `{ process: 1 }`, `NodeJS` as the right of a qualified name: a member, not the global. */
function isMemberName(node: ts.Identifier): boolean {
  const parent = node.parent as ts.Node & { name?: ts.Node };
  if (ts.isShorthandPropertyAssignment(parent)) return false;
  return parent.name === node || (ts.isQualifiedName(parent) && parent.right === node);
}

const sources = readdirSync("src", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
  .map((file) => factsOf(path.posix.join("src", file.split(path.sep).join("/"))));

const within = (room: string) => (file: string) => file === room || file.startsWith(`${room}/`);

/** What may reach the runtime: its adapters, the operator's command line, the store, and start-up. */
const offRequestPath = ["src/runtime", "src/cli", "src/store", "src/service.ts", "src/config.ts"].map(within);
const onRequestPath = sources.filter(({ file }) => !offRequestPath.some((isIn) => isIn(file)));

/** What a server adapter and the app hand each other: the one file of src/runtime/ the request path may name. */
const PROTOCOL = "src/runtime/serve.ts";

const nodeBuiltins = new Set(builtinModules);
const isRuntimeModule = (specifier: string) =>
  specifier.startsWith("node:") || nodeBuiltins.has(specifier.split("/")[0]!) || /^(bun|deno)(:|$)/.test(specifier) ||
  specifier.startsWith("npm:") || specifier.startsWith("jsr:");

/** `file -> import` for every import of a file in `from` that `isWrong` accepts. */
function importsFrom(from: (file: string) => boolean, isWrong: (specifier: string) => boolean): string[] {
  return sources.filter(({ file }) => from(file)).flatMap(({ file, imports }) =>
    imports.filter(isWrong).map((specifier) => `${file} -> ${specifier}`)
  );
}

/**
 * The floors of the house, lowest first: a file may import its own floor and those below, never one
 * above. A path names a room or one file; a file is on the floor of the longest path that holds it.
 */
const FLOORS: string[][] = [
  ["src/util", "src/log.ts"],
  // The ground floor: router, problem+json, query, CORS, the client's address, the OpenAPI document's
  // parts; and the adapter protocol.
  ["src/http", "src/runtime/serve.ts"],
  ["src/auth/api-key.ts"], // the key's format and hash, which the store keeps
  ["src/store"],
  ["src/queue"], // pg-boss on the store: jobs, watches and webhook deliveries take their turns on it
  ["src/auth"],
  ["src/limits"],
  ["src/metrics"],
  ["src/processes"],
  ["src/net"], // what leaves the process: the egress policy and gate, proxies, the upstream client, the outbound client
  ["src/media"],
  ["src/platforms"],
  ["src/config.ts"],
  ["src/operations"], // the verbs every caller uses: ask, post, download and its links
  ["src/handlers"], // the HTTP operations post, tweet and download
  ["src/cobalt"], // cobalt's API on an origin of its own, answered by the API's operations
  ["src/doctor"],
  ["src/web"], // the owner's site: its pages' parts, sessions, sign-in, keys, the paste page
  // An owner's own cookies (ACCOUNT_COOKIES): its page, its sealed store, the parts its calls go
  // through; the jobs' items and the API's calls of the account use them.
  ["src/account-cookies"],
  // The account features, each in one folder with its routes, pages, store code, runner and OpenAPI
  // paths: webhooks are told by jobs, and a watch's runs are jobs.
  ["src/webhooks"],
  ["src/jobs"],
  ["src/watches"],
  // The top: the app, its API and site paths, the OpenAPI document, /docs and the error sink.
  ["src/app", "src/app.ts"],
  ["src/app-deps.ts"],
  ["src/runtime"], // the capabilities and the server adapters
  ["src/cli"],
  ["src/service.ts"],
  ["src/runtime/node.ts", "src/runtime/bun.ts", "src/runtime/deno.ts"], // the entries
];

function floorOf(file: string): number {
  let found = -1;
  let longest = -1;
  FLOORS.forEach((paths, floor) => {
    for (const each of paths) {
      if (within(each)(file) && each.length > longest) [found, longest] = [floor, each.length];
    }
  });
  return found;
}

const ownImports = (imports: string[]) => imports.filter((specifier) => specifier.startsWith("src/"));

/**
 * The files that load one another in a circle, each circle as its files joined by " -> " (Tarjan's). An `import type`
 * loads nothing (verbatimModuleSyntax erases it), so it makes no circle: a platform module names the type of its own
 * reader, whose source names the records' types, which the list's ids shape.
 */
function circles(): string[] {
  const graph = new Map(sources.map(({ file, loads }) => [file, ownImports(loads)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of graph.get(file)!.filter((each) => graph.has(each))) {
      if (!index.has(next)) visit(next);
      if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, low.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const circle = stack.splice(stack.indexOf(file));
    if (circle.length > 1) found.push(circle.join(" -> "));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe("the layout", () => {
  it("places every file of src/ on a floor", () => {
    expect(sources.filter(({ file }) => floorOf(file) === -1).map(({ file }) => file)).toEqual([]);
  });

  it("has no import that runs up the floors", () => {
    const up = sources.flatMap(({ file, imports }) =>
      ownImports(imports).filter((specifier) => !specifier.endsWith("?raw") && floorOf(specifier) > floorOf(file))
        .map((specifier) => `${file} -> ${specifier}`)
    );
    expect(up.sort()).toEqual([]);
  });

  it("carries no request's state between layers in a WeakMap or a Symbol on the request path", () => {
    // What one layer tells another is a field of what it returns or is handed, never a note hung on an object.
    expect(onRequestPath.flatMap(({ file, sideChannels }) => sideChannels.map((each) => `${file}: ${each}`)))
      .toEqual([]);
  });

  it("names reader.ts only a file that makes a platform's Source: clients and caches are called clients", () => {
    const readers = sources.map(({ file }) => file).filter((file) => path.posix.basename(file) === "reader.ts");
    expect(readers.length).toBeGreaterThan(0);
    const exported = readers.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^export (?:async )?(?:function|interface|type|const|class) (\w+)/gm)]
        .map((match) => `${file}: ${match[1]}`)
    );
    expect(exported.filter((each) => !/: (\w+Source|\w+SourceOptions|\w+Reader)$/.test(each))).toEqual([]);
  });

  it("has no circles: no two files import each other, however far round", () => {
    expect(circles()).toEqual([]);
  });

  it("checks a request path that holds the app and its rooms", () => {
    const rooms = new Set(onRequestPath.map(({ file }) => file.split("/").slice(0, 2).join("/")));
    for (
      const room of [
        "src/app.ts",
        "src/http",
        "src/auth",
        "src/limits",
        "src/platforms",
        "src/media",
        "src/web",
        "src/metrics",
        "src/handlers",
        "src/processes",
      ]
    ) {
      expect(rooms).toContain(room);
    }
  });

  it("imports no runtime module on the request path", () => {
    expect(
      onRequestPath.flatMap(({ file, imports }) =>
        imports.filter(isRuntimeModule).map((specifier) => `${file} -> ${specifier}`)
      ),
    ).toEqual([]);
  });

  it("names no runtime's global on the request path", () => {
    expect(onRequestPath.flatMap(({ file, globals }) => globals.map((name) => `${file}: ${name}`))).toEqual([]);
  });

  it("reaches the runtime only through the capabilities it is handed and the adapter protocol it declares", () => {
    const beyondProtocol = (specifier: string) => within("src/runtime")(specifier) && specifier !== PROTOCOL;
    expect(
      onRequestPath.flatMap(({ file, imports }) =>
        imports.filter(beyondProtocol).map((specifier) => `${file} -> ${specifier}`)
      ),
    ).toEqual([]);
  });

  it("declares the adapter protocol without the runtime: serve.ts imports no runtime module and no adapter", () => {
    const protocol = sources.find(({ file }) => file === PROTOCOL)!;
    expect(
      protocol.imports.filter((specifier) =>
        isRuntimeModule(specifier) || (within("src/runtime")(specifier) && specifier !== PROTOCOL)
      ),
    ).toEqual([]);
    expect(protocol.globals).toEqual([]);
  });

  it("lets platforms/ use media/, and never the other way", () => {
    expect(importsFrom(within("src/media"), within("src/platforms"))).toEqual([]);
  });

  it("keeps the handlers out of the rooms they use", () => {
    const rooms = ["src/media", "src/platforms", "src/processes", "src/http", "src/limits"].map(within);
    expect(importsFrom((file) => rooms.some((isIn) => isIn(file)), within("src/handlers"))).toEqual([]);
  });

  it("runs child processes without knowing what for", () => {
    const users = ["src/media", "src/platforms", "src/handlers"].map(within);
    expect(importsFrom(within("src/processes"), (specifier) => users.some((isIn) => isIn(specifier)))).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(sources.flatMap(({ file, longFunctions }) => longFunctions.map((each) => `${file}: ${each}`))).toEqual([]);
  });

  it("keeps the store free of HTTP: it returns results, its callers choose the status", () => {
    const above = ["src/http", "src/web", "src/handlers", "src/app.ts"].map(within);
    expect(importsFrom(within("src/store"), (specifier) => above.some((isIn) => isIn(specifier)))).toEqual([]);
  });
});
