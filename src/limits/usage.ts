// GET /api/v1/usage: what the calling key may still do. Counted like any other call.
import { z } from "zod";
import type { ApiHandler } from "../auth/api-context.ts";
import { json } from "../http/json-response.ts";
import { tiers } from "../store/api-keys.ts";
import { remainingOf } from "./admission.ts";

const BURST_WINDOW_SEC = 60;

export const UsageRecord = z.object({
  apiKeyId: z.string().describe("Identifier of the calling key (not the key itself)"),
  tier: z.enum(tiers),
  dailyLimit: z.number().int().describe("Requests allowed in any 24 h"),
  remaining: z.number().int().describe("Requests left in the current 24 h window, this one counted"),
  burstLimit: z.number().int().describe("Requests allowed in any burstWindowSec seconds"),
  burstWindowSec: z.number().int(),
  windowResetsAt: z
    .string()
    .nullable()
    .describe("When the oldest counted request leaves the 24 h window (ISO 8601 UTC); null when none is counted"),
});
export type UsageRecord = z.infer<typeof UsageRecord>;

export const usageHandler: ApiHandler = async ({ caller: { key } }) =>
  json(
    {
      apiKeyId: key.id,
      tier: key.tier,
      dailyLimit: key.dailyLimit,
      remaining: remainingOf(key),
      burstLimit: key.burstLimit,
      burstWindowSec: BURST_WINDOW_SEC,
      windowResetsAt: key.dayFreesAt?.toISOString() ?? null,
    } satisfies UsageRecord,
  );
