"""The pool: the host's side of its workers (worker.py), which each run many yt-dlp jobs at once, a
thread each.

A job that reads a platform's page waits a second on the network and spends a few tens of ms of
CPU; a child forked for it spends ~300 ms more (on a VM whose page faults cost 20-30 us) copying
the host's pages it touches. A worker pays that once for hundreds of jobs, and its threads share
what they copy. Only jobs that keep to themselves run in one (admitted()): yt-dlp reading one link
with options the service names as shared (src/platforms/tools/ytdlp/run.ts, handed to the host as
--worker-options), no stdin; any other job gets a child of its own.

What a job in a worker cannot do to another, on this side:
- a job cancelled (its cap passed, or its caller gone) retires its worker, which takes no new job
  and is killed once its other jobs have answered;
- a worker that ends (a crash), stops beating for stall_s (a job holding the interpreter), or
  whose job met its memory cap, is killed, and each job it had not answered runs again in a child
  of its own: the pool may cost a job time, never its answer.
"""
import json
import os
import signal
import time


class SharedOptions:
    """The options a yt-dlp job may carry and still share a worker: flags, and options with a value.
    None of them changes the interpreter's state; the service names them (src/platforms/tools/ytdlp/run.ts)."""

    def __init__(self, flags=(), valued=()):
        self.flags, self.valued = frozenset(flags), frozenset(valued)

    def admitted(self, job, link):
        """Whether the job may share a worker: yt-dlp on `link` (see chooser.link_of), these options only."""
        if link is None or "stdin" in job:
            return False
        options = job["args"][:-2]
        while options:
            option = options.pop(0)
            if option in self.valued and options:
                options.pop(0)
            elif option not in self.flags:
                return False
        return True


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

    def __init__(self, fork_worker, size, threads, stall_s, retire_after, shared):
        self.fork_worker, self.size, self.threads, self.stall_s, self.retire_after = fork_worker, size, threads, stall_s, retire_after
        self.shared = shared  # SharedOptions: which jobs it takes
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
