// The outbound client: how the readers the service runs itself (a platform's APIs, pages and
// video hosts, whatever platform it reads) reach their platform. One place
// holds the rules the egress gate holds for the media tools: every hop, redirects included, is
// checked with the egress policy (egress.ts) before a connection opens and is pinned to the address
// it checked; redirects are bounded; the session's headers (cookies, tokens, a CSRF header) go only
// to the origin they were written for; every body is read up to a bound; the whole exchange, body
// included, has a deadline. The bytes go over the runtime's upstream client (OUTBOUND_PROXY when set).
import { ApiError, upstreamFailed } from "../http/problem.ts";
import { withOriginOverride } from "../http/direct-hosts.ts";
import { egressAddress, type EgressPolicy, portOf } from "./egress.ts";
import type { UpstreamClient, UpstreamResponse } from "./relay-upstream.ts";
import { boundedText } from "../util/bounded-text.ts";

export interface OutboundOptions {
  /** Named in the detail of a failure: the platform's name. */
  name: string;
  /** Bound on each exchange: every hop and the body. */
  timeoutMs: number;
  upstream: UpstreamClient;
  /** The egress policy; its trusted endpoints include the platform API bases the operator configured. */
  policy: EgressPolicy;
  /** ORIGIN_OVERRIDES: where a host's requests go instead (tests, a local mirror); trusted as named. */
  originOverrides: ReadonlyMap<string, string>;
  /** Told how each exchange ended, by the URL it began at: its final status, or null for none (metrics). */
  onExchange?: (url: URL, status: number | null) => void;
}

export interface OutboundRequest {
  url: URL;
  method?: "GET" | "POST";
  /** A POST's body (a form, as text); a redirect that turns the POST into a GET drops it. */
  body?: string;
  /** Sent to every hop: accept, user-agent. */
  headers?: Record<string, string>;
  /** Credentials (cookies, tokens, x-csrf-token): sent only to `url`'s origin, never to a redirect's other origin. */
  session?: Record<string, string>;
  /** "manual" answers a redirect as it is (its Location is the caller's to read); default "follow". */
  redirect?: "follow" | "manual";
  /** The body is read for a 2xx answer and for these statuses (an API's error name); others are not read. */
  readErrors?: readonly number[];
  /** "none": no body is read, whatever the status (a webhook receiver's answer is its status line). */
  read?: "none";
  /** The most of the body that is read; past it the exchange is 502. */
  maxBytes: number;
  /** Ends the exchange early (the caller went away). */
  signal?: AbortSignal;
}

export interface OutboundAnswer {
  status: number;
  headers: Headers;
  /** The body's text when it was read (see `readErrors`), else null. */
  text: string | null;
}

export interface JsonAnswer {
  status: number;
  /** The parsed body when it was read; undefined for other statuses and for an error status whose body is not JSON. */
  body: unknown;
}

export interface Outbound {
  text(request: OutboundRequest): Promise<OutboundAnswer>;
  /** As `text`, the body parsed as JSON: 502 when a 2xx body is not JSON. */
  json(request: OutboundRequest): Promise<JsonAnswer>;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function createOutbound(options: OutboundOptions): Outbound {
  const { name, timeoutMs } = options;

  async function text(request: OutboundRequest): Promise<OutboundAnswer> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = request.signal === undefined ? deadline : AbortSignal.any([request.signal, deadline]);
    try {
      const response = await followHops(request, options, signal);
      const answer = await readAnswer(response, request);
      options.onExchange?.(request.url, answer.status);
      return answer;
    } catch (error) {
      options.onExchange?.(request.url, null);
      if (error instanceof ApiError) throw error;
      throw deadline.aborted
        ? upstreamFailed(`${name} did not answer within ${timeoutMs} ms; try again later.`, { cause: error })
        : upstreamFailed(`${name} could not be reached; try again later.`, { cause: error });
    }
  }

  /** The body when it is read, else the upstream is told to stop sending it. */
  async function readAnswer(response: UpstreamResponse, request: OutboundRequest): Promise<OutboundAnswer> {
    const { status, headers, body } = response;
    const wanted = request.read !== "none" &&
      ((status >= 200 && status <= 299) || (request.readErrors?.includes(status) ?? false));
    if (!wanted || body === null) {
      await body?.cancel();
      return { status, headers, text: wanted ? "" : null };
    }
    const tooLarge = () =>
      upstreamFailed(`${name} answered with more than ${request.maxBytes} bytes; try again later.`);
    return { status, headers, text: await boundedText(body, request.maxBytes, tooLarge) };
  }

  return {
    text,
    async json(request) {
      const { status, text: body } = await text({
        ...request,
        headers: { accept: "application/json", ...request.headers },
      });
      if (body === null) return { status, body: undefined };
      try {
        return { status, body: JSON.parse(body) };
      } catch (error) {
        if (status < 200 || status > 299) return { status, body: undefined };
        throw upstreamFailed(`${name} answered with something that is not JSON; try again later.`, { cause: error });
      }
    },
  };
}

/** The answer at the end of the redirects (or the first, with `redirect: "manual"`); every hop checked. */
async function followHops(
  request: OutboundRequest,
  options: OutboundOptions,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const origin = request.url.origin;
  let method = request.method ?? "GET";
  let body = request.body === undefined ? undefined : new TextEncoder().encode(request.body);
  const seen = new Set<string>();
  for (let url = request.url;;) {
    seen.add(url.href);
    const headers = {
      "accept-encoding": "identity",
      ...request.headers,
      ...(url.origin === origin ? request.session : {}),
    };
    const target = await connectionTarget(url, options);
    const response = await options.upstream({ ...target, method, headers, body, signal });
    if (request.redirect === "manual" || !REDIRECT_STATUSES.has(response.status)) return response;
    void response.ended.catch(() => {});
    await response.body?.cancel();
    const next = redirectTarget(response.headers.get("location"), url, options.name);
    if (seen.has(next.href)) throw upstreamFailed(`${options.name} redirects in a loop; try again later.`);
    if (seen.size > MAX_REDIRECTS) {
      throw upstreamFailed(`${options.name} redirects more than ${MAX_REDIRECTS} times; try again later.`);
    }
    // As fetch does: a 303, or a POST moved by 301/302, is asked again with GET.
    if (response.status === 303 || (method === "POST" && response.status <= 302)) [method, body] = ["GET", undefined];
    url = next;
  }
}

/**
 * Where a hop connects: the operator's override origin as named, else the host pinned to the
 * address the egress policy checked (null for an endpoint the operator trusted: connect as named).
 * A platform that leads this server to an address it may not reach is a failing upstream, not the
 * caller's mistake: 502, with the policy's refusal as its cause.
 */
async function connectionTarget(url: URL, options: OutboundOptions): Promise<{ url: URL; address?: string }> {
  const overridden = withOriginOverride(url, options.originOverrides);
  if (overridden !== url) return { url: overridden };
  try {
    const address = await egressAddress(url.hostname, portOf(url), options.policy);
    return address === null ? { url } : { url, address };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "host_not_allowed") throw error;
    throw upstreamFailed(`${options.name} led this server to ${url.host}, which it does not reach; try again later.`, {
      cause: error,
    });
  }
}

function redirectTarget(location: string | null, base: URL, name: string): URL {
  const target = location === null ? null : URL.parse(location, base);
  if (target === null || (target.protocol !== "https:" && target.protocol !== "http:")) {
    throw upstreamFailed(`${name} sent a redirect this server does not follow; try again later.`);
  }
  return target;
}
