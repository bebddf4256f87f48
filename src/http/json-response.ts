// JSON answers, with their size declared.

export function json(data: unknown, init: ResponseInit = {}): Response {
  const body = new TextEncoder().encode(JSON.stringify(data));
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json; charset=utf-8");
  // Declared, so the request log and metrics know the size without reading the body.
  headers.set("content-length", String(body.byteLength));
  return new Response(body, { ...init, headers });
}
