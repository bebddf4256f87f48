// Reads the recorded `yt-dlp -J` outputs of /work/shared/fixtures (see its PROVENANCE.md).
import { readFileSync } from "node:fs";
import path from "node:path";
import { YtdlpInfo } from "../../../src/platforms/ytdlp/info.ts";

export function ytdlpFixture(name: string): YtdlpInfo {
  const file = path.resolve(process.cwd(), "../shared/fixtures/upstream/ytdlp", `${name}.info.json`);
  return YtdlpInfo.parse(JSON.parse(readFileSync(file, "utf8")));
}
