// The Deno process, as the Deno entry hands it to the service.
import type { EntryProcess } from "./runtime.ts";
import { Deno } from "./deno-api.ts";

export const denoProcess: EntryProcess = {
  env: Deno.env.toObject(),
  onSignal: (signal, stop) => Deno.addSignalListener(signal, stop),
  onUncaught(crashed) {
    // A listener that prevents the default keeps Deno from printing its report and exiting.
    for (const type of ["error", "unhandledrejection"] as const) {
      globalThis.addEventListener(type, (event) => {
        event.preventDefault();
        crashed("reason" in event ? event.reason : event.error);
      });
    }
  },
  exit: (code) => Deno.exit(code),
};
