// One JSON object per line on stdout. Callers pass fields; nothing here knows about keys, and
// nothing that calls it passes one (a test checks every line).
export const logLevels = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export type LogFields = Record<string, unknown>;
export type Logger = Record<Exclude<LogLevel, "silent">, (msg: string, fields?: LogFields) => void>;

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => console.log(line)): Logger {
  const threshold = logLevels.indexOf(level);
  const at =
    (name: Exclude<LogLevel, "silent">) =>
    (msg: string, fields: LogFields = {}) => {
      if (logLevels.indexOf(name) < threshold) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: name, msg, ...fields }));
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/**
 * What a thrown value says, for a log line. Not everything thrown is an Error: PGlite throws plain
 * objects, which String() would turn into "[object Object]".
 */
export function errorText(error: unknown, { stack = false } = {}): string {
  if (error instanceof Error) return (stack && error.stack) || error.message || error.name;
  if (typeof error === "object" && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === "string") return message;
    try {
      return JSON.stringify(error).slice(0, 2_000);
    } catch {
      // A cycle: its shape, then.
      return `${error.constructor?.name ?? "Object"} {${Object.keys(error).join(", ")}}`;
    }
  }
  return String(error);
}
