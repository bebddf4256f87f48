// Reads a posted form, refusing anything but a small urlencoded body: every form of the site is
// a few short fields, so there is no reason to buffer more.
import { ApiError } from "../http/problem.ts";

export const MAX_FORM_BYTES = 16 * 1024;

/** A page that takes a file's text (the cookies page) gives a larger `maxBytes`. */
export async function readForm(request: Request, maxBytes = MAX_FORM_BYTES): Promise<URLSearchParams> {
  if (!(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) {
    throw new ApiError("unsupported_form", "Send the form as application/x-www-form-urlencoded.");
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body?.getReader();
  for (let read = await readFrom(reader); read && !read.done; read = await readFrom(reader)) {
    size += read.value.byteLength;
    if (size > maxBytes) {
      void reader!.cancel();
      throw new ApiError("form_too_large", "This form is larger than any form of this site; send it from the page.");
    }
    chunks.push(read.value);
  }
  return new URLSearchParams(await new Blob(chunks as BlobPart[]).text());
}

/**
 * The next chunk of the body. A request body fails only when the client stopped sending it part-way
 * (it went away or broke its connection): the client's doing, answered 400 and logged at info.
 */
async function readFrom(reader: ReadableStreamDefaultReader<Uint8Array> | undefined) {
  try {
    return await reader?.read();
  } catch (error) {
    throw new ApiError("form_cut_off", "The form arrived cut off; send it again.", { cause: error });
  }
}
