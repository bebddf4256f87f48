// One bounded HTTP exchange with an X upstream. Every way it can go wrong on the wire becomes
// 502 upstream_failed, so callers only decide what the status codes mean.
import { upstreamFailed } from "../../http/problem.ts";

export interface JsonAnswer {
  status: number;
  /** The parsed body of a 2xx answer; undefined for other statuses (their bodies are not read). */
  body: unknown;
}

export async function fetchJson(
  fetchFn: typeof fetch,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<JsonAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  let status: number;
  try {
    const response = await fetchFn(url, { ...init, signal });
    status = response.status;
    if (!response.ok) {
      await response.body?.cancel();
      return { status, body: undefined };
    }
    text = await response.text();
  } catch (error) {
    throw signal.aborted
      ? upstreamFailed(`X did not answer within ${timeoutMs} ms; try again later.`, { cause: error })
      : upstreamFailed("X could not be reached; try again later.", { cause: error });
  }
  try {
    return { status, body: JSON.parse(text) };
  } catch (error) {
    throw upstreamFailed("X answered with something that is not JSON; try again later.", { cause: error });
  }
}
