// File names for Content-Disposition: what the caller suggests or the URL implies, made safe for
// every desktop file system and sent both as an ASCII fallback and as RFC 5987 UTF-8 (RFC 6266).

const MAX_NAME_BYTES = 200;
const FALLBACK_STEM = "download";

// Extensions we recognise at the end of a suggested name, so "clip.mov" sent as MP4 becomes
// "clip.mp4" rather than "clip.mov.mp4".
const MEDIA_EXTENSIONS = new Set([
  "mp4",
  "m4v",
  "mov",
  "webm",
  "mkv",
  "ts",
  "m3u8",
  "mp3",
  "m4a",
  "aac",
  "ogg",
  "opus",
  "wav",
  "jpg",
  "jpeg",
  "png",
  "gif",
  "webp",
  "avif",
  "heic",
  "bin",
]);

const EXTENSION_BY_TYPE: Record<string, string> = {
  "video/mp4": "mp4",
  "video/webm": "webm",
  "video/quicktime": "mov",
  "video/mp2t": "ts",
  "application/vnd.apple.mpegurl": "m3u8",
  "application/x-mpegurl": "m3u8",
  "audio/mpeg": "mp3",
  "audio/mp4": "m4a",
  "audio/aac": "aac",
  "audio/ogg": "ogg",
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
};

// Line breaks and tabs: a post's title, which clients pass as the name, often holds them.
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
// Path separators, Windows-reserved punctuation, the other C0/C1 controls and DEL.
const UNSAFE_CHARS = /[\/\\<>:"|?*\u0000-\u001f\u007f-\u009f]/g;
// Format characters (Unicode Cf: zero-width spaces and joiners, bidirectional overrides that let
// "gpj.exe" pose as "exe.jpg", soft hyphens, tags) and noncharacters: invisible in a file manager.
// A joiner between two emoji stays, as it makes one picture of them (a family, a profession).
const INVISIBLE_CHARS =
  /(?!(?<=\p{Extended_Pictographic}\uFE0F?)\u200D(?=\p{Extended_Pictographic}))[\p{Cf}\p{Noncharacter_Code_Point}]/gu;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

const utf8 = new TextEncoder();
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * A file name safe on Windows, macOS and Linux, ending in `.${ext}`, at most 200 bytes of UTF-8,
 * never cut inside a character. An empty result becomes `download.${ext}`.
 */
export function sanitizeFilename(name: string, ext: string): string {
  const extension = normalizeExtension(ext);
  let stem = name
    .normalize("NFC")
    .replace(INVISIBLE_CHARS, "")
    .replace(BREAKS, " ")
    .replace(UNSAFE_CHARS, "_")
    .replace(/\s+/g, " ");
  stem = trimEdges(stripExtension(stem.replace(/[\s.]+$/, ""), extension));
  if (WINDOWS_RESERVED.test((stem.split(".")[0] ?? "").trim())) stem = `_${stem}`;
  stem = trimEdges(truncateUtf8(stem, MAX_NAME_BYTES - utf8.encode(`.${extension}`).length));
  return `${stem || FALLBACK_STEM}.${extension}`;
}

/** `attachment` with an ASCII `filename=` for old clients and the exact name in `filename*=`. */
export function contentDisposition(filename: string): string {
  return `attachment; filename="${asciiFallback(filename)}"; filename*=UTF-8''${encodeRfc5987(filename)}`;
}

/** The exact name a `contentDisposition` header holds (its `filename*=`); null for another header. */
export function filenameOf(disposition: string | null): string | null {
  const encoded = /filename\*=UTF-8''([^;\s]+)/.exec(disposition ?? "")?.[1];
  if (encoded === undefined) return null;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}

/** The extension that matches a Content-Type, or null when the type says nothing useful. */
export function extensionForContentType(contentType: string | null): string | null {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return EXTENSION_BY_TYPE[essence] ?? null;
}

/**
 * The default direct-mode name: the last path segment of the media URL, with the extension the URL
 * implies (`/media/XYZ?format=jpg&name=orig` -> `XYZ.jpg`, `/vid/720x1280/abc.mp4?tag=12` ->
 * `abc.mp4`). The extension is null when the URL implies none.
 */
export function nameFromMediaUrl(url: URL): { stem: string; ext: string | null } {
  const segment = safeDecode(url.pathname.split("/").pop() ?? "");
  const dot = segment.lastIndexOf(".");
  const pathExt = dot > 0 ? segment.slice(dot + 1).toLowerCase() : "";
  const formatExt = url.searchParams.get("format")?.toLowerCase() ?? "";
  if (/^[a-z0-9]{1,5}$/.test(pathExt)) return { stem: segment.slice(0, dot), ext: pathExt };
  return { stem: segment, ext: /^[a-z0-9]{1,5}$/.test(formatExt) ? formatExt : null };
}

function normalizeExtension(ext: string): string {
  const clean = ext.replace(/^\.+/, "").toLowerCase().replace(/[^a-z0-9]/g, "");
  return clean === "jpeg" ? "jpg" : clean || "bin";
}

function stripExtension(stem: string, extension: string): string {
  const dot = stem.lastIndexOf(".");
  if (dot < 0) return stem;
  const current = stem.slice(dot + 1).toLowerCase();
  return current === extension || MEDIA_EXTENSIONS.has(current) ? stem.slice(0, dot) : stem;
}

// No leading dots (hidden files), no trailing dots or spaces (Windows drops them silently).
function trimEdges(stem: string): string {
  return stem.replace(/^[\s.]+/, "").replace(/[\s.]+$/, "");
}

function truncateUtf8(text: string, maxBytes: number): string {
  if (utf8.encode(text).length <= maxBytes) return text;
  let out = "";
  let bytes = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = utf8.encode(segment).length;
    if (bytes + size > maxBytes) break;
    out += segment;
    bytes += size;
  }
  return out;
}

/**
 * The ASCII form of a sanitized name. NFKD comes first and the result is sanitized again: NFKD
 * turns fullwidth `／` and `：` into `/` and `:`, which must not come back after sanitizing.
 */
function asciiFallback(filename: string): string {
  const dot = filename.lastIndexOf(".");
  const ascii = (dot < 0 ? filename : filename.slice(0, dot))
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return sanitizeFilename(ascii, dot < 0 ? "" : filename.slice(dot + 1));
}

// RFC 5987 attr-char: ALPHA / DIGIT / "!#$&+-.^_`|~"; everything else is percent-encoded UTF-8.
function encodeRfc5987(text: string): string {
  let out = "";
  for (const byte of utf8.encode(text)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9!#$&+\-.^_`|~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
