// A post's record (the answer of /api/v1/post) as cobalt answers it: one file as a `tunnel` (or, when
// the request forces local processing, `local-processing` with that tunnel), or as a `redirect` to
// the platform's file where cobalt would hand it over too; several as a `picker`. Each tunnel is a
// download of our API with the parameters that fetch exactly that file, signed (tunnel.ts): the
// record says what there is, the download plans it as every download is planned.
import type { LinkedPostRecord, PostVideoVariant } from "../platforms/records.ts";
import { cobaltFilename, type FilenameStyle, titleOf } from "./filename.ts";
import type { CobaltRequest } from "./request.ts";
import { serviceName } from "./services.ts";

/** A tunnel to /api/v1/download with these parameters (tunnel.ts). */
export type TunnelMaker = (params: Record<string, string>) => Promise<string>;

/** One entry of cobalt's picker: the file's tunnel, and a picture to show for it where the record has one. */
export interface PickerEntry {
  type: "photo" | "video" | "gif";
  url: string;
  thumb?: string;
}

/** cobalt's success answers, as its clients read them. */
export type CobaltSuccess =
  | { status: "tunnel" | "redirect"; url: string; filename: string }
  | { status: "picker"; picker: PickerEntry[]; audio?: string; audioFilename?: string }
  | {
    status: "local-processing";
    type: "proxy";
    service: string;
    tunnel: string[];
    output: { type: string; filename: string };
  };

/** Why a record gives nothing to send: cobalt's code for it. */
export class NothingToSend extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

type Item = LinkedPostRecord["media"][number];
type Namer = (extension: string, quality: string | null, audio?: boolean) => string;

const mimeTypes: Record<string, string> = {
  mp4: "video/mp4",
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  jpg: "image/jpeg",
  png: "image/png",
};

/**
 * The best variant no taller than `videoQuality` (the best of all for `max`), its label for the file's
 * name, the `format` that asks for it when it is not the best, which a download takes anyway, and
 * whether it is the best (the file a record's item names).
 */
function variantFor(
  variants: PostVideoVariant[],
  quality: CobaltRequest["videoQuality"],
): { label: string | null; format: { format?: string }; best: boolean } {
  const height = (variant: PostVideoVariant) => Number(/^(\d+)p$/.exec(variant.qualityLabel)?.[1] ?? 0);
  const fits = quality === "max" ? variants[0] : variants.find((variant) => height(variant) <= Number(quality));
  if (fits === undefined) return { label: null, format: {}, best: variants.length === 0 };
  const label = height(fits) > 0 ? fits.qualityLabel : null;
  const best = fits === variants[0];
  return { label, format: best ? {} : { format: fits.formatId }, best };
}

/** A photo's extension as its file says, JPEG when it does not. */
function photoExtension(url: string | null): string {
  const extension = /\.(jpe?g|png|webp|gif|avif|heic)(?:$|\?)/i.exec(url ?? "")?.[1]?.toLowerCase();
  return extension === undefined || extension === "jpeg" ? "jpg" : extension;
}

/**
 * A sound-only item: a video of the record whose variants are all sound (a slideshow's music, as a
 * reader lists it beside the pictures).
 */
function isSound(item: Item): boolean {
  return item.type === "video" && item.videoVariants.length > 0 &&
    item.videoVariants.every((variant) => variant.qualityLabel === "audio");
}

/** cobalt's sound formats that no download of ours makes. */
const unmade = new Set<CobaltRequest["audioFormat"]>(["ogg", "opus", "wav"]);

/**
 * The download's `audio` for cobalt's `audioFormat`: `mp3` is our MP3, `m4a` the source's AAC as
 * it is; `best` that M4A where the file is an MP4 the download relays as it is (its sound AAC, not
 * re-encoded), else our MP3; `ogg`, `opus` and `wav` no download of ours makes.
 */
export function soundFormatOf(asked: CobaltRequest["audioFormat"], item: Item | null): "mp3" | "m4a" {
  if (unmade.has(asked)) throw new NothingToSend("service.audio_not_supported");
  if (asked === "mp3" || asked === "m4a") return asked;
  const relayedMp4 = item !== null && item.url !== null && item.videoVariants[0]?.contentType === "video/mp4";
  return relayedMp4 ? "m4a" : "mp3";
}

