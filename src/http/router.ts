// A tiny router of exact paths and of paths with `{name}` segments (`/api/v1/jobs/{id}`, any
// characters but `/`), whose values it hands the handler as `params`. HEAD is served by the GET
// handler; an unknown path and a wrong method are told apart so the caller can answer 404 or 405
// with Allow.
export type Method = "GET" | "POST" | "DELETE";

export interface Route<H> {
  method: Method;
  path: string;
  handler: H;
}

/** The path's `{name}` segments as they came, decoded. */
export type Params = Readonly<Record<string, string>>;

export type Match<H> = { handler: H; params: Params } | { allow: string[] } | null;

/** `/a/{id}/b` as a pattern matching `/a/<one segment>/b`, each segment a named group. */
const patternOf = (path: string) =>
  new RegExp(
    `^${
      path.split(/(\{[^/}]+\})/).map((part, index) =>
        index % 2 === 1 ? `(?<${part.slice(1, -1)}>[^/]+)` : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")
      ).join("")
    }$`,
  );

/** A segment as the caller meant it; one that is not valid percent-encoding is kept as it came (no route's id has a `%`). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function createRouter<H>(routes: readonly Route<H>[]) {
  const byPath = new Map<string, Map<string, H>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Map<string, H>();
    methods.set(route.method, route.handler);
    if (route.method === "GET") methods.set("HEAD", route.handler);
    byPath.set(route.path, methods);
  }
  const patterns = [...byPath.entries()]
    .filter(([path]) => path.includes("{"))
    .map(([path, methods]) => ({ pattern: patternOf(path), methods }));

  /** The methods of the route at `path`, and its params. */
  function find(path: string): { methods: Map<string, H>; params: Params } | undefined {
    if (path.includes("{")) return undefined;
    const exact = byPath.get(path);
    if (exact) return { methods: exact, params: {} };
    for (const { pattern, methods } of patterns) {
      const groups = pattern.exec(path)?.groups;
      if (groups) {
        return { methods, params: Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, decoded(v)])) };
      }
    }
    return undefined;
  }

  return {
    match(method: string, path: string): Match<H> {
      const found = find(path);
      if (!found) return null;
      const handler = found.methods.get(method);
      return handler ? { handler, params: found.params } : { allow: [...found.methods.keys()] };
    },
  };
}
