// Reads the recorded `yt-dlp -J` outputs in test/fixtures/upstream/ytdlp (see PROVENANCE.md there).
import { readFileSync } from "node:fs";
import path from "node:path";
import { YtdlpInfo } from "../../../../src/platforms/tools/ytdlp/info.ts";
import { fixturesDir } from "../../../fakes/x-upstream.ts";

export function ytdlpFixture(name: string): YtdlpInfo {
  const file = path.join(fixturesDir, "ytdlp", `${name}.info.json`);
  return YtdlpInfo.parse(JSON.parse(readFileSync(file, "utf8")));
}
