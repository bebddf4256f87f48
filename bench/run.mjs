// `npm run bench`: every benchmark section, one after the other, each printing its table.
import { benchAuth } from "./auth.mjs";

const sections = { auth: benchAuth };
const only = process.argv.slice(2);
for (const [name, run] of Object.entries(sections)) {
  if (only.length && !only.includes(name)) continue;
  await run();
}
