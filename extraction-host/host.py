"""The extraction host: imports yt-dlp (and gallery-dl), warms them once, then runs every
extraction in a process forked from the warm process, as the tool's own program would run it: the
service's own yt-dlp jobs as threads of a few workers (workers.py), any other job in a child of its
own (child.py says what both do).

    python3 host.py [--program PATH] [--max-stdout BYTES] [--max-memory BYTES] [--without-gallery-dl]
                    [--workers N] [--worker-threads N] [--worker-stall-s S]

Messages are JSON, one per line (json.dumps escapes every newline inside strings), on stdin and
stdout; nothing else is written to stdout.

    in:  {"id": 7, "tool": "yt-dlp", "args": ["-J", "--", "https://..."], "stdin": "..."}
         {"cancel": 7}                         the job's child and its whole group are killed (a
                                               job in a worker: answered at once, the worker retires)
    out: {"ready": {"pid", "versions": {"yt-dlp": "2026.10.26", "gallery-dl": null}, "warmMs", "rssBytes"}}
         {"id": 7, "stderr": "..."}            the job's log as it comes, in as many messages (from
                                               a worker: whole, just before the job's end)
         {"id": 7, "exitCode": 0, "stdout": "...", "rssBytes": n}
                                               the job's end; exitCode null: ended by a signal
         {"id": 7, "oversized": true}          stdout passed --max-stdout; the child was killed (in
                                               a worker: what it printed past that is dropped)
         {"id": 7, "error": "..."}             the job's process could not be started (fork, pipes)
         {"id": 7, "stale": true}              a tool changed on disk: this host runs nothing more
         {"stale": true}                       the same, noticed while idle
         {"rssBytes": n}                       after a minute without messages

The host is single-threaded (one selector loop), so forking it is safe. It exits when its stdin
closes, killing its children and workers first; they die with the host even when the host is
killed with SIGKILL (child.enter). A child's stdout and stderr are pipes the host reads, so it
prints exactly what the program would; its stdin holds the job's text (yt-dlp's
`--load-info-json -`). Its log is passed on as it comes, so the service keeps the same excerpt of
it as of a program's log.
"""
import argparse
import codecs
import gc
import io
import json
import os
import selectors
import signal
import ssl
import sys
import time
import zipfile

import workers
from child import HOST_LIFE, enter, once, rss_bytes, run_tool, use_choice

IDLE_CHECK_S = 60
RETIRE_AFTER = 256  # jobs a worker runs before it is replaced: what its jobs leave behind stays bounded
TOOLS = ("yt-dlp", "gallery-dl")


def load_tools(program, gallery_dl):
    """The tools' modules (gallery-dl's when wanted and importable); yt-dlp's program may be a zip of it."""
    if program and os.path.isfile(program) and zipfile.is_zipfile(program):
        sys.path.insert(0, program)
    loaded = {"yt-dlp": __import__("yt_dlp")}
    if gallery_dl:
        try:
            loaded["gallery-dl"] = __import__("gallery_dl")
        except ImportError:
            pass
    return loaded


def warm(modules):
    """Pays now what every first extraction would: every extractor loaded, its patterns compiled."""
    # One real extraction of a page runs the whole path of a page's extraction: each extractor's
    # URL pattern tried and its module imported, the generic extractor's scan for embeds (every
    # extractor's embed patterns), format sorting. The page is read from a pipe (nothing on disk,
    # no network); its video is never fetched.
    page, writer = os.pipe()
    os.write(writer, b'<html><head><title>warm</title></head><body><video src="https://warm.invalid/warm.mp4"></video></body></html>')
    os.close(writer)
    remember_extractor_choice()
    options = {"quiet": True, "no_warnings": True, "enable_file_urls": True, "simulate": True}
    with modules["yt-dlp"].YoutubeDL(options) as ydl:
        # The extractors a job's YoutubeDL() asks in turn, for the chooser: built once, here.
        EXTRACTORS[:] = list(getattr(ydl, "_ies", {}).items())
        ydl.extract_info(f"file:///proc/self/fd/{page}", download=False)
    os.close(page)
    modules["yt-dlp"].parse_options(["-J", "--", "https://example.com/"])
    prebuild_tls_context()
    skip_barren_embed_scans()
    try:  # what yt-dlp's updater reads on every run (it runs `file` on the interpreter); cached per process
        modules["yt-dlp"].utils.system_identifier()
    except AttributeError:
        pass
    if "gallery-dl" in modules:
        import gallery_dl.extractor
        import gallery_dl.job
        import gallery_dl.option

        for _ in gallery_dl.extractor.extractors():
            pass
        gallery_dl.option.build_parser()
    # Objects from here on are never collected again: the children's collector then leaves the
    # warm pages alone, and they stay shared with the host.
    gc.freeze()


