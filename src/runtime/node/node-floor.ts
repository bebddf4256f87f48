// Imported first by the Node entries (the service and `admin`), so that an older Node stops here
// with one line before any module that needs a newer one is evaluated: pg-boss, the queue, needs
// Node 22.12.
export const NODE_FLOOR = [22, 12] as const;

/** Whether a `process.versions.node` string is at least NODE_FLOOR. */
export function meetsNodeFloor(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > NODE_FLOOR[0] || (major === NODE_FLOOR[0] && minor >= NODE_FLOOR[1]);
}

if (!("Bun" in globalThis) && !("Deno" in globalThis) && !meetsNodeFloor(process.versions.node)) {
  console.error(
    `media-api needs Node ${NODE_FLOOR.join(".")} or newer; this is Node ${process.versions.node}. ` +
      "bash scripts/setup-debian.sh installs a supported Node (docs/operating.md).",
  );
  process.exit(1);
}
