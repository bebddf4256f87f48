"""The chooser: a process of the host's own that names the extractor each yt-dlp job's link would get.
"""
import os
import signal
import time

import warmup
from child import enter

CHOOSE_S = 1.0


class Chooser:
    """A process of the host's own that names the extractor yt-dlp would choose for a job's link.

    yt-dlp chooses by asking each of its ~1 750 extractors in turn whether the link is theirs; in a
    job's child those reads copy ~650 of the host's pages (~2.5 MB per job, copy-on-write of the
    patterns and names whose reference counts change). Done in the host before each fork, they
    would copy as many pages in the host instead, so a process that never forks does it and
    copies them once. It answers in order, one line per link (~5 ms each, quiet); one that has
    answered nothing for CHOOSE_S while jobs waited (a link whose choice never ends), or has ended,
    is ended for good, and the jobs choose for themselves, as yt-dlp does.
    """

    def __init__(self, host_pid):
        ask_r, self.ask_w = os.pipe()
        self.answers, answer_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            choose_forever(host_pid, ask_r, answer_w)
        os.close(ask_r)
        os.close(answer_w)
        os.set_blocking(self.ask_w, False)  # a chooser that reads nothing fails the ask, not the host
        os.set_blocking(self.answers, False)
        self.waiting = []  # (job, url), in the order asked
        self.pending = b""
        self.progress = 0.0  # when it last answered, or was asked with nothing to answer

    def ask(self, job, url):
        os.write(self.ask_w, (url + "\n").encode())
        if not self.waiting:
            self.progress = time.monotonic()
        self.waiting.append((job, url))

    def late(self):
        return bool(self.waiting) and time.monotonic() - self.progress > CHOOSE_S

    def wait_s(self):
        return max(0.0, CHOOSE_S - (time.monotonic() - self.progress)) if self.waiting else None

    def read(self):
        """The jobs whose extractor is now named, with their choice; None once the chooser has ended."""
        try:
            chunk = os.read(self.answers, 65536)
        except BlockingIOError:
            return []
        if not chunk:
            return None
        *lines, self.pending = (self.pending + chunk).split(b"\n")
        if lines:
            self.progress = time.monotonic()
        chosen = [self.waiting.pop(0) for _ in lines]
        return [(job, (url, line.decode()) if line else None) for (job, url), line in zip(chosen, lines)]

    def end(self):
        """Ends the process; the jobs still waiting, which then choose for themselves."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        os.close(self.ask_w)
        os.close(self.answers)
        waiting, self.waiting = self.waiting, []
        return [job for job, _ in waiting]


def link_of(job):
    """The job's one link (what follows `--`, as the service writes it), when yt-dlp is to extract it."""
    args = job["args"]
    if job["tool"] != "yt-dlp" or "--" not in args or args.index("--") != len(args) - 2:
        return None
    link = args[-1]
    return link if "\n" not in link and len(link) < 4000 else None  # one write of it is whole


def choose_forever(host_pid, ask, answer):
    """In the chooser: answers each link read from stdin with the key of its first suitable
    extractor, in the order a YoutubeDL() with yt-dlp's default extractors asks them. Never returns."""
    code = 1
    try:
        # It starts nothing, and it ends when the host does: the kernel kills it (PR_SET_PDEATHSIG),
        # and elsewhere its asks end (the host held their pipe), so no shell watches the host for it.
        enter(host_pid, 0, [ask, answer, 2], "host-chooser", watched=False)
        pending = b""
        while True:
            chunk = os.read(0, 65536)
            if not chunk:
                break
            *links, pending = (pending + chunk).split(b"\n")
            for link in links:
                os.write(1, (first_suitable(warmup.EXTRACTORS, link.decode()) + "\n").encode())
        code = 0
    finally:
        os._exit(code)


def first_suitable(extractors, link):
    try:
        return next((key for key, extractor in extractors if extractor.suitable(link)), "")
    except Exception:  # the job's own run meets the same failure
        return ""


def start_chooser(modules, host_pid):
    """The chooser, where yt-dlp has the internals it relies on; None elsewhere."""
    try:
        from yt_dlp.globals import plugin_ies, plugin_ies_overrides, plugin_pps  # noqa: F401
    except ImportError:
        return None
    return Chooser(host_pid) if warmup.EXTRACTORS and hasattr(modules["yt-dlp"].YoutubeDL, "extract_info") else None
