"""Which extractor of the installed yt-dlp and gallery-dl claims a link (SUPPORTED_SITES=all).

One link a line on stdin, one JSON line back in the same order:
{"ytdlp": "<extractor key>" | null, "gallerydl": "<category>" | null}.
Nothing goes to the network: yt-dlp's extractor classes say by `suitable(url)`, in yt-dlp's own
order, and gallery-dl by `extractor.find(url)`. The catch-all extractors (yt-dlp's generic one,
gallery-dl's direct links and its wrappers) never count: they would claim any web page.
"""
import json
import sys

from yt_dlp.extractor import gen_extractor_classes

try:
    from gallery_dl import extractor as gallery_extractors
except ImportError:  # gallery-dl installed for another Python, or not at all
    gallery_extractors = None

CATCH_ALL_GALLERY = {"directlink", "generic", "ytdl", "recursive", "noop", "oauth", "test"}
ytdlp_classes = [cls for cls in gen_extractor_classes() if cls.ie_key() != "Generic"]


def ytdlp_claim(url):
    return next((cls.ie_key() for cls in ytdlp_classes if cls.suitable(url)), None)


def gallery_claim(url):
    if gallery_extractors is None:
        return None
    try:
        found = gallery_extractors.find(url)
    except Exception:  # an extractor that fails to set itself up claims nothing
        return None
    return None if found is None or found.category in CATCH_ALL_GALLERY else found.category


def claims(url):
    return {"ytdlp": ytdlp_claim(url), "gallerydl": gallery_claim(url)}


def main():
    # The first look-up compiles every pattern (most of a second); done before the first link.
    claims("https://example.org/")
    for line in sys.stdin:
        sys.stdout.write(json.dumps(claims(line.strip())) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
