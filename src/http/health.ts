// GET /healthz: 200 while the process and its store answer, 503 when the store does not; it also
// shows each page-mode tool's version, or null when the tool cannot be run (page mode then answers
// 503 while the rest works).
import type { Logger } from "../log.ts";
import type { Tools } from "../media/tools.ts";
import type { Db } from "../store/db.ts";
import { withTimeout } from "../util/timeout.ts";
import { json } from "./context.ts";

export async function healthResponse(db: Db, tools: Tools, timeoutMs: number, log: Logger): Promise<Response> {
  const versions = Object.fromEntries(Object.entries(tools).map(([name, status]) => [name, status.version]));
  try {
    await withTimeout(db.query("SELECT 1"), timeoutMs, "store timed out");
    return json({ status: "ok", store: db.kind, tools: versions });
  } catch (error) {
    log.warn("health check failed", { error: String(error) });
    return json({ status: "unavailable", store: db.kind, tools: versions }, { status: 503 });
  }
}
