"""Workers: warm processes forked from the host that each run many yt-dlp jobs at once, a thread each.

A job that reads a platform's page waits a second on the network and spends a few tens of ms of
CPU; a child forked for it spends ~300 ms more (on a VM whose page faults cost 20-30 us) copying
the host's pages it touches. A worker pays that once for hundreds of jobs, and its threads share
what they copy. Only jobs that keep to themselves run in one (admitted()): yt-dlp reading one link
with the service's own options, no cookies, no stdin; any other job gets a child of its own.

What a job in a worker cannot do to another:
- its output and its log go to buffers of its own (the thread's sys.stdout and sys.stderr), sent
  with its answer;
- a job cancelled (its cap passed, or its caller gone) retires its worker, which takes no new job
  and is killed once its other jobs have answered;
- a worker that ends (a crash), stops beating for STALL_S (a job holding the interpreter), or
  whose job met its memory cap, is killed, and each job it had not answered runs again in a child
  of its own: the pool may cost a job time, never its answer.
"""
import json
import os
import signal
import sys
import threading
import time

from child import enter, rss_bytes, run_tool, use_choice

BEAT_S = 0.5
STACK_BYTES = 4 * 2**20  # per thread; counted in the worker's RLIMIT_DATA
# The service's own yt-dlp options (src/platforms/ytdlp/run.ts), and --no-cache-dir: none changes
# the interpreter's state.
FLAGS = {"-J", "--ignore-config", "--no-playlist", "--no-warnings", "--no-js-runtimes", "--no-cache-dir"}
VALUED = {"--playlist-items", "--socket-timeout", "-f", "--proxy", "--js-runtimes", "--remote-components"}


def admitted(job, link):
    """Whether a job may share a worker: yt-dlp on `link` (see host.link_of), the service's own options only."""
    if link is None or "stdin" in job:
        return False
    options = job["args"][:-2]
    while options:
        option = options.pop(0)
        if option in VALUED and options:
            options.pop(0)
        elif option not in FLAGS:
            return False
    return True


# --- in a worker ---

class Buffer:
    """What one job wrote to one stream, up to `limit` bytes."""

    def __init__(self, limit):
        self.parts, self.size, self.limit, self.overflowed = [], 0, limit, False

    def write(self, text):
        self.size += len(text.encode("utf-8", "replace"))
        if self.size > self.limit:
            self.overflowed = True
        else:
            self.parts.append(text)

    def text(self):
        return "".join(self.parts)


JOB = threading.local()  # the running job's buffers (out, err) and extractor choice


class ThreadStream:
    """A worker's sys.stdout or sys.stderr: a job's thread writes to its own buffer; the worker's own
    threads to the worker's descriptor."""

    encoding, errors = "utf-8", "replace"

    def __init__(self, name, own):
        self.name, self.own = name, own

    def write(self, text):
        buffer = getattr(JOB, self.name, None)
        if buffer is None:
            return self.own.write(text)
        buffer.write(text)
        return len(text)

    def flush(self):
        if getattr(JOB, self.name, None) is None:
            self.own.flush()

    def isatty(self):
        return False

    def writable(self):
        return True


class Answers:
    """The worker's messages to the host, one JSON line each; a lock keeps each whole."""

    def __init__(self, fd):
        self.fd, self.lock = fd, threading.Lock()

    def send(self, *messages):
        data = memoryview("".join(json.dumps(message) + "\n" for message in messages).encode())
        with self.lock:
            while data:
                data = data[os.write(self.fd, data):]


def run_job(modules, answers, running, job, choice, max_stdout):
    """In a job's thread: runs it as its program would, and answers with its output and log."""
    JOB.out, JOB.err, JOB.choice = Buffer(max_stdout), Buffer(max_stdout), choice
    code = run_tool(modules, "yt-dlp", job["args"])
    out, err = JOB.out, JOB.err
    JOB.out = JOB.err = None
    running.discard(job["id"])
    if "MemoryError" in err.text():  # it may have been another job's: each runs again alone
        answers.send({"id": job["id"], "again": True, "retire": True})
    elif out.overflowed:
        answers.send({"id": job["id"], "oversized": True})
    else:
        log = [{"id": job["id"], "stderr": err.text()}] if err.parts else []
        answers.send(*log, {"id": job["id"], "exitCode": code, "stdout": out.text(), "rssBytes": rss_bytes()})


def beat(answers, running):
    """Says the worker is alive while it has jobs; a job that holds the interpreter silences it."""
    while True:
        time.sleep(BEAT_S)
        if running:
            answers.send({"beat": True})


def take_thread_choice():
    choice, JOB.choice = getattr(JOB, "choice", None), None
    return choice


def serve(modules, max_stdout):
    """A worker's life: jobs read from descriptor 3 (one JSON line each: [job, choice]), each run in
    a thread of its own, answers written to descriptor 4. Never returns."""
    sys.stdout, sys.stderr = ThreadStream("out", sys.stdout), ThreadStream("err", sys.stderr)
    use_choice(modules["yt-dlp"], take_thread_choice)
    threading.stack_size(STACK_BYTES)
    answers, running, pending = Answers(4), set(), b""
    threading.Thread(target=beat, args=(answers, running), daemon=True).start()
    while True:
        chunk = os.read(3, 65536)
        if not chunk:
            os._exit(0)
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            job, choice = json.loads(line)
            running.add(job["id"])
            threading.Thread(target=run_job, args=(modules, answers, running, job, choice, max_stdout), daemon=True).start()


