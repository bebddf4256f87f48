// Host names to addresses through the system's resolver (node:dns, which Bun and Deno implement).
import { lookup } from "node:dns/promises";
import type { ResolveHost } from "../../net/egress.ts";

export const resolveWithDns: ResolveHost = async (host) => (await lookup(host, { all: true })).map((a) => a.address);
