// `admin doctor [platform...]`: runs the platform check (src/doctor/) and prints each site's
// status, time and remedy; exits 1 when a site fails, 2 when asked for a site it does not know.
// The running service answers it over the admin socket, so its metrics and /platformz show the
// same run; without one the command line runs the check itself, with the same configuration.
import type { CheckResult, PlatformChecks } from "../doctor/checker.ts";
import type { CommandResult } from "./command-result.ts";

/** Its line in the command table of commands.ts, for the usage and `doctor --help`. */
export const doctorHelp = {
  synopsis: "[platform...]",
  summary:
    "Fetches one public reference post of each platform (or of those named) from this server, the way a user's post request does, and prints each one's status (ok, blocked, broken, unreachable, cookies_expired), time, detail and remedy; exits 1 when one fails. With the service running on the embedded store it asks the service, whose /metrics and /platformz then show the run. PLATFORM_CHECK_POSTS changes the posts.",
};

export function isDoctorCommand(argv: readonly string[]): boolean {
  return argv[0] === "doctor";
}

export async function runDoctor(checks: PlatformChecks, argv: readonly string[]): Promise<CommandResult> {
  const asked = argv.slice(1).map((name) =>
    checks.sites.find((site) => site.toLowerCase() === name.toLowerCase()) ?? name
  );
  const unknown = asked.filter((name) => !checks.sites.includes(name));
  if (unknown.length > 0) {
    return {
      code: 2,
      stdout: "",
      stderr: `No check for ${unknown.join(", ")}; the checks are: ${checks.sites.join(", ")}.\n`,
    };
  }
  const results = await checks.run(asked);
  const failing = results.filter((result) => result.status !== "ok");
  const summary = failing.length === 0
    ? ""
    : `${failing.length} of ${results.length} failing: ${failing.map((result) => result.site).join(", ")}\n`;
  const note = checks.extractionNote();
  const host = note === null ? "" : `${note}\n`;
  return { code: failing.length === 0 ? 0 : 1, stdout: doctorTable(results), stderr: host + summary };
}

function doctorTable(results: readonly CheckResult[]): string {
  const rows = results.map((
    result,
  ) => [
    result.site,
    result.status,
    result.seconds === null ? "-" : result.seconds.toFixed(2),
    result.detail,
    result.remedy ?? "",
  ]);
  return [["platform", "status", "seconds", "detail", "remedy"], ...rows].map((row) => row.join("\t")).join("\n") +
    "\n";
}
