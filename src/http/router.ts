// A tiny exact-path router. HEAD is served by the GET handler; an unknown path and a wrong
// method are told apart so the caller can answer 404 or 405 with Allow.
export type Method = "GET" | "POST";

export interface Route<H> {
  method: Method;
  path: string;
  handler: H;
}

export type Match<H> = { handler: H } | { allow: string[] } | null;

export function createRouter<H>(routes: readonly Route<H>[]) {
  const byPath = new Map<string, Map<string, H>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Map<string, H>();
    methods.set(route.method, route.handler);
    if (route.method === "GET") methods.set("HEAD", route.handler);
    byPath.set(route.path, methods);
  }
  return {
    match(method: string, path: string): Match<H> {
      const methods = byPath.get(path);
      if (!methods) return null;
      const handler = methods.get(method);
      return handler ? { handler } : { allow: [...methods.keys()] };
    },
  };
}
