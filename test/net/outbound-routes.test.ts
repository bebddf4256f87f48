// What the platform check reads of the proxies: each one's last connection, whether it opened, and why one that did
// not failed; OUTBOUND_PROXY listed as the platform "*".
import { expect, test } from "vitest";
import { createOutboundRoutes } from "../../src/net/outbound-routes.ts";
import { parseOutboundProxy } from "../../src/net/outbound-proxy.ts";

test("a proxy's last connection is heard: answered, or failed and why, and a platform's failed one set aside", () => {
  const [first, second, fallback] = ["http://10.0.0.5:3128", "http://10.0.0.6:3128", "http://10.0.0.7:3128"].map(
    (url) => parseOutboundProxy(url)!,
  );
  const now = new Date("2026-11-29T01:00:00.000Z");
  const routes = createOutboundRoutes({
    fallback: fallback!,
    platforms: new Map([["INSTAGRAM", [first!, second!]]]),
    platformOfHost: (host) => (host.endsWith("instagram.com") ? "INSTAGRAM" : null),
    setAsideMs: 60_000,
    now: () => now,
    onSetAside: () => {},
  });
  routes.answered(first!);
  routes.failed(second!, "connection refused");
  expect(routes.listing()).toEqual([
    {
      platform: "INSTAGRAM",
      proxies: [
        {
          proxy: "10.0.0.5:3128",
          setAsideUntil: null,
          reason: null,
          lastHeard: { at: "2026-11-29T01:00:00.000Z", answered: true },
        },
        {
          proxy: "10.0.0.6:3128",
          setAsideUntil: "2026-11-29T01:01:00.000Z",
          reason: "connection refused",
          lastHeard: { at: "2026-11-29T01:00:00.000Z", answered: false },
        },
      ],
    },
    { platform: "*", proxies: [{ proxy: "10.0.0.7:3128", setAsideUntil: null, reason: null, lastHeard: null }] },
  ]);
});
