// The operator's commands, as a function of the store: argv and stdin in, exit code and text
// out. The command line runs them directly, or asks a running service to run them over its
// admin socket when the embedded store is that service's.
import { z } from "zod";
import { checkNewPassword, hashPassword } from "../auth/password.ts";
import { ApiError } from "../http/problem.ts";
import { emailTaken, noSuchKey } from "../http/store-refusals.ts";
import { createAccount, findAccountByEmail, listAccounts, setPasswordHash } from "../store/accounts.ts";
import { createApiKey, deleteApiKey, listApiKeys, tiers, updateApiKey } from "../store/api-keys.ts";
import type { Queryable } from "../store/db.ts";
import { rotateLinkSecret } from "../store/link-secret.ts";
import { endSessions } from "../store/sessions.ts";
import { backupHelp, restoreHelp } from "./backup.ts";
import type { CommandResult } from "./command-result.ts";
import { doctorHelp } from "./doctor.ts";
import { jarsHelp } from "./jars.ts";

/** What one command is given: its words after the command's name, its `--name value` flags and stdin. */
interface CommandInput {
  db: Queryable;
  args: string[];
  flags: Record<string, string | undefined>;
  stdin: string;
  now: Date;
}

interface Command {
  /** The command's words and options, as its usage line shows them. */
  synopsis: string;
  /** What it does, for its own `--help`. */
  summary: string;
  /** Absent for `doctor`, which runs the platform check rather than the store (src/cli/doctor.ts). */
  run?(input: CommandInput): Promise<string>;
}

const tierNames = tiers.join("|");
const tierChoice = `${tiers.slice(0, -1).join(", ")} or ${tiers.at(-1)}`;

