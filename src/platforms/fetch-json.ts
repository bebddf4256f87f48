// One bounded HTTP exchange with a platform's JSON API (X's, Bluesky's AppView). Every way it can
// go wrong on the wire becomes 502 upstream_failed, so callers only decide what the statuses mean.
import { upstreamFailed } from "../http/problem.ts";

export interface JsonAnswer {
  status: number;
  /**
   * The parsed body of a 2xx answer; undefined for other statuses (their bodies are not read),
   * except those in `readErrors`, whose JSON body is read when it is JSON (an API's error name).
   */
  body: unknown;
}

export interface JsonExchange {
  /** Named in the detail of a failure: "X", "Bluesky". */
  upstream: string;
  timeoutMs: number;
  readErrors?: readonly number[];
}

export async function fetchJson(
  fetchFn: typeof fetch,
  url: string,
  init: RequestInit,
  exchange: JsonExchange,
): Promise<JsonAnswer> {
  const { upstream, timeoutMs } = exchange;
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  let status: number;
  try {
    const response = await fetchFn(url, { ...init, signal });
    status = response.status;
    if (!response.ok && !exchange.readErrors?.includes(status)) {
      await response.body?.cancel();
      return { status, body: undefined };
    }
    text = await response.text();
  } catch (error) {
    throw signal.aborted
      ? upstreamFailed(`${upstream} did not answer within ${timeoutMs} ms; try again later.`, { cause: error })
      : upstreamFailed(`${upstream} could not be reached; try again later.`, { cause: error });
  }
  try {
    return { status, body: JSON.parse(text) };
  } catch (error) {
    if (status < 200 || status > 299) return { status, body: undefined };
    throw upstreamFailed(`${upstream} answered with something that is not JSON; try again later.`, { cause: error });
  }
}
