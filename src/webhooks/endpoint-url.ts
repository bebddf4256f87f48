// Where a webhook may be delivered: a receiver on the public internet, or one of the endpoints the
// operator named (WEBHOOK_EXTRA_HOSTS, such as a receiver on this machine). The same egress policy
// as every other connection decides, at registration (so the owner hears why at once) and again at
// each delivery, since a name may come to resolve elsewhere.
import { ApiError } from "../http/problem.ts";
import { egressAddress, type EgressPolicy, portOf } from "../net/egress.ts";

const MAX_ENDPOINT_URL_LENGTH = 2_000;

/** The endpoint's URL as given, checked; 400 naming why it cannot be a receiver. */
export async function checkEndpointUrl(text: string, policy: EgressPolicy): Promise<URL> {
  const url = URL.parse(text);
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new ApiError("invalid_parameter", "`url` must be an absolute https:// (or http://) link to your receiver.");
  }
  if (text.length > MAX_ENDPOINT_URL_LENGTH) {
    throw new ApiError("invalid_parameter", `\`url\` is longer than ${MAX_ENDPOINT_URL_LENGTH} characters.`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ApiError(
      "invalid_parameter",
      "`url` may not hold a user name or password: deliveries are signed, so the receiver checks the signature instead.",
    );
  }
  try {
    await egressAddress(url.hostname, portOf(url), policy);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new ApiError(
      "invalid_parameter",
      `${error.message} Webhooks are delivered only to public addresses, or to hosts the operator allows (WEBHOOK_EXTRA_HOSTS).`,
      { cause: error },
    );
  }
  return url;
}