# --- in the host ---

class Owed:
    """A job a worker has not answered: what it was sent, its log once it came, whether it was cancelled."""

    def __init__(self, job, choice):
        self.job, self.choice, self.log, self.cancelled = job, choice, None, False

    def again(self):
        """What running it again alone takes."""
        return self.job, self.choice


class Worker:
    """The host's side of one worker: its pipes and the jobs it has not answered."""

    def __init__(self, pid, jobs_w, answers_r):
        self.pid, self.jobs_w, self.answers = pid, jobs_w, answers_r
        self.jobs = {}  # id -> Owed
        self.served, self.retiring, self.heard, self.pending = 0, False, time.monotonic(), b""

    def live(self):
        return sum(1 for owed in self.jobs.values() if not owed.cancelled)

    def submit(self, job, choice):
        """Hands the job over; OSError when the worker has ended or reads no more (then killed)."""
        line = (json.dumps([job, choice]) + "\n").encode()
        if os.write(self.jobs_w, line) < len(line):  # half a line: the worker cannot be told more
            self.kill()
            raise BlockingIOError("the worker reads no more")
        if not self.jobs:
            self.heard = time.monotonic()
        self.jobs[job["id"]] = Owed(job, choice)
        self.served += 1

    def kill(self):
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass


class Pool:
    """The workers of one host: up to `size`, `threads` jobs each; forks them as jobs come."""

    def __init__(self, fork_worker, size, threads, stall_s, retire_after):
        self.fork_worker, self.size, self.threads, self.stall_s, self.retire_after = fork_worker, size, threads, stall_s, retire_after
        self.workers = {}  # pid -> Worker

    def worker(self):
        """The least busy worker with room, forked if none has and the pool may grow; None if full."""
        open_ = [worker for worker in self.workers.values() if not worker.retiring and len(worker.jobs) < self.threads]
        least = min(open_, key=lambda worker: len(worker.jobs), default=None)
        if len(self.workers) < self.size and (least is None or len(least.jobs) >= self.threads // 2):
            try:
                new = self.fork_worker()
            except OSError:  # no process to be had now: the jobs go on as they can
                return least
            self.workers[new.pid] = new
            return new
        return least

    def on_answers(self, worker):
        """Reads what a worker wrote: (lines to pass on, jobs to run again alone); None at its end;
        BlockingIOError when it has written nothing more."""
        chunk = os.read(worker.answers, 65536)
        if not chunk:
            return None
        worker.heard = time.monotonic()
        *lines, worker.pending = (worker.pending + chunk).split(b"\n")
        forward, again = [], []
        try:
            for line in lines:
                self.on_line(worker, line, forward, again)
        except (ValueError, TypeError, AttributeError):  # not the worker's own words: it is ended, its jobs run again
            worker.kill()
            return forward, again
        self.settle(worker)
        return forward, again

    def on_line(self, worker, line, forward, again):
        message = json.loads(line)
        owed = worker.jobs.get(message.get("id"))
        if owed is None:  # a beat, or a job answered as cancelled
            return
        if set(message) == {"id", "stderr"}:
            owed.log = line  # passed on with the answer, so that a job run again logs once
            return
        del worker.jobs[message["id"]]
        if message.get("retire"):
            worker.retiring = True
        if owed.cancelled:
            return
        if message.get("again"):
            again.append(owed.again())
            return
        forward.extend([owed.log, line] if owed.log else [line])

    def settle(self, worker):
        """A retiring worker goes once it owes no answer; one that served its share retires."""
        if worker.served >= self.retire_after:
            worker.retiring = True
        if worker.retiring and not worker.live():
            worker.kill()

    def cancel(self, id):
        """Whether a worker ran the job: it is then answered as killed, and the worker retires."""
        for worker in self.workers.values():
            if id in worker.jobs and not worker.jobs[id].cancelled:
                worker.jobs[id].cancelled = True
                worker.retiring = True
                self.settle(worker)
                return True
        return False

    def ended(self, pid):
        """A worker's process has ended: the jobs it had not answered, to run again alone."""
        worker = self.workers.pop(pid)
        worker.kill()
        os.close(worker.jobs_w)
        return [owed.again() for owed in worker.jobs.values() if not owed.cancelled]

    def stalled(self):
        """Kills the workers with jobs that have been silent for stall_s; the seconds to the next check."""
        now = time.monotonic()
        for worker in self.workers.values():
            if worker.jobs and now - worker.heard > self.stall_s:
                worker.kill()
        return self.stall_s / 2 if any(worker.jobs for worker in self.workers.values()) else None

    def idle(self):
        """The host has been idle: workers with no job are ended, so that the tree at rest is the host."""
        for worker in self.workers.values():
            if not worker.jobs:
                worker.kill()

    def end(self):
        for worker in self.workers.values():
            worker.kill()
