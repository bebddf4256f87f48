// Starts the service on whichever runtime's server it is handed: open the store, build the app,
// listen, and (with the embedded store) open the admin socket for the command line.
import { chmodSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "./app.ts";
import { ADMIN_SOCKET, createAdminChannel } from "./cli/channel.ts";
import { ConfigError, parseConfig, type Config } from "./config.ts";
import { createLogger, type Logger } from "./log.ts";
import { openStore } from "./store/open.ts";
import type { RunningServer, Serve } from "./runtime/serve.ts";

export interface Service {
  server: RunningServer;
  close(): Promise<void>;
}

export async function startService(config: Config, serve: Serve, log: Logger): Promise<Service> {
  const db = await openStore(config);
  const app = createApp({ config, db, log });
  const server = await serve(app.fetch, { port: config.PORT, hostname: config.HOST });
  let admin: RunningServer | undefined;
  if (!config.DATABASE_URL) {
    // We hold the data folder's lock, so a socket file left here is a dead process's.
    const socket = join(config.DATA_DIR, ADMIN_SOCKET);
    rmSync(socket, { force: true });
    admin = await serve(createAdminChannel(db), { path: socket });
    chmodSync(socket, 0o600);
  }
  log.info(`listening on ${server.address}`, { address: server.address, store: db.kind });
  return {
    server,
    async close() {
      await server.close();
      await admin?.close();
      await db.close();
    },
  };
}

/** What every runtime entry does: read the environment, start, stop on a signal. */
export async function main(env: Record<string, string | undefined>, serve: Serve, onSignal: (signal: string, stop: () => void) => void, exit: (code: number) => never): Promise<void> {
  let config: Config;
  try {
    config = parseConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return exit(1);
  }
  const log = createLogger(config.LOG_LEVEL);
  let service: Service;
  try {
    service = await startService(config, serve, log);
  } catch (error) {
    log.error("could not start", { error: error instanceof Error ? error.message : String(error) });
    return exit(1);
  }
  let stopping = false;
  const stop = (signal: string) => () => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { signal });
    service.close().then(
      () => exit(0),
      () => exit(1),
    );
  };
  for (const signal of ["SIGINT", "SIGTERM"]) onSignal(signal, stop(signal));
}
