// Adapts Deno.serve to the Fetch handler. Deno passes bodies through natively, keeps the
// Content-Length we set, and aborts `request.signal` and cancels the body when a client goes away.
import { Deno } from "./deno-api.ts";
import { requestIdFrom } from "../http/request-id.ts";
import { requestUrl, unservable } from "../http/unservable.ts";
import { createLogger, errorText } from "../log.ts";
import type { Serve } from "./serve.ts";

export const serveDeno: Serve = async (served, on, log = createLogger("warn"), limits) => {
  // Deno.serve (2.9) tells nothing of a connection before its request and has no head or read
  // timeout: an idle connection is held for as long as the client likes (denoland/deno#3515).
  if (limits) {
    log.warn(
      "Deno's server cannot bound connections: no head timeout, no connection caps; put a reverse proxy in front (docs/runtimes.md, Connections)",
      {
        headTimeoutMs: limits.headTimeoutMs,
        maxConnections: limits.maxConnections,
        maxConnectionsPerClient: limits.maxPerClient,
      },
    );
  }
  // Once shutdown() has begun, Deno offers no way to close the remaining connections (aborting the
  // server's own signal then throws BadResource, Deno 2.9), and a body it streams natively, such as
  // a relayed fetch body, no longer heeds the request's signal. So `cut()` aborts every request's
  // signal, which ends what is still waiting or streamed in JavaScript, and stops waiting for the
  // rest: those connections close when the process exits.
  const cutAll = new AbortController();
  const cutDone = new Promise<void>((resolve) =>
    cutAll.signal.addEventListener("abort", () => resolve(), { once: true })
  );
  let server!: ReturnType<typeof Deno.serve>;
  await new Promise<void>((resolve) => {
    server = Deno.serve(
      {
        ...("path" in on ? { path: on.path, transport: "unix" as const } : on),
        onListen: () => resolve(),
      },
      async (request, info) => {
        const requestId = requestIdFrom(request.headers.get("x-request-id"));
        let forwarded: Request;
        try {
          requestUrl(request.method, request.url, request.headers.get("host") ?? "localhost");
          forwarded = new Request(request, { signal: AbortSignal.any([request.signal, cutAll.signal]) });
        } catch (error) {
          log.info("unservable request", { requestId, method: request.method.slice(0, 16), error: errorText(error) });
          return served.refuse(unservable(error), requestId);
        }
        try {
          const reply = await served.answer(forwarded, { peer: info.remoteAddr.hostname, requestId });
          // `completed` settles once the response went out in full (resolves) or was abandoned.
          void info.completed.then(
            () => reply.done({ ended: "complete" }),
            (error: unknown) =>
              reply.done(request.signal.aborted ? { ended: "cut by client" } : { ended: "cut by error", error }),
          );
          // Deno sends `response.body`: a native body is Node's, and the stall cut watches the stream.
          return reply.response;
        } catch (error) {
          // The app turns its own errors into answers; this is the last line of defence, and the sink logs it.
          return served.refuse(error, requestId);
        }
      },
    );
  });
  const { hostname, port } = server.addr;
  return {
    address: "path" in on ? on.path : `http://${hostname?.includes(":") ? `[${hostname}]` : hostname}:${port}`,
    port,
    close: () => Promise.race([server.shutdown(), cutDone]),
    cut: () => cutAll.abort(),
  };
};