/** Every command, by its name: the usage texts and `--help` come from this one table. */
const commands: Record<string, Command> = {
  "users create": {
    synopsis: "--email E",
    summary:
      "Makes an account (an owner, who signs in on /profile/api-keys). Its password, at least 10 characters, is read from stdin: `npm run admin -- users create --email E < password.txt`, or typed after the command and ended with Enter and Ctrl-D.",
    async run({ db, flags, stdin }) {
      const email = parse(Email, flags.email, "--email must be an email address");
      const password = passwordFrom(stdin, "users create");
      const account = await createAccount(db, email, await hashPassword(password));
      if (account === null) throw emailTaken();
      return `${account.id}\t${account.email}\n`;
    },
  },
  "users password": {
    synopsis: "--email E",
    summary:
      "Sets a new password for the account E (an owner who lost theirs: there is no reset by email) and ends its sessions. The password, at least 10 characters, is read from stdin as for `users create`.",
    async run({ db, flags, stdin }) {
      const account = await accountOf(db, parse(Email, flags.email, "--email must be an email address"));
      const password = passwordFrom(stdin, "users password");
      await setPasswordHash(db, account.email, await hashPassword(password));
      await endSessions(db, account.id);
      return `${account.id}\t${account.email}\tpassword set\n`;
    },
  },
  "users list": {
    synopsis: "",
    summary: "Lists the accounts with their number of keys.",
    run: async ({ db }) =>
      table(
        ["id", "email", "created", "keys"],
        (await listAccounts(db)).map((a) => [String(a.id), a.email, a.createdAt.toISOString(), String(a.keyCount)]),
      ),
  },
  "keys create": {
    synopsis: `--email E --tier ${tierNames} [--name N] [--expires-days D] [--shape xva|uuid]`,
    summary:
      `Makes an API key for the account E and prints only the key: it is shown this once (the store keeps its SHA-256). Tiers, in any case: ${
        tiers.join(", ")
      }. \`--shape uuid\` makes a key shaped as cobalt's, for cobalt's web app.`,
    async run({ db, flags, now }) {
      const email = parse(Email, flags.email, "--email must be an email address");
      const tier = parse(TierName, flags.tier, `--tier must be ${tierChoice} (in any case)`);
      const expiresInDays = flags["expires-days"] === undefined
        ? null
        : parse(ExpiresDays, flags["expires-days"], "--expires-days must be a whole number of days");
      const account = await accountOf(db, email);
      const { plain } = await createApiKey(db, {
        accountId: account.id,
        name: flags.name ?? "default",
        tier,
        expiresInDays,
        now,
        shape: parse(KeyShapeFlag, flags.shape ?? "xva", "--shape must be xva or uuid"),
      });
      return `${plain}\n`;
    },
  },
  "keys list": {
    synopsis: "[--email E]",
    summary:
      "Lists the keys, of the account E only when given, with their use over the last 24 hours; never a key itself.",
    async run({ db, flags, now }) {
      const email = flags.email === undefined
        ? undefined
        : (await accountOf(db, parse(Email, flags.email, "--email must be an email address"))).email;
      return table(
        ["id", "prefix", "tier", "condition", "used24h", "email", "name", "expires", "lastUsed"],
        (await listApiKeys(db, { now, email })).map((k) => [
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
    },
  },
  "keys tier": {
    synopsis: `<apiKeyId> ${tierNames}`,
    summary: `Moves a key to another tier (${tiers.join(", ")}, in any case); its use so far counts on.`,
    async run({ db, args }) {
      const id = required(args[0], "keys tier needs <apiKeyId> <TIER>");
      const tier = parse(TierName, args[1], `the tier must be ${tierChoice} (in any case)`);
      if (!(await updateApiKey(db, id, { tier }))) throw noSuchKey(id);
      return `${id}\t${tier}\n`;
    },
  },
  "keys passive": {
    synopsis: "<apiKeyId>",
    summary: "Stops a key from being used (403 key_passive) until `keys usable`.",
    run: ({ db, args }) => setPassive(db, args[0], true),
  },
  "keys usable": {
    synopsis: "<apiKeyId>",
    summary: "Lets a passive key be used again.",
    run: ({ db, args }) => setPassive(db, args[0], false),
  },
  "keys delete": {
    synopsis: "<apiKeyId>",
    summary: "Deletes a key for good: it is refused from then on (401).",
    async run({ db, args, now }) {
      const id = required(args[0], "keys delete needs <apiKeyId>");
      if (!(await deleteApiKey(db, id, now))) throw noSuchKey(id);
      return `${id}\tdeleted\n`;
    },
  },
  "links rotate": {
    synopsis: "",
    summary:
      "Replaces the secret that signs download links (downloadUrl): every link signed before is refused (403 link_invalid) on every instance at once; new records carry new links.",
    async run({ db, now }) {
      await rotateLinkSecret(db, now);
      return "link secret rotated\n";
    },
  },
  doctor: doctorHelp,
  jars: jarsHelp,
  backup: backupHelp,
  restore: restoreHelp,
};

const usageLine = (name: string) => `admin ${name}${commands[name]!.synopsis ? ` ${commands[name]!.synopsis}` : ""}`;

/** The usage of the commands whose name starts with `prefix` ("" for all, "keys" for a group). */
function usageOf(prefix: string): string {
  const names = Object.keys(commands).filter((name) => prefix === "" || name.startsWith(`${prefix} `));
  return [
    "Usage (`npm run admin -- <command>`, or `node dist/admin.mjs <command>` once built):",
    ...names.map((name) => `  ${usageLine(name)}`),
    "`admin <command> --help` says what one command does.",
  ].join("\n");
}

const usage = usageOf("");

class UsageError extends Error {
  /** The usage shown with the message: of the command in question, or of all. */
  constructor(message: string, readonly usageText = usage) {
    super(message);
  }
}

const Email = z.email();
const TierName = z.string().transform((name) => name.toUpperCase()).pipe(z.enum(tiers));
const ExpiresDays = z.coerce.number().int().positive().max(36500);
const KeyShapeFlag = z.enum(["xva", "uuid"]);

/**
 * `help`, `--help` or `-h` anywhere: the usage of the command named before it (`keys create
 * --help`), of a group (`keys --help`), or of all, as the result to print; null when no help was asked.
 */
export function helpFor(argv: readonly string[]): CommandResult | null {
  const flagAt = argv.findIndex((arg) => arg === "--help" || arg === "-h");
  if (argv[0] !== "help" && flagAt < 0) return null;
  const words = (argv[0] === "help" ? argv.slice(1) : argv.slice(0, flagAt)).filter((arg) => !arg.startsWith("-"));
  const name = words.slice(0, 2).join(" ");
  const command = commands[name];
  if (command) return { code: 0, stdout: `Usage: ${usageLine(name)}\n${command.summary}\n`, stderr: "" };
  if (words.length === 0 || (words.length === 1 && isGroup(name))) {
    return { code: 0, stdout: `${usageOf(name)}\n`, stderr: "" };
  }
  return { code: 2, stdout: "", stderr: `Unknown command: ${name}\n${usage}\n` };
}

const isGroup = (word: string) => Object.keys(commands).some((name) => name.startsWith(`${word} `));

export async function runAdminCommand(
  db: Queryable,
  argv: readonly string[],
  stdin: string,
  now: Date,
): Promise<CommandResult> {
  const help = helpFor(argv);
  if (help) return help;
  try {
    return { code: 0, stdout: await dispatch(db, argv, stdin, now), stderr: "" };
  } catch (error) {
    if (error instanceof UsageError) return { code: 2, stdout: "", stderr: `${error.message}\n${error.usageText}\n` };
    if (error instanceof ApiError) return { code: 1, stdout: "", stderr: `${error.message}\n` };
    throw error;
  }
}

async function dispatch(db: Queryable, argv: readonly string[], stdin: string, now: Date): Promise<string> {
  const { positional, flags } = parseArgs(argv);
  const [group, action, ...args] = positional;
  const name = `${group ?? ""} ${action ?? ""}`.trim();
  const command = commands[name];
  if (!command && action === undefined && isGroup(name)) {
    throw new UsageError(`${name} needs one of its commands.`, usageOf(name));
  }
  if (!command?.run) throw new UsageError(name ? `Unknown command: ${name}` : "No command given.");
  try {
    return await command.run({ db, args, flags, stdin, now });
  } catch (error) {
    // A mistake in this command's words shows this command's usage, not the whole list.
    if (error instanceof UsageError) throw new UsageError(error.message, `Usage: ${usageLine(name)}`);
    throw error;
  }
}

/** The new password on stdin, without its line end; refused when absent or too weak. */
function passwordFrom(stdin: string, command: string): string {
  const password = stdin.replace(/\r?\n$/, "");
  if (password === "") {
    throw new UsageError(
      `No password came on stdin: pipe it in (\`npm run admin -- ${command} --email E < password.txt\`), or type it after the command and end it with Enter and Ctrl-D.`,
    );
  }
  checkNewPassword(password);
  return password;
}

/** The account with this email; an error naming it when there is none. */
async function accountOf(db: Queryable, email: string) {
  const account = await findAccountByEmail(db, email);
  if (!account) {
    throw new ApiError("account_not_found", `No account with email ${email}; create it with \`users create\`.`);
  }
  return account;
}

async function setPassive(db: Queryable, id: string | undefined, passive: boolean): Promise<string> {
  const action = passive ? "passive" : "usable";
  const key = required(id, `keys ${action} needs <apiKeyId>`);
  if (!(await updateApiKey(db, key, { passive }))) throw noSuchKey(key);
  return `${key}\t${action}\n`;
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
