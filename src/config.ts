// All configuration comes from environment variables, parsed once by one schema. A bad value
// stops start-up with a message that names the variable and what it accepts.
import { z } from "zod";

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

export const ConfigSchema = z.object({
  PORT: port.default(8080).describe("TCP port to listen on (0 picks a free one)"),
  HOST: z.string().min(1).default("0.0.0.0").describe("Address to listen on"),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/ })
    .optional()
    .describe("postgres://user@host:port/db of a PostgreSQL server; unset uses the embedded PGlite store"),
  DATA_DIR: z.string().min(1).default("./data").describe("Folder of the embedded store and the admin socket"),
  CORS_ORIGIN: z.string().min(1).default("*").describe("Value of Access-Control-Allow-Origin"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info").describe("Lowest level that is logged"),
  SIGNUP: z.enum(["open", "closed"]).default("open").describe("Whether anyone may create an account on the owner's page (open or closed)"),
  HEALTH_TIMEOUT_MS: positiveInt.default(2000).describe("How long /healthz waits for the store"),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // Empty strings are treated as unset, so `PORT=` in an env file means "the default".
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const result = ConfigSchema.safeParse(present);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? "config");
    const given = present[name];
    return `${name}: ${issue.message}${given === undefined ? "" : ` (got ${JSON.stringify(given)})`}. ${describeVariable(name)}`;
  });
  throw new ConfigError(`Invalid configuration:\n  ${lines.join("\n  ")}`);
}

function describeVariable(name: string): string {
  const shape = ConfigSchema.shape as Record<string, z.ZodType>;
  const description = shape[name]?.description;
  return description ? `${name} is: ${description}.` : "";
}
