"""YouTube's proof-of-origin (PO) tokens from the operator's token server, as a provider of yt-dlp's
PO-token interface (yt_dlp/extractor/youtube/pot/provider.py). The host imports it once; it serves a
job only when the job names the server (the service adds `--extractor-args
youtubepot-mediaapi:base_url=<PO_TOKEN_URL>;timeout_ms=<PO_TOKEN_TIMEOUT_MS>` when PO_TOKEN_URL is set),
so without it yt-dlp runs as before.

The server speaks bgutil's protocol: `POST <base_url>/get_pot` with JSON `{"content_binding": ...,
"bypass_cache": ...}`, answered `{"poToken": ..., "contentBinding": ..., "expiresAt": <ISO time>}`. The
binding is what YouTube binds the token to (the video's id for the player and, since 2026, most media
requests; the visitor otherwise); yt-dlp's own cache keeps each token until its `expiresAt`, so a
video's token is asked once. The server is the operator's address, reached straight (not through the
egress gate, whose rules would refuse a server on this machine or a private network).

yt-dlp's director would swallow a provider's error and go on without a token, which YouTube answers
with a bot check or a format list cut to nothing much later; a server that is down or slow instead
ends the job at once with one line naming it, which the service answers 502 (ytdlp/errors.ts).
"""
import datetime
import json

from yt_dlp.extractor.youtube.pot.provider import (
    PoTokenContext,
    PoTokenProvider,
    PoTokenProviderRejectedRequest,
    PoTokenResponse,
    register_provider,
)
from yt_dlp.extractor.youtube.pot.utils import WEBPO_CLIENTS, get_webpo_content_binding
from yt_dlp.networking import Request

# The start of the line the service looks for (src/platforms/tools/ytdlp/errors.ts).
FAILURE = "ERROR: [pot:media-api] the PO token server"


class TokenServerFailure(SystemExit):
    """Ends the job past yt-dlp's handlers (SystemExit is no Exception); its text is the job's last line."""


@register_provider
class MediaApiPTP(PoTokenProvider):
    PROVIDER_NAME = "media-api"
    PROVIDER_VERSION = "1"
    BUG_REPORT_LOCATION = "the operator's token server"
    _SUPPORTED_CONTEXTS = (PoTokenContext.GVS, PoTokenContext.PLAYER, PoTokenContext.SUBS)
    _SUPPORTED_CLIENTS = WEBPO_CLIENTS
    # Its one request goes to the operator's server through yt-dlp's own client.
    _SUPPORTED_EXTERNAL_REQUEST_FEATURES = None

    def is_available(self):
        return bool(self._configuration_arg("base_url", [None])[0])

    def _real_request_pot(self, request):
        binding, _ = get_webpo_content_binding(request)
        if not binding:
            raise PoTokenProviderRejectedRequest("nothing to bind the token to")
        base = self._configuration_arg("base_url")[0].rstrip("/")
        timeout_ms = int(self._configuration_arg("timeout_ms", ["6000"])[0])
        body = json.dumps({"content_binding": binding, "bypass_cache": request.bypass_cache}).encode()
        ask = Request(
            f"{base}/get_pot",
            data=body,
            headers={"Content-Type": "application/json"},
            # Straight to the operator's server: not through the job's proxy (the egress gate).
            proxies={"all": None},
            extensions={"timeout": timeout_ms / 1000},
        )
        try:
            answer = json.loads(self._request_webpage(ask, note=False).read())
            token = answer["poToken"]
        except Exception as error:  # down, slow, refused, or no token in its answer: the job ends here
            raise TokenServerFailure(f"{FAILURE} {base} gave no token within {timeout_ms} ms ({type(error).__name__}: {error})")
        return PoTokenResponse(po_token=token, expires_at=expiry(answer.get("expiresAt")))


def expiry(text):
    """`expiresAt` (ISO 8601) in seconds since the epoch; None (yt-dlp's default lifetime) when absent."""
    if not isinstance(text, str):
        return None
    try:
        return int(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return None
