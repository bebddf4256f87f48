// A JSON request body read with a bound and checked by a schema, for the operations that take one.
// Every refusal is 400 invalid_request saying what is wrong and where, as a query's is.
import type { z } from "zod";
import { boundedText } from "../util/bounded-text.ts";
import { ApiError } from "./problem.ts";

/** The body as the schema's value; 400 for a body over `maxBytes`, not JSON, or not of the schema. */
export async function readJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  options: { maxBytes: number; example: string },
): Promise<z.output<S>> {
  const text = await boundedText(
    request.body ?? new ReadableStream(),
    options.maxBytes,
    () => new ApiError("invalid_request", `The body is larger than ${options.maxBytes} bytes.`),
  );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", `Send a JSON object, such as ${options.example}.`);
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? ` (at ${issue.path.join(".")})` : "";
  throw new ApiError("invalid_request", `${issue.message}${where}`);
}