export async function cobaltAnswer(
  record: LinkedPostRecord,
  request: CobaltRequest,
  tunnel: TunnelMaker,
): Promise<CobaltSuccess> {
  const service = serviceName(record.platform);
  const name: Namer = (extension, quality, audio = false) =>
    cobaltFilename({
      service,
      id: record.id,
      title: titleOf(record.text, record.id),
      author: record.authorName,
      quality,
      extension,
      audio,
      mute: request.downloadMode === "mute" && extension === "mp4",
    }, request.filenameStyle as FilenameStyle);
  const items: Item[] = record.media;
  if (request.downloadMode === "audio") return audioAnswer(record, request, tunnel, name, service);
  const mute: Record<string, string> = request.downloadMode === "mute" ? { mute: "true" } : {};
  if (items.length === 0) {
    if (record.videoVariants.length === 0 && !record.needsServerProcessing) throw new NothingToSend("fetch.empty");
    const variant = variantFor(record.videoVariants, request.videoQuality);
    const filename = name("mp4", variant.label);
    const params = { url: record.url, filename, ...variant.format, ...mute };
    return single(await tunnel(params), filename, service, request);
  }
  const moving = items.filter((item) => !isSound(item));
  if (request.downloadMode === "mute" && !moving.some((item) => item.type !== "photo")) {
    throw new NothingToSend("fetch.empty");
  }
  const files = await Promise.all(items.map(async (item, at) => {
    if (isSound(item)) return null;
    const variant = variantFor(item.videoVariants, request.videoQuality);
    const photo = item.type === "photo";
    const filename = photo ? name(photoExtension(item.url), null) : name("mp4", variant.label);
    const params = { url: record.url, index: String(at + 1), filename, ...variant.format, ...(photo ? {} : mute) };
    // cobalt hands a video the platform serves as one file to the client itself, unless it must pass through.
    const direct = !photo && variant.best && item.url !== null && !("mute" in mute);
    const thumb = photo ? item.url : item.posterUrl;
    return { type: item.type, url: await tunnel(params), filename, direct: direct ? item.url : null, thumb };
  }));
  const sent = files.filter((file) => file !== null);
  if (sent.length === 1 && moving.length === items.length) {
    const [file] = sent;
    if (file!.direct !== null && redirects(request)) {
      return { status: "redirect", url: file!.direct, filename: file!.filename };
    }
    return single(file!.url, file!.filename, service, request);
  }
  const picker = sent.map(({ type, url, thumb }) => ({ type, url, ...(thumb ? { thumb } : {}) }));
  return { status: "picker", picker, ...(await slideshowSound(record, request, tunnel, name)) };
}

/** Whether a file may be handed over as the platform serves it: never when the client asks that all pass through. */
function redirects(request: CobaltRequest): boolean {
  return !request.alwaysProxy && request.localProcessing !== "forced";
}

/** `downloadMode: audio`: the sound of the post's first video (or its sound item); a post of photos alone has none. */
async function audioAnswer(
  record: LinkedPostRecord,
  request: CobaltRequest,
  tunnel: TunnelMaker,
  name: Namer,
  service: string,
): Promise<CobaltSuccess> {
  const items: Item[] = record.media;
  const first = items.findIndex((item) => item.type !== "photo");
  if (first === -1 && (items.length > 0 || record.videoVariants.length === 0)) throw new NothingToSend("fetch.empty");
  const audio = soundFormatOf(request.audioFormat, first >= 0 ? items[first]! : null);
  const filename = name(audio, null, true);
  const params = { url: record.url, audio, filename, ...(first >= 0 ? { index: String(first + 1) } : {}) };
  return single(await tunnel(params), filename, service, request);
}

/** A slideshow's sound (pictures with a sound item): cobalt's picker `audio` and its `audioFilename`. */
async function slideshowSound(
  record: LinkedPostRecord,
  request: CobaltRequest,
  tunnel: TunnelMaker,
  name: Namer,
): Promise<{ audio?: string; audioFilename?: string }> {
  const at = record.media.findIndex(isSound);
  // The pictures are still sent when the sound cannot be, as asked or at all.
  if (at === -1 || request.downloadMode === "mute" || unmade.has(request.audioFormat)) return {};
  const audio = soundFormatOf(request.audioFormat, record.media[at]!);
  const audioFilename = name(audio, null, true);
  return {
    audio: await tunnel({ url: record.url, index: String(at + 1), audio, filename: audioFilename }),
    audioFilename,
  };
}

/** One file: a tunnel, or the same tunnel for the client to process itself when the request forces that. */
function single(url: string, filename: string, service: string, request: CobaltRequest): CobaltSuccess {
  if (request.localProcessing !== "forced") return { status: "tunnel", url, filename };
  const extension = filename.slice(filename.lastIndexOf(".") + 1);
  return {
    status: "local-processing",
    type: "proxy",
    service,
    tunnel: [url],
    output: { type: mimeTypes[extension] ?? "application/octet-stream", filename },
  };
}
