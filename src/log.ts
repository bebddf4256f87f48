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
