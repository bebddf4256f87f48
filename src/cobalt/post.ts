// `POST /` of the door: a cobalt client's request becomes the API's `post` call, made in-process with
// the client's key, so it is admitted, counted and limited as any call of that key is; its record
// becomes cobalt's answer (answer.ts), its problem cobalt's error (errors.ts).
import type { Arrival, Served } from "../runtime/serve.ts";
import { isWellFormedKey } from "../auth/api-key.ts";
import { KEY_ID_PARAM } from "../auth/signed-link.ts";
import type { TrustedProxies } from "../http/client-address.ts";
import { json } from "../http/json-response.ts";
import type { LinkedPostRecord } from "../platforms/records.ts";
import { cobaltAnswer, NothingToSend } from "./answer.ts";
import { cobaltAnswerOf, cobaltError } from "./errors.ts";
import { keylessClient } from "./keyless.ts";
import { JSON_MEDIA_TYPE, readCobaltRequest } from "./request.ts";
import { type TunnelSettings, tunnelSigner } from "./tunnel.ts";

export interface PostDoorDeps {
  /** The app, asked in-process as a client would ask it. */
  api: Served;
  tunnels: TunnelSettings;
  now: () => Date;
  /** The key of a request without one (keyless.ts), when the operator allows keyless use; else a key is asked. */
  keyless: ((client: string, now: Date) => Promise<string>) | null;
  trusted: TrustedProxies;
}

/** cobalt's web app gives up after 20 s; an answer that takes longer is told as cobalt's `timed_out` before that. */
const ANSWER_WITHIN_MS = 18_000;
/** cobalt reads at most 1 KiB of body; a little more room for clients that send every field. */
const MAX_BODY_BYTES = 4096;

/** The key of `Authorization: Api-Key <key>` (cobalt's) or `Bearer <key>` (ours), or the cobalt error that refuses it. */
export function keyOf(request: Request): { key: string } | { refusal: string } {
  const header = request.headers.get("authorization");
  if (header === null) return { refusal: "auth.key.missing" };
  const [scheme, key, ...rest] = header.trim().split(/[ \t]+/);
  if (!["api-key", "bearer"].includes(scheme!.toLowerCase())) return { refusal: "auth.key.not_api_key" };
  if (key === undefined || rest.length > 0 || !isWellFormedKey(key)) return { refusal: "auth.key.invalid" };
  return { key };
}

/**
 * The key a request is made with: its own (or the refusal of it), or without one, where the operator allows keyless
 * use, null: its client's keyless key, made (`keylessKeyOf`) only once the request is known to ask for work.
 */
function callerOf(deps: PostDoorDeps, request: Request): { key: string } | { refusal: string } | null {
  if (deps.keyless === null || request.headers.has("authorization")) return keyOf(request);
  return null;
}

/** The keyless key of the request's client; a key row is made on the way, so only for a request that will be asked. */
function keylessKeyOf(deps: PostDoorDeps, request: Request, arrival: Arrival): Promise<string> {
  const client = keylessClient({ request, peer: arrival.peer }, deps.trusted);
  return deps.keyless!(client, deps.now());
}

async function readBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (new TextEncoder().encode(text).byteLength > MAX_BODY_BYTES) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export async function postDoor(deps: PostDoorDeps, request: Request, arrival: Arrival): Promise<Response> {
  if (!JSON_MEDIA_TYPE.test(request.headers.get("accept") ?? "")) return cobaltError("header.accept");
  if (!JSON_MEDIA_TYPE.test(request.headers.get("content-type") ?? "")) return cobaltError("header.content_type");
  const caller = callerOf(deps, request);
  if (caller !== null && "refusal" in caller) return cobaltError(caller.refusal);
  const body = await readBody(request);
  if (typeof body === "object" && body !== null && !("url" in body)) return cobaltError("link.missing");
  const asked = readCobaltRequest(body);
  if (asked === null) return cobaltError("invalid_body");
  if (!URL.canParse(asked.url)) return cobaltError("link.invalid");
  const service = serviceGuess(asked.url);
  const key = caller?.key ?? await keylessKeyOf(deps, request, arrival);
  const answer = await within(ANSWER_WITHIN_MS, askPost(deps, request, arrival, key, asked.url));
  if (answer === "timed out") return cobaltError("timed_out");
  if ("problem" in answer) return cobaltAnswerOf(answer.problem, service, answer.retryAfterS);
  const keyId = new URL(answer.record.downloadUrl).searchParams.get(KEY_ID_PARAM)!;
  try {
    return json(await cobaltAnswer(answer.record, asked, tunnelSigner(deps.tunnels, keyId, deps.now())));
  } catch (error) {
    if (error instanceof NothingToSend) return cobaltError(error.code);
    throw error;
  }
}

type PostOutcome = { record: LinkedPostRecord } | { problem: string; retryAfterS: number | undefined };

/** The API's `post` of `url` with the client's key, its address and proxy's word kept. */
async function askPost(
  deps: PostDoorDeps,
  request: Request,
  arrival: Arrival,
  key: string,
  url: string,
): Promise<PostOutcome> {
  const target = new URL("/api/v1/post", request.url);
  target.searchParams.set("url", url);
  const headers = new Headers({ authorization: `Bearer ${key}` });
  for (const name of ["x-forwarded-for", "user-agent"]) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const reply = await deps.api.answer(new Request(target, { headers, signal: request.signal }), arrival);
  try {
    const answer = await reply.response.json();
    if (reply.response.ok) return { record: answer as LinkedPostRecord };
    const retryAfter = reply.response.headers.get("retry-after");
    return { problem: String(answer.code), retryAfterS: retryAfter === null ? undefined : Number(retryAfter) };
  } finally {
    reply.done({ ended: "complete" });
  }
}

function within<T>(ms: number, work: Promise<T>): Promise<T | "timed out"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"timed out">((resolve) => (timer = setTimeout(() => resolve("timed out"), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The service a failure names (`context.service`): the link's site, its host's first label past `www.`. */
function serviceGuess(url: string): string {
  const labels = new URL(url).hostname.replace(/^(www|m|mobile)\./, "").split(".");
  return labels.length > 1 ? labels[labels.length - 2]! : labels[0]!;
}
