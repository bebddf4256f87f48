// V8's flags for the service on Node, set as the bundle's first modules are evaluated (the entry
// imports this module right after node-floor.ts), so that every allocation of the start meets them.
import { setFlagsFromString } from "node:v8";

// The young generation starts at 1 MB per semi-space and doubles, up to 16 MB each, whenever much
// of it survives a scavenge, as most of what a start allocates does: by the first answer it held
// 33.6 MB, kept until V8's memory reducer found the process idle 20-30 s later, and again after
// any burst of work. V8 reads the growth factor at each resize, so a factor of 1 keeps it at its
// start size (2 MB): the service at rest ~16 MB lower, its start no dearer in CPU
// (docs/benchmarks.md#the-footprint). A relayed body's chunks need more than that: young-gc.ts.
setFlagsFromString("--semi-space-growth-factor=1");

// Every relayed chunk is a new Buffer, and each 64 MB of them makes V8 check whether a full GC
// is due. V8 puts the next full GC at the live heap of the last one times a factor it picks from
// GC and program speed; with the ~17 MB that PGlite keeps live that left less room than the young
// generation, so every check started a full marking: 35-50 mark-compacts per relayed GiB, 1-2 CPU
// seconds on V8's helper threads, and the relay at 0.3-0.8x a bare node:http pipe. A factor of 3
// (read by V8 at every GC, so it can be set here) leaves room: no mark-compact during a relay,
// and the relay at the pipe's speed and CPU (docs/benchmarks.md).
setFlagsFromString("--heap-growing-percent=200");
// PGlite is a large WebAssembly module. V8 compiles it quickly (Liftoff), then again with its
// optimizing compiler on helper threads: ~0.6 CPU s in the first seconds after start and 40-50 MB
// of resident code, for no gain here, since a store call's time goes to the protocol and
// JavaScript around it (measured: the same transactions per second either way, after warm-up).
// Liftoff alone opens the store in 0.4 s instead of 0.7 s and idles 40 MB lower. The only other
// WebAssembly in the process is fetch's HTTP parser, used for X's small API answers.
// `--liftoff-only` only implies the two tiering flags, and V8 works out implications as it starts,
// not when a flag is set later: since Node 24 it keeps tiering up, and the optimizing compiler's
// scratch memory for PGlite's largest functions (up to 290 MB at once) drove every start's high-water
// mark to 770-780 MB RSS, 20-50 s after the start. So the implied flags are set themselves.
setFlagsFromString("--liftoff-only");
setFlagsFromString("--no-wasm-tier-up");
setFlagsFromString("--no-wasm-dynamic-tiering");
