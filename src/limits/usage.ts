// GET /api/v1/usage: what the calling key may still do. Counted like any other call.
import { json, type ApiHandler } from "../http/context.ts";

export const usageHandler: ApiHandler = async ({ key }) =>
  json({
    apiKeyId: key.id,
    tier: key.tier,
    dailyLimit: key.dailyLimit,
    remaining: Math.max(0, key.dailyLimit - key.dayCount),
    burstLimit: key.burstLimit,
    burstWindowSec: 60,
    windowResetsAt: key.dayFreesAt?.toISOString() ?? null,
  });
