// The fair shares of concurrent work (docs/security.md, Connections and fair shares), rule by
// rule, on the slots themselves; test/handlers/download-fairness.test.ts holds them over HTTP.
import { describe, expect, it } from "vitest";
import { createSlots, operationSlots, type SlotHolder, slotsPerTier } from "../../src/limits/slots.ts";
import { slotCaps } from "../../src/limits/slot-caps.ts";
import { ApiError } from "../../src/http/problem.ts";

let accounts = 0;
/** A key of a new account, from `client`. */
const holder = (tier: string, client: string): SlotHolder => {
  accounts += 1;
  return { id: `key${accounts}`, accountId: accounts, tier, client };
};

/** The refusal's detail, or "taken" when the slot was given. */
function tryTake(slots: ReturnType<typeof createSlots>, who: SlotHolder): string {
  try {
    slots.acquire(who);
    return "taken";
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    return (error as ApiError).message;
  }
}

const pageSlots = (server: number) =>
  createSlots({ perTier: slotsPerTier, server, code: "too_many_downloads", what: "page-mode downloads" });

describe("slots", () => {
  it("give the accounts of one client address one fair share between them", () => {
    const slots = pageSlots(40);
    expect(tryTake(slots, holder("FREE", "10.0.0.1"))).toBe("taken");
    for (let i = 0; i < 3; i += 1) {
      expect(tryTake(slots, holder("FREE", "10.0.0.1"))).toMatch(
        /1 at a time for the accounts of one client address using a FREE key/,
      );
    }
    // A GOLD account at that address is inside its own share, which counts the FREE slot too.
    const gold = holder("GOLD", "10.0.0.1");
    for (let i = 0; i < 9; i += 1) expect(tryTake(slots, { ...gold })).toBe("taken");
    expect(tryTake(slots, holder("GOLD", "10.0.0.1"))).toMatch(/10 at a time for the accounts of one client address/);
  });

  it("let FREE keys from many addresses hold half of the instance, and FREE and PRO three quarters", () => {
    const slots = pageSlots(8);
    const refusals = Array.from({ length: 12 }, (_, i) => tryTake(slots, holder("FREE", `10.0.1.${i}`)));
    expect(refusals.filter((each) => each === "taken")).toHaveLength(4);
    expect(refusals.filter((each) => /part for FREE keys is taken/.test(each))).toHaveLength(8);
    expect(tryTake(slots, holder("PRO", "10.0.2.1"))).toBe("taken");
    expect(tryTake(slots, holder("PRO", "10.0.2.2"))).toBe("taken");
    expect(tryTake(slots, holder("PRO", "10.0.2.3"))).toMatch(/part for FREE and PRO keys is taken/);
    expect(tryTake(slots, holder("GOLD", "10.0.3.1"))).toBe("taken");
    expect(tryTake(slots, holder("GOLD", "10.0.3.2"))).toBe("taken");
    expect(tryTake(slots, holder("GOLD", "10.0.3.3"))).toMatch(/this server's limit/);
  });

  it("keep the last quarter for an account and an address that hold none", () => {
    const slots = pageSlots(4);
    const gold = holder("GOLD", "10.0.4.1");
    for (let i = 0; i < 3; i += 1) expect(tryTake(slots, gold)).toBe("taken");
    expect(tryTake(slots, gold)).toMatch(/last slots are kept for other accounts/);
    // Another account from the same address holds none itself, but its address does.
    expect(tryTake(slots, holder("GOLD", "10.0.4.1"))).toMatch(/last slots are kept for other accounts/);
    expect(tryTake(slots, holder("GOLD", "10.0.4.2"))).toBe("taken");
  });

  it("give a slot back once, however often its release is called, and count each kind apart", () => {
    const held: [string, number, number][] = [];
    const taken: string[] = [];
    const slots = operationSlots(
      { MAX_EXTRACTIONS: 2, MAX_REMUXES: 2, MAX_ENCODES: 1, MAX_DIRECT_DOWNLOADS: 2 },
      {
        slotsHeld: (kind, count, limit) => held.push([kind, count, limit]),
        slotTaken: (kind) => taken.push(kind),
      },
    );
    const who = holder("PRO", "10.0.5.1");
    const release = slots.remuxes.acquire(who);
    expect(tryTake(slots.encodes, who)).toBe("taken");
    release();
    release();
    expect(held.filter(([kind]) => kind === "remuxes")).toEqual([["remuxes", 0, 2], ["remuxes", 1, 2], [
      "remuxes",
      0,
      2,
    ]]);
    expect(tryTake(slots.encodes, holder("GOLD", "10.0.5.2"))).toMatch(/this server's limit/);
    // A refused slot was never taken.
    expect(taken).toEqual(["remuxes", "encodes"]);
  });
});

describe("the caps' defaults", () => {
  it("size extractions by memory, copies by CPUs and memory, encodes and jobs' extractions by CPUs", () => {
    expect(slotCaps({ MEMORY_BUDGET_MB: 1024 }, 2)).toEqual({
      MAX_EXTRACTIONS: 25,
      MAX_REMUXES: 16,
      MAX_ENCODES: 2,
      JOB_EXTRACTIONS: 8,
    });
    expect(slotCaps({ MEMORY_BUDGET_MB: 12_000 }, 2)).toEqual({
      MAX_EXTRACTIONS: 300,
      MAX_REMUXES: 32,
      MAX_ENCODES: 2,
      JOB_EXTRACTIONS: 8,
    });
    // Never more than half the extractions: interactive calls keep the rest.
    expect(slotCaps({ MEMORY_BUDGET_MB: 1024, MAX_EXTRACTIONS: 6 }, 8).JOB_EXTRACTIONS).toBe(3);
  });

  it("keep an install's MAX_PAGE_DOWNLOADS as the download caps, and let each be set", () => {
    expect(slotCaps({ MEMORY_BUDGET_MB: 1024, MAX_PAGE_DOWNLOADS: 6 }, 2)).toEqual({
      MAX_EXTRACTIONS: 25,
      MAX_REMUXES: 6,
      MAX_ENCODES: 6,
      JOB_EXTRACTIONS: 8,
    });
    expect(slotCaps({ MEMORY_BUDGET_MB: 1024, MAX_PAGE_DOWNLOADS: 6, MAX_REMUXES: 9, MAX_EXTRACTIONS: 3 }, 2)).toEqual({
      MAX_EXTRACTIONS: 3,
      MAX_REMUXES: 9,
      MAX_ENCODES: 6,
      JOB_EXTRACTIONS: 1,
    });
  });
});