TLS = {"shared": False}


def prebuild_tls_context():
    """Builds now the TLS context yt-dlp's first connection in a child would build.

    yt-dlp makes a fresh verifying context for each request handler, and loading the CA bundle
    into it costs ~20 ms of CPU per job, on a plain-HTTP page too. The context built here is handed,
    once, to the first call in a child with yt-dlp's default arguments: each child gets its own copy
    by the fork, never used before, so no job sees another's. In a worker (TLS["shared"]) every such
    call gets the worker's one copy: a context holds settings and trusted roots, no session (Python
    keeps none in a client context), and jobs with cookies never run in a worker. Any other call,
    or a yt-dlp whose internals differ, runs yt-dlp's own code. The CA bundle is in stamp(): when it
    changes on disk, the host is stale and started again, so trust stays what yt-dlp would load.
    """
    try:
        from yt_dlp.networking import common
        build = common.make_ssl_context
    except (ImportError, AttributeError):
        return
    default = {"verify": True, "legacy_support": False, "use_certifi": True}
    spare = [build(**default)]

    def make_ssl_context(*args, **kwargs):
        if spare and not args and kwargs == default:
            return spare[0] if TLS["shared"] else spare.pop()
        return build(*args, **kwargs)

    common.make_ssl_context = make_ssl_context


def skip_barren_embed_scans():
    """Answers "no embeds" for the extractors that can find none, without loading their classes.

    On a page no extractor claims, the generic extractor asks every one of the ~1 750 for the
    embeds it finds there; with lazy extractors each asks its real class, so a child wrote to ~1 750
    class objects spread over the host's heap (~2 700 copied pages, ~10 MB per job). ~1 550 of them
    keep InfoExtractor's own embed methods and an empty _EMBED_REGEX: yt-dlp's answer is then an
    empty generator with no side effect, whatever the page. The host learns which once, from the
    classes it loaded, and answers those alone itself; not once a job has loaded a plugin, which
    may change any class.
    """
    try:
        from yt_dlp.extractor import gen_extractor_classes
        from yt_dlp.extractor.common import InfoExtractor
        from yt_dlp.extractor.lazy_extractors import LazyLoadMetaClass
        from yt_dlp.globals import plugin_ies, plugin_ies_overrides, plugin_pps
    except ImportError:  # no lazy extractors (each call reads its class anyway), or other internals
        return
    names = ("extract_from_webpage", "_extract_from_webpage", "_extract_embed_urls")
    own = [getattr(InfoExtractor.__dict__.get(name), "__func__", None) for name in names]

    def barren(lazy):
        try:
            real = lazy.real_class
        except Exception:  # its module does not load: yt-dlp's own code says so in the job
            return False
        found = [getattr(getattr(real, name, None), "__func__", None) for name in names]
        embeds = getattr(real, "_EMBED_REGEX", None)
        return None not in own and found == own and isinstance(embeds, (list, tuple)) and not embeds

    skipped = frozenset(lazy for lazy in gen_extractor_classes() if isinstance(lazy, LazyLoadMetaClass) and barren(lazy))
    lookup = LazyLoadMetaClass.__getattr__

    def no_embeds(ydl, url, webpage):
        yield from ()

    def __getattr__(cls, name):
        if name == "extract_from_webpage" and cls in skipped and not (plugin_ies.value or plugin_pps.value or any(plugin_ies_overrides.value.values())):
            return no_embeds
        return lookup(cls, name)

    LazyLoadMetaClass.__getattr__ = __getattr__


