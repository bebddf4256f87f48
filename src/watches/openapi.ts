// The watches' operations in the OpenAPI document (docs/api.md, Watches). Their schemas are the
// ones the handlers parse and answer with (request.ts, view.ts).
import { WatchBody } from "./request.ts";
import { WatchList, WatchRecord } from "./view.ts";
import type { ErrorCode } from "../http/errors.ts";
import { idParameterOf, jsonAnswer, ownedResourcePaths, problemResponses } from "../http/openapi-parts.ts";

type Json = Record<string, unknown>;

/** The schemas the operations name, for the document's components. */
export const watchSchemas = { Watch: WatchRecord, WatchList } as const;

const WATCHES = "/api/v1/watches";
const idParameter = idParameterOf("watch", WATCHES);

/** The watches' paths, each operation with its answers and `common` codes besides its own. */
export function watchPaths(common: readonly ErrorCode[]): Record<string, Json> {
  const change = (operationId: string, summary: string, description: string) => ({
    post: {
      operationId,
      summary,
      description,
      parameters: [idParameter],
      responses: {
        ...jsonAnswer(200, "Watch", "The watch as it is now"),
        ...problemResponses([...common, "not_found", "busy"]),
      },
    },
  });
  return {
    ...ownedResourcePaths({
      collection: WATCHES,
      idParameter,
      notFound: "not_found",
      common,
      create: {
        operationId: "createWatch",
        summary: "Watch a channel, playlist or profile: each run reports the posts not seen before as watch.found",
        description:
          "The first run, at once, records the posts the link holds and reports none; each later run makes a job of the posts it had not seen (each item one counted call of the key) and, when that job ends, tells `watch.found` with their records to the watch's webhook or the account's endpoints that take the event.",
        body: WatchBody,
        component: "Watch",
        answer: "The watch",
        codes: ["invalid_request", "unsupported_platform", "watches_full", "busy"],
      },
      list: {
        operationId: "listWatches",
        summary: "The account's watches, newest first",
        component: "WatchList",
        answer: "The account's watches",
      },
      get: {
        operationId: "getWatch",
        summary: "A watch",
        description: "Another account's watch is 404.",
        component: "Watch",
        answer: "The watch",
      },
      remove: { operationId: "deleteWatch", summary: "Delete a watch; the jobs its runs made stay" },
    }),
    [`${WATCHES}/{id}/pause`]: change("pauseWatch", "Pause a watch", "No run starts until it is resumed."),
    [`${WATCHES}/{id}/resume`]: change(
      "resumeWatch",
      "Resume a paused watch",
      "It runs at once when a run fell due while it was paused, else when the next is due. A watch paused for its key pauses again at its next run while the key is passive or expired.",
    ),
  };
}
