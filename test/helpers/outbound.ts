// The outbound client as the app builds it for a reader, over Node's upstream client, for tests
// that build a source alone: the origins a test names (its fakes) are trusted as the configured
// API bases are, and the override origins as ORIGIN_OVERRIDES' are.
import { endpointKey, portOf, trustedEndpoints } from "../../src/net/egress.ts";
import { createOutbound, type Outbound, type OutboundOptions } from "../../src/net/outbound.ts";
import { nodeCapabilities } from "../../src/runtime/node/capabilities.ts";
import { nodeUpstream } from "../../src/runtime/node/relay-upstream.ts";

export function testOutbound(
  options: {
    name?: string;
    timeoutMs?: number;
    trustedOrigins?: readonly string[];
    originOverrides?: ReadonlyMap<string, string>;
    onExchange?: OutboundOptions["onExchange"];
  } = {},
): Outbound {
  const originOverrides = options.originOverrides ?? new Map<string, string>();
  const trusted = trustedEndpoints([], originOverrides);
  for (const origin of options.trustedOrigins ?? []) {
    const url = new URL(origin);
    trusted.add(endpointKey(url.hostname, portOf(url)));
  }
  return createOutbound({
    name: options.name ?? "X",
    timeoutMs: options.timeoutMs ?? 2_000,
    upstream: nodeUpstream,
    policy: { trusted, resolveHost: nodeCapabilities.resolveHost },
    originOverrides,
    onExchange: options.onExchange,
  });
}