def remember_extractor_choice():
    """Keeps the extractors YoutubeDL() picks by name, a pure function of its arguments.

    Every YoutubeDL() picks its ~1 800 extractors by name through orderedSet_from_options, whose
    de-duplication is quadratic: ~12 ms of CPU per job for the same answer every time. Answers
    computed in the host (the warm-up's YoutubeDL() asks what every job asks) are kept, and each
    caller gets its own copy of the list.
    """
    module = sys.modules.get("yt_dlp.YoutubeDL")
    compute = getattr(module, "orderedSet_from_options", None)
    if compute is None:
        return
    memo = {}

    def ordered_set_from_options(options, alias_dict, **kwargs):
        try:
            key = (tuple(options), tuple((name, tuple(values)) for name, values in alias_dict.items()), tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:  # an argument that is not plain strings: not kept
            return compute(options, alias_dict, **kwargs)
        if key not in memo:
            memo[key] = compute(options, alias_dict, **kwargs)
        return list(memo[key])

    module.orderedSet_from_options = ordered_set_from_options


CHOOSE_S = 1.0
EXTRACTORS = []  # (key, class) in the order yt-dlp's default YoutubeDL() asks them, from the warm-up


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
        enter(host_pid, 0, [ask, answer, 2], "host-chooser")
        pending = b""
        while True:
            chunk = os.read(0, 65536)
            if not chunk:
                break
            *links, pending = (pending + chunk).split(b"\n")
            for link in links:
                os.write(1, (first_suitable(EXTRACTORS, link.decode()) + "\n").encode())
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
    return Chooser(host_pid) if EXTRACTORS and hasattr(modules["yt-dlp"].YoutubeDL, "extract_info") else None


def ca_bundle():
    """The CA file yt-dlp loads into its TLS contexts: certifi's, else OpenSSL's default (None if none)."""
    try:
        from yt_dlp.dependencies import certifi
    except ImportError:
        certifi = None
    return certifi.where() if certifi else ssl.get_default_verify_paths().cafile


def stamp(modules):
    """What changes when a tool is updated on disk (its version file, or the zip it is read from),
    or the CA bundle the prebuilt TLS context holds."""
    def version_file(module):
        path = os.path.join(os.path.dirname(module.__file__), "version.py")
        while not os.path.exists(path):  # inside a zip: the zip file itself
            path = os.path.dirname(path)
        return path

    def signature(path):
        info = os.stat(path)
        return (path, info.st_mtime_ns, info.st_size)

    paths = [version_file(module) for module in modules.values()] + [path for path in [ca_bundle()] if path]
    try:
        return [signature(path) for path in paths]
    except OSError:
        return None


def versions(modules):
    found = dict.fromkeys(TOOLS)
    for tool, module in modules.items():
        found[tool] = module.version.__version__
    return found


def child(modules, job, host_pid, out, err, max_memory, choice=None):
    """In the forked child: never returns."""
    code = 1
    try:
        enter(host_pid, max_memory, [os.open(os.devnull, os.O_RDONLY), out, err])
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


def worker(modules, host_pid, fds, max_memory, max_stdout, threads):
    """In a worker, forked from the host: never returns."""
    try:
        enter(host_pid, max_memory and max_memory + threads * workers.STACK_BYTES, fds, "host-worker")
        TLS["shared"] = True
        workers.serve(modules, max_stdout)
    finally:
        os._exit(1)


class Job:
    def __init__(self, id, pid, out, err):
        self.id, self.pid, self.pipes = id, pid, {out: bytearray(), err: bytearray()}
        self.out, self.err = out, err
        self.oversized = False
        self.log = codecs.getincrementaldecoder("utf-8")("replace")


class Host:
    def __init__(self, modules, channel_in, channel_out, max_stdout, max_memory=0, chooser=None, pool=None):
        self.modules, self.max_stdout, self.max_memory, self.chooser = modules, max_stdout, max_memory, chooser
        self.pool = pool and workers.Pool(self.fork_worker, **pool)
        self.channel_in, self.channel_out = channel_in, channel_out
        self.pid = os.getpid()
        self.jobs = {}  # pid -> Job
        self.stamp = stamp(modules)
        self.stale = False
        self.selector = selectors.DefaultSelector()
        self.pending = b""

    def send(self, message):
        self.send_lines([json.dumps(message).encode()])

    def send_lines(self, lines):
        data = memoryview(b"".join(line + b"\n" for line in lines))
        while data:
            data = data[os.write(self.channel_out, data):]

    def check_stale(self):
        if not self.stale and stamp(self.modules) != self.stamp:
            self.stale = True
            self.send({"stale": True})
        return self.stale

    def start(self, job):
        if job["tool"] not in self.modules:
            self.send({"id": job["id"], "exitCode": 127, "stdout": "", "stderr": f"{job['tool']} cannot be imported by {sys.executable}\n"})
            return
        if self.check_stale():
            self.send({"id": job["id"], "stale": True})
            return
        link = link_of(job) if self.chooser else None
        if link:
            try:
                return self.chooser.ask(job, link)
            except OSError:  # the chooser has gone: its end is read from its pipe
                pass
        self.launch(job)

    def launch(self, job, choice=None, alone=False):
        """Runs the job in a worker when it may share one and one has room, else in a child of its own."""
        worker = self.pool.worker() if self.pool and not alone and workers.admitted(job, link_of(job)) else None
        if worker:
            try:
                return worker.submit(job, choice)
            except OSError:  # the worker has ended, or reads no more: the job runs alone
                pass
        try:
            pid, out_r, err_r = self.fork(job, choice)
        except OSError as error:  # no process or pipe to be had now: this job fails, the host lives on
            self.send({"id": job["id"], "error": f"the job's process could not be started: {error}"})
            return
        try:
            os.setpgid(pid, pid)  # also here, so that a cancel right away reaches the group
        except OSError:
            pass  # the child did it first, or already exited
        entry = Job(job["id"], pid, out_r, err_r)
        self.jobs[pid] = entry
        for fd in (out_r, err_r):
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ, entry)

    def fork(self, job, choice=None):
        """The job's child, and the read ends of its stdout and stderr."""
        pid, (out_r, out_w, err_r, err_w) = self.fork_process(lambda out_r, out_w, err_r, err_w: child(self.modules, job, self.pid, out_w, err_w, self.max_memory, choice))
        os.close(out_w)
        os.close(err_w)
        return pid, out_r, err_r

    def fork_worker(self):
        """A new worker, its jobs' pipe and its answers' pipe open (see workers.py)."""
        threads = self.pool.threads

        def run(jobs_r, jobs_w, answers_r, answers_w):
            devnull = os.open(os.devnull, os.O_RDWR)
            worker(self.modules, self.pid, [devnull, devnull, 2, jobs_r, answers_w], self.max_memory, self.max_stdout, threads)

        pid, (jobs_r, jobs_w, answers_r, answers_w) = self.fork_process(run)
        os.close(jobs_r)
        os.close(answers_w)
        for fd in (jobs_w, answers_r):
            os.set_blocking(fd, False)  # a worker that reads nothing fails a submit, never blocks the host
        entry = workers.Worker(pid, jobs_w, answers_r)
        self.selector.register(answers_r, selectors.EVENT_READ, entry)
        return entry

    def fork_process(self, run):
        """A process forked to run(*fds) (which never returns), with two new pipes; its pid and the pipes' ends."""
        fds = []
        try:
            fds += os.pipe()
            fds += os.pipe()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
        except OSError:
            for fd in fds:
                os.close(fd)
            raise
        if pid == 0:
            run(*fds)
        return pid, fds

    def read(self, job, fd):
        """Reads what the pipe holds; False at its end."""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return True
            if not chunk:
                self.selector.unregister(fd)
                return False
            if fd == job.err:
                self.send_log(job, job.log.decode(chunk))
                continue
            buffer = job.pipes[fd]
            buffer += chunk
            if len(buffer) > self.max_stdout and not job.oversized:
                job.oversized = True
                self.kill(job)

    def send_log(self, job, text):
        if text and not job.oversized:
            self.send({"id": job.id, "stderr": text})

    def kill(self, job):
        try:
            os.killpg(job.pid, signal.SIGKILL)
        except OSError:
            pass  # the group has gone

    def finish(self, job, status):
        """The child has exited: what it wrote is in its pipes (or read), so drain them and answer."""
        for fd in job.pipes:
            if fd in self.selector.get_map():
                self.read(job, fd)
                if fd in self.selector.get_map():  # a grandchild still holds it open
                    self.selector.unregister(fd)
            os.close(fd)
        self.send_log(job, job.log.decode(b"", final=True))
        self.kill(job)  # what the child started and left behind
        del self.jobs[job.pid]
        if job.oversized:
            self.send({"id": job.id, "oversized": True})
            return
        code = os.waitstatus_to_exitcode(status)
        self.send({
            "id": job.id,
            "exitCode": code if code >= 0 else None,
            "stdout": job.pipes[job.out].decode("utf-8", "replace"),
            "rssBytes": rss_bytes(),
        })

    def reap(self):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid in self.jobs:
                self.finish(self.jobs[pid], status)
            elif self.pool and pid in self.pool.workers:
                self.worker_ended(pid)

    def on_answers(self, worker):
        """Passes on what a worker answered, and runs alone the jobs it gave back; False once there
        is nothing more to read for now (nothing yet, or its end)."""
        try:
            answered = self.pool.on_answers(worker)
        except BlockingIOError:
            return False
        if answered is None:
            self.selector.unregister(worker.answers)
            return False
        forward, again = answered
        self.send_lines(forward)
        for job, choice in again:
            self.launch(job, choice, alone=True)
        return True

    def worker_ended(self, pid):
        """A worker's process has ended: its last answers are passed on, the jobs it owed run alone."""
        worker = self.pool.workers[pid]
        while worker.answers in self.selector.get_map() and self.on_answers(worker):
            pass
        if worker.answers in self.selector.get_map():  # a process it started still holds the pipe
            self.selector.unregister(worker.answers)
        os.close(worker.answers)
        for job, choice in self.pool.ended(pid):
            self.launch(job, choice, alone=True)

    def on_message(self, message):
        if "cancel" in message:
            if self.pool and self.pool.cancel(message["cancel"]):  # the worker retires; the job is answered as killed
                self.send({"id": message["cancel"], "exitCode": None, "stdout": "", "rssBytes": rss_bytes()})
            for job in self.jobs.values():
                if job.id == message["cancel"]:
                    self.kill(job)
            for waiting in list(self.chooser.waiting if self.chooser else []):
                if waiting[0]["id"] == message["cancel"]:  # not started: answered as a job killed
                    waiting[0]["cancelled"] = True
                    self.send({"id": message["cancel"], "exitCode": None, "stdout": "", "rssBytes": rss_bytes()})
        else:
            self.start(message)

    def on_input(self):
        """Reads messages from the service; False when it has gone."""
        chunk = os.read(self.channel_in, 65536)
        if not chunk:
            return False
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            if line.strip():
                self.on_line(line)
        return True

    def on_line(self, line):
        """A message that cannot be run fails its job (when it names one), never the host."""
        try:
            message = json.loads(line)
        except ValueError as error:
            return self.refuse(None, line, error)
        try:
            self.on_message(message)
        except (KeyError, TypeError, AttributeError) as error:
            self.refuse(message.get("id") if isinstance(message, dict) else None, line, error)

    def refuse(self, id, line, error):
        print(f"extraction host: a message it cannot run ({error!r}): {line[:200]!r}", file=sys.stderr)
        if isinstance(id, int):
            self.send({"id": id, "error": f"the job's message could not be read ({error!r})"})

    def on_choices(self):
        """Starts the jobs whose extractor the chooser named; all that wait, once it has ended."""
        chosen = self.chooser.read()
        if chosen is None:
            return self.end_chooser()
        for job, choice in chosen:
            if not job.get("cancelled"):
                self.launch(job, choice)

    def end_chooser(self):
        self.selector.unregister(self.chooser.answers)
        chooser, self.chooser = self.chooser, None
        for job in chooser.end():
            if not job.get("cancelled"):
                self.launch(job)

    def serve(self):
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.selector.register(wake_r, selectors.EVENT_READ, "wake")
        self.selector.register(self.channel_in, selectors.EVENT_READ, "input")
        if self.chooser:
            self.selector.register(self.chooser.answers, selectors.EVENT_READ, "choices")
        try:
            while True:
                waits = [wait for wait in (self.chooser and self.chooser.wait_s(), self.pool and self.pool.stalled()) if wait is not None]
                events = self.selector.select(min(waits, default=IDLE_CHECK_S))
                if not events and not waits:  # idle for a while: say how much memory it holds, look for updates
                    self.on_idle()
                for key, _ in events:
                    if self.on_event(key) is False:
                        return
                if self.chooser and self.chooser.late():
                    self.end_chooser()
        finally:
            if self.chooser:
                self.chooser.end()
            for job in list(self.jobs.values()):
                self.kill(job)
            if self.pool:
                self.pool.end()

    def on_event(self, key):
        """Handles what one descriptor has to say; False when the service has gone.

        A pipe's event may come in the same batch as its process's end, once the pipe has been
        closed (and its number perhaps given to a new pipe): only a key still registered is read."""
        if self.selector.get_map().get(key.fd) is not key:
            return None
        if isinstance(key.data, workers.Worker):
            self.on_answers(key.data)
        elif key.data == "choices":
            if self.chooser:
                self.on_choices()
        elif key.data == "input":
            return self.on_input()
        elif key.data == "wake":
            while True:
                try:
                    if not os.read(key.fd, 512):
                        break
                except BlockingIOError:
                    break
            self.reap()
        else:
            self.read(key.data, key.fd)

    def on_idle(self):
        self.send({"rssBytes": rss_bytes()})
        self.check_stale()
        if self.pool:
            self.pool.idle()


