// npm run docs:platforms: writes docs/api.md's table of the platforms from the platform modules (src/platforms/list.ts);
// test/docs.test.ts fails when the table there differs from what the modules make.
import { readFileSync, writeFileSync } from "node:fs";
import { platformList } from "../src/platforms/list.ts";
import { platformsTable } from "../src/platforms/list-text.ts";
import { withPlatformsTable } from "./platforms-section.ts";

const file = new URL("../docs/api.md", import.meta.url);
writeFileSync(file, withPlatformsTable(readFileSync(file, "utf8"), platformsTable(platformList)));
