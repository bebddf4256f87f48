// Entry of the operator command line: `npm run admin -- <command>`. With DATABASE_URL it talks
// to the server directly. With the embedded store it asks the running service over its admin
// socket, or opens the store itself when no service runs.
import "../runtime/node/node-floor.ts";
import { request } from "node:http";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { createAppDeps } from "../app-deps.ts";
import { type Config, parseConfig } from "../config.ts";
import { errorText } from "../log.ts";
import { nodeCapabilities } from "../runtime/node/capabilities.ts";
import { nodeUpstream } from "../runtime/node/relay-upstream.ts";
import { openStore } from "../store/open.ts";
import { refuseEmbeddedBesidePostgres } from "../store/store-mark.ts";
import { backupAnswer, holdsStore, isBackupCommand, refusalOf, restoreFrom, writeBackup } from "./backup.ts";
import { ADMIN_SOCKET } from "./channel.ts";
import type { CommandResult } from "./command-result.ts";
import { helpFor, runAdminCommand } from "./commands.ts";
import { isDoctorCommand, runDoctor } from "./doctor.ts";
import { isJarsCommand, runJars } from "./jars.ts";

async function run(argv: string[]): Promise<CommandResult> {
  // Help needs neither a configuration nor a store.
  const help = helpFor(argv);
  if (help) return help;
  const config = parseConfig(process.env);
  if (isBackupCommand(argv)) return refusalOf(argv, config) ?? backupOrRestore(config, argv);
  const stdin = argv[0] === "users" && (argv[1] === "create" || argv[1] === "password") ? await readStdin() : "";
  if (!config.DATABASE_URL || isDoctorCommand(argv) || isJarsCommand(argv)) {
    const viaService = await callService(join(config.DATA_DIR, ADMIN_SOCKET), argv, stdin);
    if (viaService) return viaService;
  }
  if (isDoctorCommand(argv)) return doctorHere(config, argv);
  if (isJarsCommand(argv)) return jarsHere(config);
  refuseEmbeddedBesidePostgres(config);
  refuseMissingDataDir(config);
  const db = await openStore(config);
  try {
    return await runAdminCommand(db, argv, stdin, new Date());
  } finally {
    await db.close();
  }
}

/**
 * A DATA_DIR that does not exist holds no store: the command was most likely run without the
 * service's environment (DATA_DIR then is ./data), and would make a new store the service never sees.
 */
function refuseMissingDataDir(config: Config): void {
  if (config.DATABASE_URL || existsSync(config.DATA_DIR)) return;
  throw new Error(
    `No store in DATA_DIR (${resolve(config.DATA_DIR)}): the folder does not exist. ` +
      "Run the command with the service's DATA_DIR (for systemd: set -a; . /etc/media-api/media-api.env; set +a), " +
      "or start the service once: it makes the store.",
  );
}

/** `backup FILE` (from the running service when there is one) and `restore FILE` (only with none, into an empty DATA_DIR). */
async function backupOrRestore(config: Config, [command, file]: string[]): Promise<CommandResult> {
  const viaService = await callService(join(config.DATA_DIR, ADMIN_SOCKET), [command!], "");
  if (command === "backup") {
    if (viaService) return writeBackup(viaService, file!);
    refuseMissingDataDir(config);
  } else {
    if (viaService) return viaService;
    if (holdsStore(config.DATA_DIR)) {
      throw new Error(
        `DATA_DIR (${
          resolve(config.DATA_DIR)
        }) holds a store already: a restore goes into an empty DATA_DIR (move the old one aside).`,
      );
    }
  }
  const db = await openStore(config);
  try {
    return command === "backup" ? writeBackup(await backupAnswer(db, new Date()), file!) : await restoreFrom(db, file!);
  } finally {
    await db.close();
  }
}

/** The platform check run by this process (no service to ask): the service's parts, built from the same configuration. */
async function doctorHere(config: Config, argv: string[]): Promise<CommandResult> {
  const deps = createAppDeps({ config, runtime: { upstream: nodeUpstream, ...nodeCapabilities } });
  try {
    return await runDoctor(deps.platformChecks, argv);
  } finally {
    // The extraction host is not started here: each extraction runs the tool's program.
    await Promise.all([deps.gate.close(), deps.extractor.close()]);
  }
}

/** The jars as this process finds them (no service to ask): their files, none set aside. */
async function jarsHere(config: Config): Promise<CommandResult> {
  const deps = createAppDeps({ config, runtime: { upstream: nodeUpstream, ...nodeCapabilities } });
  try {
    return await runJars(deps.jars);
  } finally {
    await Promise.all([deps.gate.close(), deps.extractor.close()]);
  }
}

/** Null when no service listens on the socket. */
function callService(socketPath: string, argv: string[], stdin: string): Promise<CommandResult | null> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path: "/run", method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on(
          "end",
          () => (res.statusCode === 200
            ? resolve(JSON.parse(body) as CommandResult)
            : reject(new Error(`admin socket answered ${res.statusCode}`))),
        );
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(null);
      else reject(error);
    });
    req.end(JSON.stringify({ argv, stdin }));
  });
}

async function readStdin(): Promise<string> {
  // Someone at a terminal would otherwise wait on a command that says nothing.
  if (process.stdin.isTTY) {
    process.stderr.write("Type the password (it is shown as you type), then Enter and Ctrl-D:\n");
  }
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

try {
  const result = await run(process.argv.slice(2));
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.code;
} catch (error) {
  process.stderr.write(`${errorText(error)}\n`);
  process.exitCode = 1;
}
