// V8's flags for the service on Node, set as the bundle's first modules are evaluated (the entry
// imports this module right after node-floor.ts), so that every allocation of the start meets them.
import { setFlagsFromString } from "node:v8";

// The young generation starts at 1 MB per semi-space and doubles, up to 16 MB each, whenever much
// of it survives a scavenge, as most of what a start allocates does: by the first answer it held
// 33.6 MB, kept until V8's memory reducer found the process idle 20-30 s later, and again after
// any burst of work. V8 reads the growth factor at each resize, so a factor of 1 keeps it at its
// start size (2 MB): the service at rest ~16 MB lower, and each relayed chunk's Buffer freed by the
// next scavenge instead of piling up behind a larger young generation (docs/benchmarks.md).
setFlagsFromString("--semi-space-growth-factor=1");
