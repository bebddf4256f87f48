import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { connectFailureOf } from "../../src/util/connect-failure.ts";

/** An Error with the fields Node's and Bun's system errors carry. */
const systemError = (message: string, code: string, cause?: unknown) =>
  Object.assign(new Error(message, { cause }), { code });

describe("connectFailureOf()", () => {
  it("names the failure under fetch's bare message on each runtime, as measured here", () => {
    // Node 20: "fetch failed" with the system error as its cause.
    expect(
      connectFailureOf(
        new TypeError("fetch failed", { cause: systemError("getaddrinfo ENOTFOUND nothing.invalid", "ENOTFOUND") }),
      ),
    ).toBe("host not found");
    expect(
      connectFailureOf(
        new TypeError("fetch failed", { cause: systemError("connect ECONNREFUSED 127.0.0.1:45999", "ECONNREFUSED") }),
      ),
    ).toBe("connection refused");
    // Bun 1.4: the code on the TypeError itself.
    expect(
      connectFailureOf(
        systemError("ECONNREFUSED: Unable to connect. Is the computer able to access the url?", "ECONNREFUSED"),
      ),
    ).toBe("connection refused");
    // Deno 2.9: only the message says it.
    const deno = (detail: string) =>
      new TypeError("fetch failed", {
        cause: new Error(`error sending request for url (http://nothing.invalid/): client error (Connect): ${detail}`),
      });
    expect(connectFailureOf(deno("dns error: failed to lookup address information: Name or service not known"))).toBe(
      "host not found",
    );
    expect(connectFailureOf(deno("tcp connect error: Connection refused (os error 111)"))).toBe("connection refused");
    // fetch's own time limit.
    expect(connectFailureOf(new DOMException("The operation was aborted due to timeout", "TimeoutError"))).toBe(
      "timed out",
    );
  });

  it("names yt-dlp's words, and the egress policy's refusal", () => {
    expect(connectFailureOf(new Error("Unable to download webpage: <urlopen error [Errno 111] Connection refused>")))
      .toBe("connection refused");
    expect(
      connectFailureOf(
        new Error("Unable to download webpage: <urlopen error [Errno -3] Temporary failure in name resolution>"),
      ),
    ).toBe("host not found");
    expect(connectFailureOf(new Error("Unable to download webpage: The read operation timed out"))).toBe("timed out");
    expect(connectFailureOf(systemError("connect EHOSTUNREACH 10.1.2.3:443", "EHOSTUNREACH"))).toBe(
      "network unreachable",
    );
    expect(
      connectFailureOf(new ApiError("host_not_allowed", "The host a.example does not resolve to a public address.")),
    ).toBe("refused by the egress rules");
  });

  it("is null for a failure that is no connection's, and survives a cause that points back", () => {
    expect(connectFailureOf(new Error("Unsupported URL: http://127.0.0.1/a"))).toBeNull();
    expect(connectFailureOf(undefined)).toBeNull();
    const loop = new Error("a");
    (loop as { cause?: unknown }).cause = loop;
    expect(connectFailureOf(loop)).toBeNull();
  });
});
