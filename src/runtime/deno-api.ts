// The few parts of Deno's global API the service uses, typed here so that no Deno type package is
// needed and the `Deno` global appears nowhere else. Only the Deno entry imports this module.

export type DenoSignal = "SIGINT" | "SIGTERM";

interface DenoServeOptions {
  onListen(address: { hostname?: string; port?: number; path?: string }): void;
}

export interface DenoHttpServer {
  addr: { hostname?: string; port?: number; path?: string };
  /** Stops accepting; resolves once the requests in flight are answered, bodies included. */
  shutdown(): Promise<void>;
}

export interface DenoApi {
  serve(
    options: DenoServeOptions & ({ port: number; hostname: string } | { path: string; transport: "unix" }),
    handler: (
      request: Request,
      info: { completed: Promise<void>; remoteAddr: { hostname?: string } },
    ) => Promise<Response>,
  ): DenoHttpServer;
  env: { toObject(): Record<string, string> };
  addSignalListener(signal: DenoSignal, handler: () => void): void;
  exit(code: number): never;
}

export const Deno = (globalThis as unknown as { Deno: DenoApi }).Deno;
