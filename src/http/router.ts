// A tiny router of exact paths and of paths with one `{name}` segment (`/api/v1/jobs/{id}`, any
// characters but `/`). HEAD is served by the GET handler; an unknown path and a wrong method are
// told apart so the caller can answer 404 or 405 with Allow. The handler reads the segment from
// the path itself.
export type Method = "GET" | "POST" | "DELETE";

export interface Route<H> {
  method: Method;
  path: string;
  handler: H;
}

export type Match<H> = { handler: H } | { allow: string[] } | null;

/** `/a/{id}/b` as a pattern matching `/a/<one segment>/b`. */
const patternOf = (path: string) =>
  new RegExp(`^${path.split(/\{[^/}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("[^/]+")}$`);

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
  return {
    match(method: string, path: string): Match<H> {
      const methods = path.includes("{")
        ? undefined
        : byPath.get(path) ?? patterns.find(({ pattern }) => pattern.test(path))?.methods;
      if (!methods) return null;
      const handler = methods.get(method);
      return handler ? { handler } : { allow: [...methods.keys()] };
    },
  };
}
