// The watches' operations in the OpenAPI document (docs/api.md, Watches). Their schemas are the
// ones the handlers parse and answer with (src/jobs/watch-request.ts, src/jobs/watch-view.ts).
import { WatchBody } from "../jobs/watch-request.ts";
import { WatchList, WatchRecord } from "../jobs/watch-view.ts";
import type { ErrorCode } from "../http/errors.ts";
import {
  jsonAnswer,
  problemResponses,
  rateLimitHeadersFor,
  requestBodySchema,
  requestIdHeader,
  withHead,
} from "./openapi-responses.ts";

type Json = Record<string, unknown>;

/** The schemas the operations name, for the document's components. */
export const watchSchemas = { Watch: WatchRecord, WatchList } as const;

const idParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "The watch's id, as POST /api/v1/watches answered it",
  schema: { type: "string" },
};

/** The watches' paths, each operation with its answers and `common` codes besides its own. */
export function watchPaths(common: readonly ErrorCode[]): Record<string, Json> {
  const problems = (own: readonly ErrorCode[]) => problemResponses([...common, ...own]);
  const change = (operationId: string, summary: string, description: string) => ({
    post: {
      operationId,
      summary,
      description,
      parameters: [idParameter],
      responses: { ...jsonAnswer(200, "Watch", "The watch as it is now"), ...problems(["not_found", "busy"]) },
    },
  });
  return {
    "/api/v1/watches": {
      post: {
        operationId: "createWatch",
        summary: "Watch a channel, playlist or profile: each run reports the posts not seen before as watch.found",
        description:
          "The first run, at once, records the posts the link holds and reports none; each later run makes a job of the posts it had not seen (each item one counted call of the key) and, when that job ends, tells `watch.found` with their records to the watch's webhook or the account's endpoints that take the event.",
        requestBody: { required: true, content: { "application/json": { schema: requestBodySchema(WatchBody) } } },
        responses: {
          ...jsonAnswer(201, "Watch", "The watch", {
            Location: { description: "/api/v1/watches/{id}", required: true, schema: { type: "string" } },
          }),
          ...problems(["invalid_request", "unsupported_platform", "watches_full", "busy"]),
        },
      },
      ...withHead("listWatches", {
        summary: "The account's watches, newest first",
        responses: { ...jsonAnswer(200, "WatchList", "The account's watches"), ...problems([]) },
      }),
    },
    "/api/v1/watches/{id}": {
      ...withHead("getWatch", {
        summary: "A watch",
        description: "Another account's watch is 404.",
        parameters: [idParameter],
        responses: { ...jsonAnswer(200, "Watch", "The watch"), ...problems(["not_found"]) },
      }),
      delete: {
        operationId: "deleteWatch",
        summary: "Delete a watch; the jobs its runs made stay",
        parameters: [idParameter],
        responses: {
          204: { description: "Deleted", headers: { ...rateLimitHeadersFor("admitted"), ...requestIdHeader } },
          ...problems(["not_found"]),
        },
      },
    },
    "/api/v1/watches/{id}/pause": change("pauseWatch", "Pause a watch", "No run starts until it is resumed."),
    "/api/v1/watches/{id}/resume": change(
      "resumeWatch",
      "Resume a paused watch",
      "It runs at once when a run fell due while it was paused, else when the next is due. A watch paused for its key pauses again at its next run while the key is passive or expired.",
    ),
  };
}
