"""What every process the host forks for jobs does: a child that runs one job, or a worker that runs
many (workers.py). Each is tied to the host's life, capped in memory, and runs a tool's main as its
program would."""
import ctypes
import fcntl
import io
import os
import re
import resource
import signal
import sys
import traceback


def enter(host_pid, max_memory, fds, name=None, watched=True):
    """In a process just forked from the host: its own group, its death with the host, its memory
    cap, and `fds[i]` as its descriptor i, every other one closed. `watched`: a shell kills its group
    once the host has died (watch_host), for what a job may start; a process that starts nothing
    dies with the host without it."""
    os.setpgid(0, 0)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: the kernel kills it with the host
        if name:
            ctypes.CDLL(None).prctl(15, name.encode())  # PR_SET_NAME: its name in /proc/<pid>/comm
    except AttributeError:
        pass  # not Linux: the host's stdin closing still kills its children
    if os.getppid() != host_pid:  # the host died before the kernel was asked
        os._exit(1)
    life = [] if HOST_LIFE["fd"] is None or not watched else [HOST_LIFE["fd"]]
    # Moved out of the way first, so that no target overwrites a source still to be moved.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 256) for fd in fds + life]
    for target, fd in enumerate(high):
        os.dup2(fd, target)
    os.closerange(len(high), os.sysconf("SC_OPEN_MAX"))
    if life:
        watch_host(len(fds))
        os.close(len(fds))
    cap_memory(max_memory)


# The read end of a pipe whose write end only the host holds (opened by the host before it forks
# anything): it reads as ended once the host has died, however it died.
HOST_LIFE = {"fd": None}


def watch_host(life):
    """A shell in the process's group (named host-watch) that kills the group once the host has
    died (`life` then ends): what the job started dies too, even while the job holds the
    interpreter, when no Python signal handler could run."""
    watch = 'while read -r _; do :; done; kill -KILL -"$0"'
    actions = [(os.POSIX_SPAWN_DUP2, life, 0), *((os.POSIX_SPAWN_CLOSE, fd) for fd in range(1, life + 1))]
    os.posix_spawn("/bin/sh", ["host-watch", "-c", watch, str(os.getpid())], os.environ, file_actions=actions)


def cap_memory(limit):
    """The kernel refuses the process's heap past `limit` bytes (RLIMIT_DATA: its private writable
    memory, the host's pages it shares included): the tool then fails with a MemoryError instead of
    taking the machine. Not RLIMIT_AS: Deno, which yt-dlp runs for YouTube, reserves far more
    address space than it uses."""
    if limit:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def run_child(modules, job, host_pid, out, err, max_memory, choice=None):
    """In a child forked from the host for one job: never returns."""
    code = 1
    try:
        enter(host_pid, max_memory, [os.open(os.devnull, os.O_RDONLY), out, err])
        if job.get("nice"):
            os.nice(job["nice"])  # a job's run: interactive calls' tools get the CPU first
        if choice:
            use_choice(modules["yt-dlp"], once(choice))
        if "stdin" in job:
            sys.stdin = io.TextIOWrapper(io.BytesIO(job["stdin"].encode()), encoding="utf-8")
        code = run_tool(modules, job["tool"], job["args"])
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def run_tool(modules, tool, args):
    """Runs the tool's main as its program would: the exit code, with SystemExit's message printed."""
    if tool == "yt-dlp":
        bound_media_tags()
    sys.argv = [tool, *args]
    try:
        code = modules[tool].main(args) if tool == "yt-dlp" else modules[tool].main()
    except SystemExit as exit:
        code = exit.code
    except BaseException:
        traceback.print_exc()
        code = 1
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


# A page's media elements as yt-dlp's HTML5 parse finds them, self-closing or with their end tag.
MEDIA_TAG_END = re.compile(r"(?s)<(?:(?:amp|dl8(?:-live)?)-)?(?:video|audio)\b[^>]*/>|</(?:(?:amp|dl8(?:-live)?)-)?(?:video|audio)>")


def bound_media_tags():
    """yt-dlp's HTML5 parse reads a page only through one element past the last item the job asks for
    (`--playlist-items 1:N` or `N`): it makes an entry of every <video> and <audio> before any playlist
    option applies, and a page of 200 000 of them held 449 MB, 160 MB read through its 20th (issue 43).
    The one more keeps a page of several a list, as it was, when one item is asked for. Once a process,
    from the extractors the host loaded when it warmed (a stand-in yt-dlp has none: nothing to bound)."""
    common = sys.modules.get("yt_dlp.extractor.common")
    extractor = getattr(common, "InfoExtractor", None)
    parse = getattr(extractor, "_parse_html5_media_entries", None)
    if parse is None or getattr(parse, "bounded", False):
        return

    def bounded(self, base_url, webpage, *args, **kwargs):
        last = re.fullmatch(r"(?:\d+:)?(\d+)", str(self._downloader.params.get("playlist_items") or ""))
        if last and isinstance(webpage, str):
            for count, end in enumerate(MEDIA_TAG_END.finditer(webpage), start=1):
                if count > int(last.group(1)):
                    webpage = webpage[:end.end()]
                    break
        return parse(self, base_url, webpage, *args, **kwargs)

    bounded.bounded = True
    extractor._parse_html5_media_entries = bounded


def use_choice(yt_dlp, take_choice):
    """yt-dlp's first extraction of a job asks only the extractor the chooser named for the job's
    link, which is the one its own turn would find first, as long as the job's extractors are the
    default ones: no plugin loaded, no --use-extractors, no --force-generic-extractor.

    `take_choice()` gives the job's (link, extractor key) once, then None: in a child, the one job's;
    in a worker, the calling thread's job's."""
    from yt_dlp.globals import plugin_ies, plugin_ies_overrides, plugin_pps
    YoutubeDL = yt_dlp.YoutubeDL
    extract_info = YoutubeDL.extract_info

    def chosen_extract_info(self, url, *args, **kwargs):
        choice = take_choice()
        default = self.params.get("allowed_extractors") in (None, ["default"]) and not (plugin_ies.value or plugin_pps.value or any(plugin_ies_overrides.value.values()))
        if choice and url == choice[0] and default and not args and kwargs.get("ie_key") is None and not kwargs.get("force_generic_extractor"):
            kwargs["ie_key"] = choice[1]
        return extract_info(self, url, *args, **kwargs)

    YoutubeDL.extract_info = chosen_extract_info


def once(value):
    """A function that gives `value` once, then None."""
    values = [value]
    return lambda: values.pop() if values else None


def rss_bytes():
    with open("/proc/self/statm") as file:
        return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
