// The reference each runtime's relay is held against: that runtime's own fastest pass-through of
// an upstream body (docs/relay-costs.md). Node: a node:http request piped into the response; Bun and
// Deno: their server returning `new Response(upstream.body)`. Run with ORIGIN and PORT set; it
// prints "ready" once it listens. Bun's sends no Content-Length (oven-sh/bun#10507), which a
// download must send, so SERVER=node:http makes the node:http pipe Bun's second reference: its
// fastest pass-through that keeps the length.
const env = globalThis.Deno ? (name) => globalThis.Deno.env.get(name) : (name) => process.env[name];
const origin = env("ORIGIN");
const port = Number(env("PORT"));
const passOn = async (request) => {
  const upstream = await fetch(origin + new URL(request.url).pathname);
  return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
};

if (globalThis.Bun && env("SERVER") !== "node:http") {
  globalThis.Bun.serve({ port, hostname: "127.0.0.1", fetch: passOn });
  console.log("ready");
} else if (globalThis.Deno) {
  globalThis.Deno.serve({ port, hostname: "127.0.0.1", onListen: () => console.log("ready") }, passOn);
} else {
  const http = await import("node:http");
  http
    .createServer((req, res) => {
      const upstream = http.get(origin + req.url, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      res.on("close", () => upstream.destroy());
    })
    .listen(port, "127.0.0.1", () => console.log("ready"));
}
