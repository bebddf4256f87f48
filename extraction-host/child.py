"""What every process the host forks for jobs does: a child that runs one job, or a worker that runs
many (workers.py). Each is tied to the host's life, capped in memory, and runs a tool's main as its
program would."""
import ctypes
import fcntl
import os
import resource
import signal
import sys
import traceback


def enter(host_pid, max_memory, fds, name=None):
    """In a process just forked from the host: its own group, its memory cap, its death with the
    host, and `fds[i]` as its descriptor i, every other one closed."""
    cap_memory(max_memory)
    os.setpgid(0, 0)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    die_with_host(host_pid)
    if name:
        ctypes.CDLL(None).prctl(15, name.encode())  # PR_SET_NAME: its name in /proc/<pid>/comm
    # Moved out of the way first, so that no target overwrites a source still to be moved.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 256) for fd in fds]
    for target, fd in enumerate(high):
        os.dup2(fd, target)
    os.closerange(len(fds), os.sysconf("SC_OPEN_MAX"))


def die_with_host(host_pid):
    """The kernel sends SIGTERM when the host dies; the process then kills its own group."""
    signal.signal(signal.SIGTERM, lambda *_: os.killpg(0, signal.SIGKILL))
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except AttributeError:
        pass  # not Linux: the host's stdin closing still kills its children
    if os.getppid() != host_pid:
        os._exit(1)


def cap_memory(limit):
    """The kernel refuses the process's heap past `limit` bytes (RLIMIT_DATA: its private writable
    memory, the host's pages it shares included): the tool then fails with a MemoryError instead of
    taking the machine. Not RLIMIT_AS: Deno, which yt-dlp runs for YouTube, reserves far more
    address space than it uses."""
    if limit:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def run_tool(modules, tool, args):
    """Runs the tool's main as its program would: the exit code, with SystemExit's message printed."""
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
