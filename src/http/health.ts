// GET /healthz: liveness, 200 {"status":"ok"} while the process and its store answer, 503 when the
// store does not. It says nothing else to anyone who asks: tool versions belong to /metrics, and
// what is missing to /readyz and the log.
import { errorText, type Logger } from "../log.ts";
import { withTimeout } from "../util/timeout.ts";
import { json } from "./json-response.ts";

/** `db` is the store (store/db.ts, a floor above), of which only a query is asked. */
export async function healthResponse(
  db: { query(sql: string): Promise<unknown> },
  timeoutMs: number,
  log: Logger,
): Promise<Response> {
  try {
    await withTimeout(db.query("SELECT 1"), timeoutMs, "store timed out");
    return json({ status: "ok" });
  } catch (error) {
    log.warn("health check failed", { error: errorText(error) });
    return json({ status: "unavailable" }, { status: 503 });
  }
}
