// The operator's commands, as a function of the store: argv and stdin in, exit code and text
// out. The command line runs them directly, or asks a running service to run them over its
// admin socket when the embedded store is that service's.
import { z } from "zod";
import { checkNewPassword, hashPassword } from "../auth/password.ts";
import { ApiError } from "../http/problem.ts";
import { emailTaken, noSuchKey } from "../http/store-refusals.ts";
import { createAccount, findAccountByEmail, listAccounts } from "../store/accounts.ts";
import { createApiKey, deleteApiKey, listApiKeys, tiers, updateApiKey, type Tier } from "../store/api-keys.ts";
import type { Queryable } from "../store/db.ts";
import { doctorUsage } from "./doctor.ts";

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export const usage = `Usage: admin <command>
  users create --email E            (password from stdin)
  users list
  keys create --email E --tier FREE|PRO|GOLD [--name N] [--expires-days D]
                                    (prints only the new key)
  keys list [--email E]
  keys tier <apiKeyId> FREE|PRO|GOLD
  keys passive <apiKeyId>
  keys usable <apiKeyId>
  keys delete <apiKeyId>
${doctorUsage}`;

class UsageError extends Error {}

const Email = z.email();
const TierName = z.enum(tiers);
const ExpiresDays = z.coerce.number().int().positive().max(36500);

export async function runAdminCommand(db: Queryable, argv: readonly string[], stdin: string, now: Date): Promise<CommandResult> {
  try {
    return { code: 0, stdout: await dispatch(db, argv, stdin, now), stderr: "" };
  } catch (error) {
    if (error instanceof UsageError) return { code: 2, stdout: "", stderr: `${error.message}\n${usage}\n` };
    if (error instanceof ApiError) return { code: 1, stdout: "", stderr: `${error.message}\n` };
    throw error;
  }
}

async function dispatch(db: Queryable, argv: readonly string[], stdin: string, now: Date): Promise<string> {
  const { positional, flags } = parseArgs(argv);
  const [group, action, ...rest] = positional;
  const command = `${group ?? ""} ${action ?? ""}`.trim();
  switch (command) {
    case "users create": {
      const email = parse(Email, flags.email, "--email must be an email address");
      const password = stdin.replace(/\r?\n$/, "");
      checkNewPassword(password);
      const account = await createAccount(db, email, await hashPassword(password));
      if (account === null) throw emailTaken();
      return `${account.id}\t${account.email}\n`;
    }
    case "users list":
      return table(
        ["id", "email", "created", "keys"],
        (await listAccounts(db)).map((a) => [String(a.id), a.email, a.createdAt.toISOString(), String(a.keyCount)]),
      );
    case "keys create": {
      const email = parse(Email, flags.email, "--email must be an email address");
      const tier = parse(TierName, flags.tier, "--tier must be FREE, PRO or GOLD");
      const expiresInDays = flags["expires-days"] === undefined ? null : parse(ExpiresDays, flags["expires-days"], "--expires-days must be a whole number of days");
      const account = await findAccountByEmail(db, email);
      if (!account) throw new ApiError(404, "account_not_found", `No account with email ${email}; create it with \`users create\`.`);
      const { plain } = await createApiKey(db, { accountId: account.id, name: flags.name ?? "default", tier, expiresInDays, now });
      return `${plain}\n`;
    }
    case "keys list":
      return table(
        ["id", "prefix", "tier", "condition", "used24h", "email", "name", "expires", "lastUsed"],
        (await listApiKeys(db, { now, email: flags.email })).map((k) => [
          k.id,
          `${k.displayPrefix}...`,
          k.tier,
          k.condition,
          `${k.used24h}/${k.dailyLimit}`,
          k.email,
          k.name,
          k.expiresAt?.toISOString() ?? "never",
          k.lastUsedAt?.toISOString() ?? "never",
        ]),
      );
    case "keys tier": {
      const id = required(rest[0], "keys tier needs <apiKeyId> <TIER>");
      const tier = parse(TierName, rest[1], "the tier must be FREE, PRO or GOLD") as Tier;
      if (!(await updateApiKey(db, id, { tier }))) throw noSuchKey(id);
      return `${id}\t${tier}\n`;
    }
    case "keys passive":
    case "keys usable": {
      const id = required(rest[0], `${command} needs <apiKeyId>`);
      if (!(await updateApiKey(db, id, { passive: action === "passive" }))) throw noSuchKey(id);
      return `${id}\t${action}\n`;
    }
    case "keys delete": {
      const id = required(rest[0], "keys delete needs <apiKeyId>");
      if (!(await deleteApiKey(db, id, now))) throw noSuchKey(id);
      return `${id}\tdeleted\n`;
    }
    default:
      throw new UsageError(command ? `Unknown command: ${command}` : "No command given.");
  }
}

function parseArgs(argv: readonly string[]): { positional: string[]; flags: Record<string, string | undefined> } {
  const positional: string[] = [];
  const flags: Record<string, string | undefined> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    flags[name!] = value;
  }
  return { positional, flags };
}

function parse<T>(schema: z.ZodType<T>, value: string | undefined, message: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(message);
  return result.data;
}

function required(value: string | undefined, message: string): string {
  if (!value) throw new UsageError(message);
  return value;
}

function table(header: string[], rows: string[][]): string {
  return [header, ...rows].map((row) => row.join("\t")).join("\n") + "\n";
}
