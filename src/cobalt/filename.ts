// The file name a cobalt client asks for with `filenameStyle` (cobalt's four styles, as
// test/fakes/cobalt-clients/PROVENANCE.md describes them), made from our record. It is handed to
// /api/v1/download as its `filename`, which makes it safe and fixes its extension by what is sent
// (media/filename.ts).

export type FilenameStyle = "classic" | "pretty" | "basic" | "nerdy";

export interface NamedFile {
  /** cobalt's name of the service (services.ts). */
  service: string;
  /** The post's id on its platform. */
  id: string;
  /** The post's title: its text's first line. */
  title: string;
  author: string | null;
  /** `720p` and the like, when a video variant was chosen by height. */
  quality: string | null;
  extension: string;
  /** The sound alone (`downloadMode: audio`). */
  audio: boolean;
  /** The video without its sound (`downloadMode: mute`): tagged `mute`, as cobalt names it. */
  mute?: boolean;
}

/** How long a title may be in a name: a post's text can be a page long. */
const TITLE_LENGTH = 80;

/** The first line of `text`, shortened; the post's id when it has none. */
export function titleOf(text: string | null, id: string): string {
  const line = (text ?? "").split("\n").map((each) => each.trim()).find((each) => each !== "") ?? "";
  if (line === "") return id;
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line;
}

export function cobaltFilename(file: NamedFile, style: FilenameStyle): string {
  const tags = [...(file.quality === null ? [] : [file.quality]), ...(file.mute ? ["mute"] : [])];
  const titled = file.author ? `${file.title} - ${file.author}` : file.title;
  const withTags = (extra: string[]) => {
    const all = [...tags, ...extra];
    return all.length === 0 ? titled : `${titled} (${all.join(", ")})`;
  };
  let stem: string;
  switch (style) {
    case "classic":
      stem = [file.service, file.id, ...(file.audio ? ["audio"] : tags)].join("_");
      break;
    case "pretty":
      stem = file.audio ? `${titled} (${file.service})` : withTags([file.service]);
      break;
    case "nerdy":
      stem = file.audio ? `${titled} (${file.service}, ${file.id})` : withTags([file.service, file.id]);
      break;
    default:
      stem = file.audio ? titled : withTags([]);
  }
  return `${stem}.${file.extension}`;
}
