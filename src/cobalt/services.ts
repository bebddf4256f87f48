// Our platforms in cobalt's words: the name cobalt's `GET /` lists and its texts say
// (`context.service`): a platform module's `cobaltName` where cobalt names it otherwise than our id
// in lower case, which is cobalt's own name for the others it has and ours for those it has not.
import { platformList } from "../platforms/list.ts";

/** cobalt's name of a platform of ours; a platform it has no name for (an extractor's, `OTHER`) in lower case. */
export function serviceName(platform: string): string {
  return platformList.find(({ id }) => id === platform)?.cobaltName ?? platform.toLowerCase();
}

/** What `GET /` lists as `services`: every platform of ours, in the list's order. */
export function serviceNames(): string[] {
  return platformList.map(({ id }) => serviceName(id));
}
