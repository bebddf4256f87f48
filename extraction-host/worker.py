"""A worker: a warm process forked from the host that runs many yt-dlp jobs at once, a thread each
(the host's side of it, and which jobs may share one, is pool.py).

What a job in a worker cannot do to another, on this side: its output and its log go to buffers of
its own (the thread's sys.stdout and sys.stderr), sent with its answer; its extractor choice is its
own; a job that met its memory cap is answered as one to run again alone, since the MemoryError may
have been another job's.
"""
import json
import os
import sys
import threading
import time

import warmup
from child import enter, rss_bytes, run_tool, use_choice

BEAT_S = 0.5
STACK_BYTES = 4 * 2**20  # per thread; counted in the worker's RLIMIT_DATA


def run_worker(modules, host_pid, fds, max_memory, max_stdout, threads):
    """In a worker, forked from the host: never returns."""
    try:
        enter(host_pid, max_memory and max_memory + threads * STACK_BYTES, fds, "host-worker")
        warmup.TLS["shared"] = True
        serve(modules, max_stdout)
    finally:
        os._exit(1)


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
