// `admin jars`: the operator's cookie jars (platforms/cookie-jars.ts) as the running service holds
// them: each platform's accounts by file name, and which are set aside until when and why. Never a
// cookie: the files' content is not read for it beyond their names. Without a running service the
// command line lists the files it finds, none set aside (that is the service's memory).
import type { JarListing } from "../platforms/cookie-jars.ts";
import type { CommandResult } from "./command-result.ts";

/** Its line in the command table of commands.ts, for the usage and `jars --help`. */
export const jarsHelp = {
  synopsis: "",
  summary:
    "Lists the cookie jars of COOKIES_DIR and COOKIES_FILE_<PLATFORM>: each platform's accounts by file name, and the ones its platform refused, set aside until when and why (as the running service holds them). Never shows a cookie.",
};

export const isJarsCommand = (argv: readonly string[]) => argv[0] === "jars";

export async function runJars(jars: { listing(): Promise<JarListing[]> }): Promise<CommandResult> {
  const listed = await jars.listing();
  if (listed.length === 0) {
    return {
      code: 0,
      stdout: "",
      stderr: "No cookie jar: neither COOKIES_DIR nor a COOKIES_FILE_<PLATFORM> is set.\n",
    };
  }
  const rows = listed.flatMap((jar) =>
    jar.accounts.map((each) => [jar.platform, each.account, each.setAsideUntil ?? "-", each.reason ?? ""])
  );
  const table = [["platform", "account", "set aside until", "reason"], ...rows];
  return { code: 0, stdout: table.map((row) => row.join("\t")).join("\n") + "\n", stderr: "" };
}
