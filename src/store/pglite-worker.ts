// The embedded store's thread (dist/pglite-worker.mjs, started by openPgliteThread): PGlite in the
// folder it is handed, answering the service's calls.
import { parentPort, workerData } from "node:worker_threads";
import { openPglite } from "./db.ts";
import { serveDb } from "./pglite-thread.ts";

serveDb(openPglite((workerData as { folder: string }).folder), parentPort!);
