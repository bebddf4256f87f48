// A post's record (the answer of /api/v1/post) as cobalt answers it: one file as a `tunnel` (or, when
// the request forces local processing, `local-processing` with that tunnel), several as a `picker`.
// Each file is a download of our API with the parameters that fetch exactly it, signed as a tunnel
// (tunnel.ts): the record says what there is, the download plans it as every download is planned.
import type { LinkedPostRecord, PostVideoVariant } from "../platforms/records.ts";
import { cobaltFilename, type FilenameStyle, titleOf } from "./filename.ts";
import type { CobaltRequest } from "./request.ts";
import { serviceName } from "./services.ts";

/** A tunnel to /api/v1/download with these parameters (tunnel.ts). */
export type TunnelMaker = (params: Record<string, string>) => Promise<string>;

/** cobalt's success answers, as its clients read them. */
export type CobaltSuccess =
  | { status: "tunnel"; url: string; filename: string }
  | { status: "picker"; picker: { type: "photo" | "video" | "gif"; url: string }[] }
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

const mimeTypes: Record<string, string> = { mp4: "video/mp4", mp3: "audio/mpeg", jpg: "image/jpeg", png: "image/png" };

/**
 * The best variant no taller than `videoQuality` (the best of all for `max`), its label for the file's
 * name, and the `format` that asks for it when it is not the best, which a download takes anyway.
 */
function variantFor(
  variants: PostVideoVariant[],
  quality: CobaltRequest["videoQuality"],
): { label: string | null; format: { format?: string } } {
  const height = (variant: PostVideoVariant) => Number(/^(\d+)p$/.exec(variant.qualityLabel)?.[1] ?? 0);
  const fits = quality === "max" ? variants[0] : variants.find((variant) => height(variant) <= Number(quality));
  if (fits === undefined) return { label: null, format: {} };
  const label = height(fits) > 0 ? fits.qualityLabel : null;
  return { label, format: fits === variants[0] ? {} : { format: fits.formatId } };
}

/** A photo's extension as its file says, JPEG when it does not. */
function photoExtension(url: string | null): string {
  const extension = /\.(jpe?g|png|webp|gif|avif|heic)(?:$|\?)/i.exec(url ?? "")?.[1]?.toLowerCase();
  return extension === undefined || extension === "jpeg" ? "jpg" : extension;
}

export async function cobaltAnswer(
  record: LinkedPostRecord,
  request: CobaltRequest,
  tunnel: TunnelMaker,
): Promise<CobaltSuccess> {
  const service = serviceName(record.platform);
  const name = (extension: string, quality: string | null, audio = false) =>
    cobaltFilename({
      service,
      id: record.id,
      title: titleOf(record.text, record.id),
      author: record.authorName,
      quality,
      extension,
      audio,
    }, request.filenameStyle as FilenameStyle);
  const items: Item[] = record.media;
  // `mute` would need a video without its sound, which no download of ours makes.
  if (request.downloadMode === "mute") throw new NothingToSend("fetch.empty");
  if (request.downloadMode === "audio") {
    // The sound of the post's first video; a post of photos alone has none.
    const first = items.findIndex((item) => item.type !== "photo");
    if (first === -1 && (items.length > 0 || record.videoVariants.length === 0)) throw new NothingToSend("fetch.empty");
    const filename = name("mp3", null, true);
    const params = { url: record.url, audio: "mp3", filename, ...(first >= 0 ? { index: String(first + 1) } : {}) };
    return single(await tunnel(params), filename, service, request);
  }
  if (items.length === 0) {
    if (record.videoVariants.length === 0 && !record.needsServerProcessing) throw new NothingToSend("fetch.empty");
    const variant = variantFor(record.videoVariants, request.videoQuality);
    const filename = name("mp4", variant.label);
    const params = { url: record.url, filename, ...variant.format };
    return single(await tunnel(params), filename, service, request);
  }
  const files = await Promise.all(items.map(async (item, at) => {
    const variant = variantFor(item.videoVariants, request.videoQuality);
    const filename = item.type === "photo" ? name(photoExtension(item.url), null) : name("mp4", variant.label);
    const params = {
      url: record.url,
      index: String(at + 1),
      filename,
      ...variant.format,
    };
    return { type: item.type, url: await tunnel(params), filename };
  }));
  if (files.length === 1) return single(files[0]!.url, files[0]!.filename, service, request);
  return { status: "picker", picker: files.map(({ type, url }) => ({ type, url })) };
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
