// The admin socket: a running service that owns the embedded store runs operator commands for
// the command line, over a Unix socket in the data folder that only the owner can open.
import { z } from "zod";
import type { PlatformChecks } from "../doctor/checker.ts";
import { json } from "../http/json-response.ts";
import type { Queryable } from "../store/db.ts";
import { backupAnswer, restoreRefusal } from "./backup.ts";
import { runAdminCommand } from "./commands.ts";
import { isDoctorCommand, runDoctor } from "./doctor.ts";
import { isJarsCommand, runJars } from "./jars.ts";
import type { JarListing } from "../platforms/cookie-jars.ts";

/** Inside a folder only the service's user may enter, so the socket is never open to others, not even between its creation and a chmod. */
export const ADMIN_FOLDER = "admin";
export const ADMIN_SOCKET = `${ADMIN_FOLDER}/admin.sock`;

/** What the command line sends: its arguments and what came on its standard input. */
const CommandRequest = z.object({ argv: z.array(z.string()), stdin: z.string() });

/** What of the running service the commands ask: its platform check, and its cookie jars as it holds them. */
export interface ServiceParts {
  checks: PlatformChecks;
  jars: { listing(): Promise<JarListing[]> };
}

export function createAdminChannel(db: Queryable, service: ServiceParts, now: () => Date = () => new Date()) {
  return async (request: Request): Promise<Response> => {
    if (request.method !== "POST" || new URL(request.url).pathname !== "/run") {
      return new Response(null, { status: 404 });
    }
    // Anything else on the socket (another program, an older command line) is told so, not answered 500.
    const parsed = CommandRequest.safeParse(await request.json().catch(() => undefined));
    if (!parsed.success) {
      return json({ error: 'the admin socket takes {"argv": [strings], "stdin": string}' }, { status: 400 });
    }
    const { argv, stdin } = parsed.data;
    if (isDoctorCommand(argv)) return json(await runDoctor(service.checks, argv));
    if (isJarsCommand(argv)) return json(await runJars(service.jars));
    if (argv[0] === "backup") return json(await backupAnswer(db, now()));
    if (argv[0] === "restore") return json(restoreRefusal);
    return json(await runAdminCommand(db, argv, stdin, now()));
  };
}
