// Records each test file's duration from Vitest's JSON report of a whole run
// (`npx vitest run --reporter=json --outputFile=report.json`) into test/durations.json, the order in
// which the suite starts its files (test/helpers/longest-first.ts). Run it after a change that moves
// a file's time by much: `node scripts/test-durations.ts report.json`.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";

interface Report {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const [reportFile] = process.argv.slice(2);
if (reportFile === undefined) throw new Error("usage: node scripts/test-durations.ts <vitest JSON report>");
const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
const seconds = report.testResults
  .map((file) => [relative(process.cwd(), file.name), Math.round((file.endTime - file.startTime) / 100) / 10] as const)
  .toSorted(([a], [b]) => a.localeCompare(b));
writeFileSync("test/durations.json", JSON.stringify(Object.fromEntries(seconds), null, 2) + "\n");
