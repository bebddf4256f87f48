// `npm run bench`: every benchmark section, one after the other, each printing its table.
import { benchAuth } from "./auth.mjs";
import { benchCapacity } from "./capacity.mjs";
import { benchExtraction } from "./extraction.mjs";
import { benchFootprint } from "./footprint.mjs";
import { benchHostile } from "./hostile.mjs";
import { benchJobs } from "./jobs.mjs";
import { benchPage } from "./page.mjs";
import { benchRelay } from "./relay.mjs";
import { benchRuntimes } from "./runtimes.mjs";
import { benchSoak } from "./soak.mjs";
import { benchStore } from "./store.mjs";
import { benchTweet } from "./tweet.mjs";

// `npm run bench -- auth tweet` runs only those sections.
const sections = {
  store: benchStore,
  auth: benchAuth,
  tweet: benchTweet,
  relay: benchRelay,
  page: benchPage,
  extraction: benchExtraction,
  runtimes: benchRuntimes,
  capacity: benchCapacity,
  hostile: benchHostile,
  soak: benchSoak,
  jobs: benchJobs,
  footprint: benchFootprint,
};
const only = process.argv.slice(2);
for (const [name, run] of Object.entries(sections)) {
  if (only.length && !only.includes(name)) continue;
  await run();
}
