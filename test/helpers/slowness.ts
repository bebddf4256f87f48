// How much slower than a quiet 2-core machine this one runs now: the one factor every wait of the
// suite is scaled by (the test and hook timeouts, `until`'s bounds, a service's start), so that a
// busy machine makes the suite slower, not red. `TEST_SLOWNESS` sets it; unset, it is measured
// once, in the process that reads the Vitest config, and put into the environment, which the
// workers and every process they start inherit. A bound that a test asserts as a speed (an answer
// within so many milliseconds) is never scaled: speed goals are bench/'s.
import { spawnSync } from "node:child_process";

const FLOOR = 1;
const CEILING = 8;
/** `node -e 0` on a quiet 2-core machine: about its CPU time there (user and system, 0.1 s). */
const QUIET_START_MS = 100;

/** Wall time over CPU time of a fixed loop: 1 when this process has a core to itself. */
function loopRatio(): number {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let x = 0;
  for (let i = 0; i < 4_000_000; i++) x = (x * 31 + i) % 1_000_003;
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return x < 0 ? 0 : wall / Math.max(1, (used.user + used.system) / 1000);
}

function startRatio(): number {
  const started = performance.now();
  spawnSync(process.execPath, ["-e", "0"], { stdio: "ignore" });
  return (performance.now() - started) / QUIET_START_MS;
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The machine's slowness now: the larger of the two medians of three, in [1, 8], to a tenth. */
export function measureSlowness(): number {
  const samples = [0, 1, 2];
  const factor = Math.max(median(samples.map(loopRatio)), median(samples.map(startRatio)));
  return Math.round(Math.min(CEILING, Math.max(FLOOR, factor)) * 10) / 10;
}

function slownessOf(value: string | undefined): number {
  if (value === undefined || value === "") return measureSlowness();
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor <= 0) throw new Error(`TEST_SLOWNESS must be a positive number: ${value}`);
  return factor;
}

export const slowness = slownessOf(process.env.TEST_SLOWNESS);
process.env.TEST_SLOWNESS = String(slowness);

/** `ms` as this machine needs it: a wait's bound scaled by the slowness. */
export const scaled = (ms: number) => Math.round(ms * slowness);