def pool_settings(options):
    """The workers' settings; None when every job gets a child: none asked for, a plugin loaded (it
    may keep state from one job to the next), or a yt-dlp without the internals a worker relies on."""
    try:
        from yt_dlp.globals import plugin_ies, plugin_pps
    except ImportError:
        return None
    if options.workers <= 0 or plugin_ies.value or plugin_pps.value:
        return None
    return {"size": options.workers, "threads": options.worker_threads, "stall_s": options.worker_stall_s, "retire_after": RETIRE_AFTER}


def main(argv):
    started = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--program", help="the yt-dlp program; a zip of yt-dlp is imported from")
    parser.add_argument("--max-stdout", type=int, default=32 * 1024 * 1024, help="most bytes a job may print")
    parser.add_argument("--max-memory", type=int, default=0, help="most bytes of heap a job's process may hold (0: no cap)")
    parser.add_argument("--without-gallery-dl", action="store_true", help="gallery-dl's jobs are run elsewhere")
    parser.add_argument("--workers", type=int, default=min(8, max(4, os.cpu_count() or 1)), help="most workers (see workers.py); 0: a child for every job")
    parser.add_argument("--worker-threads", type=int, default=32, help="most jobs a worker runs at once")
    parser.add_argument("--worker-stall-s", type=float, default=5.0, help="a worker with jobs silent this long is killed")
    options = parser.parse_args(argv)
    # The messages keep stdin and stdout to themselves: whatever else prints goes to stderr.
    channel_in, channel_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    HOST_LIFE["fd"], _ = os.pipe()  # the write end stays open in the host alone (see child.watch_host)
    modules = load_tools(options.program, not options.without_gallery_dl)
    warm(modules)
    chooser = start_chooser(modules, os.getpid())
    host = Host(modules, channel_in, channel_out, options.max_stdout, options.max_memory, chooser, pool_settings(options))
    host.send({"ready": {
        "pid": os.getpid(),
        "versions": versions(modules),
        "warmMs": round((time.perf_counter() - started) * 1000),
        "rssBytes": rss_bytes(),
    }})
    host.serve()


if __name__ == "__main__":
    main(sys.argv[1:])
