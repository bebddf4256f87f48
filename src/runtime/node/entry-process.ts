// The Node process, as the Node and Bun entries hand it to the service.
import type { EntryProcess } from "../runtime.ts";

export const nodeProcess: EntryProcess = {
  env: process.env,
  onSignal: (signal, stop) => process.once(signal, stop),
  onUncaught(crashed) {
    // A listener of either event replaces the runtime's report and exit.
    process.on("uncaughtException", crashed);
    process.on("unhandledRejection", crashed);
  },
  exit: (code) => process.exit(code),
};
