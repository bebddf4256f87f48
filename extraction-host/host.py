"""The extraction host: imports yt-dlp (and gallery-dl), warms them once, then runs every
extraction in a process forked from the warm process, as the tool's own program would run it: the
service's own yt-dlp jobs as threads of a few workers (pool.py, worker.py), any other job in a child
of its own (child.py says what both do). This module is the host's loop; the warm-up is warmup.py, the
process that names each link's extractor chooser.py.

    python3 host.py [--program PATH] [--max-stdout BYTES] [--max-memory BYTES] [--without-gallery-dl]
                    [--workers N] [--worker-threads N] [--worker-stall-s S]
                    [--worker-options '{"flags": [...], "valued": [...]}']

Messages are JSON, one per line (json.dumps escapes every newline inside strings), on stdin and
stdout; nothing else is written to stdout.

    in:  {"id": 7, "tool": "yt-dlp", "args": ["-J", "--", "https://..."], "stdin": "...", "nice": 10}
                                               "nice": a job's run, in a child of its own that
                                               lowers its priority by that much (optional)
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
import json
import os
import selectors
import signal
import sys
import time

from child import HOST_LIFE, rss_bytes, run_child
from chooser import link_of, start_chooser
from pool import Pool, SharedOptions, Worker
from warmup import load_tools, stamp, versions, warm
from worker import run_worker

IDLE_CHECK_S = 60
RETIRE_AFTER = 256  # jobs a worker runs before it is replaced: what its jobs leave behind stays bounded


class Job:
    def __init__(self, id, pid, out, err):
        self.id, self.pid, self.pipes = id, pid, {out: bytearray(), err: bytearray()}
        self.out, self.err = out, err
        self.oversized = False
        self.log = codecs.getincrementaldecoder("utf-8")("replace")


class Host:
    def __init__(self, modules, channel_in, channel_out, max_stdout, max_memory=0, chooser=None, pool=None):
        self.modules, self.max_stdout, self.max_memory, self.chooser = modules, max_stdout, max_memory, chooser
        self.pool = pool and Pool(self.fork_worker, **pool)
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
        # A niced job runs alone: a worker's threads cannot take their priority back for the next job.
        shared = self.pool and not alone and "nice" not in job and self.pool.shared.admitted(job, link_of(job))
        worker = self.pool.worker() if shared else None
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
        pid, (out_r, out_w, err_r, err_w) = self.fork_process(lambda out_r, out_w, err_r, err_w: run_child(self.modules, job, self.pid, out_w, err_w, self.max_memory, choice))
        os.close(out_w)
        os.close(err_w)
        return pid, out_r, err_r

    def fork_worker(self):
        """A new worker, its jobs' pipe and its answers' pipe open (see worker.py)."""
        threads = self.pool.threads

        def run(jobs_r, jobs_w, answers_r, answers_w):
            devnull = os.open(os.devnull, os.O_RDWR)
            run_worker(self.modules, self.pid, [devnull, devnull, 2, jobs_r, answers_w], self.max_memory, self.max_stdout, threads)

        pid, (jobs_r, jobs_w, answers_r, answers_w) = self.fork_process(run)
        os.close(jobs_r)
        os.close(answers_w)
        for fd in (jobs_w, answers_r):
            os.set_blocking(fd, False)  # a worker that reads nothing fails a submit, never blocks the host
        entry = Worker(pid, jobs_w, answers_r)
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
        if isinstance(key.data, Worker):
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
    shared = SharedOptions(**json.loads(options.worker_options))
    return {"size": options.workers, "threads": options.worker_threads, "stall_s": options.worker_stall_s, "retire_after": RETIRE_AFTER, "shared": shared}


def main(argv):
    started = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--program", help="the yt-dlp program; a zip of yt-dlp is imported from")
    parser.add_argument("--max-stdout", type=int, default=32 * 1024 * 1024, help="most bytes a job may print")
    parser.add_argument("--max-memory", type=int, default=0, help="most bytes of heap a job's process may hold (0: no cap)")
    parser.add_argument("--without-gallery-dl", action="store_true", help="gallery-dl's jobs are run elsewhere")
    parser.add_argument("--workers", type=int, default=min(8, max(4, os.cpu_count() or 1)), help="most workers (see pool.py); 0: a child for every job")
    parser.add_argument("--worker-threads", type=int, default=32, help="most jobs a worker runs at once")
    parser.add_argument("--worker-stall-s", type=float, default=5.0, help="a worker with jobs silent this long is killed")
    # Named by the service (src/platforms/tools/ytdlp/run.ts), never kept here: without them no job shares a worker.
    parser.add_argument("--worker-options", default="{}", help="JSON: the yt-dlp options a job may carry and share a worker")
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
