import { describe, expect, it } from "vitest";
import { responseEnd } from "../../src/http/response-done.ts";

describe("responseEnd()", () => {
  it("runs each callback once, when the adapter says the response is done", () => {
    const end = responseEnd(new AbortController().signal);
    let calls = 0;
    end.whenDone(() => (calls += 1));
    expect(calls).toBe(0);
    end.done({ ended: "complete" });
    end.done({ ended: "complete" });
    expect(calls).toBe(1);
  });

  it("runs it when the client goes away, and not again when the adapter reports later", () => {
    const controller = new AbortController();
    const end = responseEnd(controller.signal);
    let calls = 0;
    end.whenDone(() => (calls += 1));
    controller.abort();
    expect(calls).toBe(1);
    end.done({ ended: "complete" });
    expect(calls).toBe(1);
  });

  it("tells how the body ended: as the adapter says, or cut by the client when the signal aborts first", () => {
    const controller = new AbortController();
    const cut = responseEnd(controller.signal);
    const failed = responseEnd(new AbortController().signal);
    const ends: unknown[] = [];
    cut.whenDone((end) => ends.push(end));
    failed.whenDone((end) => ends.push(end));
    controller.abort();
    failed.done({ ended: "cut by error", error: "reset" });
    expect(ends).toEqual([{ ended: "cut by client" }, { ended: "cut by error", error: "reset" }]);
  });

  it("runs it at once for a request already aborted, or a response already over", () => {
    let calls = 0;
    responseEnd(AbortSignal.abort()).whenDone(() => (calls += 1));
    expect(calls).toBe(1);
    const over = responseEnd(new AbortController().signal);
    over.done({ ended: "complete" });
    over.whenDone(() => (calls += 1));
    expect(calls).toBe(2);
  });
});
