// One JSON object per line on stdout. Callers pass fields; nothing here knows about keys, and
// nothing that calls it passes one (a test checks every line).
import { causeChain, connectFailureOf } from "./util/connect-failure.ts";

export const logLevels = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export type LogFields = Record<string, unknown>;
export type Logger = Record<Exclude<LogLevel, "silent">, (msg: string, fields?: LogFields) => void>;

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => console.log(line)): Logger {
  const threshold = logLevels.indexOf(level);
  const at = (name: Exclude<LogLevel, "silent">) => (msg: string, fields: LogFields = {}) => {
    if (logLevels.indexOf(name) < threshold) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: name, msg, ...fields }));
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** A logger whose every line also holds `fields`, such as the id of the request it is about. */
export function withFields(log: Logger, fields: LogFields): Logger {
  const at = (name: Exclude<LogLevel, "silent">) => (msg: string, more: LogFields = {}) =>
    log[name](msg, { ...fields, ...more });
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

/** The longest cause a log line holds: a tool's whole log must not become one line. */
const maxCauseChars = 2_000;

/**
 * What caused a failure, for its log line: the messages of its cause chain (fetch's "fetch failed"
 * says nothing without the error under it), led by the kind of connection failure when one is
 * known ("host not found: ..."), and cut, if at all, at the end of a word.
 */
export function causeText(error: unknown): string {
  const messages = [...new Set([error, ...causeChain(error).slice(1)].map((each) => errorText(each)))];
  const named = connectFailureOf(error);
  const chain = messages.join(": ");
  const text = named === null || chain.includes(named) ? chain : `${named}: ${chain}`;
  if (text.length <= maxCauseChars) return text;
  const cut = text.slice(0, maxCauseChars);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), maxCauseChars / 2))} [...]`;
}
