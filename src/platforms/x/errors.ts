// The errors the X extractor answers with (docs/api.md, Errors).
import { ApiError, upstreamFailed } from "../../http/problem.ts";

export function notFound(id: string): ApiError {
  return new ApiError("not_found", `X has no post with id ${id}; check the link.`);
}

/**
 * The post exists but X will not show it: deleted, from a suspended or protected account, or
 * withheld. X's own wording (minus its "Learn more" link text) goes into the detail.
 */
export function unavailable(id: string, reason: string | null): ApiError {
  const why = reason?.replace(/\s*Learn more\.?$/, "").replace(/\.$/, "").trim();
  return new ApiError(
    "post_unavailable",
    `X does not show post ${id}: ${
      why || "it is deleted, protected or from a suspended account"
    }. Only public posts can be fetched.`,
  );
}

export function unknownAnswerShape(cause: unknown): ApiError {
  return upstreamFailed("X answered in a form this service does not understand; try again later.", { cause });
}

export function isUpstreamFailure(error: unknown): boolean {
  return error instanceof ApiError && error.status === 502;
}
