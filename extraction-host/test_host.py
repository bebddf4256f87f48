"""The host's mechanics with stand-in tools (a fake yt_dlp and gallery_dl package), so that each
case is exact and quick: python3 -m unittest discover -s extraction-host"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HOST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "host.py")

FAKE_YT_DLP = '''
import json, os, resource, subprocess, sys, time
from . import version

if os.environ.get("FORK_FAILS_ONCE"):  # imported by the host: its next fork() fails as when no process can be had
    real_fork = os.fork
    def fork():
        os.fork = real_fork
        raise BlockingIOError(11, "Resource temporarily unavailable")
    os.fork = fork

class SiteIE:
    @classmethod
    def suitable(cls, url):
        if url.startswith("https://slow/") and open("/proc/self/comm").read().strip() == "host-chooser":
            time.sleep(60)  # a choice that never ends, in the host's chooser
        return url.startswith(("https://site/", "https://slow/"))

class GenericIE:
    @classmethod
    def suitable(cls, url):
        return True

class YoutubeDL:
    def __init__(self, params):
        self.params = params
        self._ies = {"Site": SiteIE, "Generic": GenericIE}
    def __enter__(self):
        return self
    def __exit__(self, *_):
        pass
    def extract_info(self, url, download=True, ie_key=None, extra_info=None, process=True, force_generic_extractor=False):
        if url.startswith("file://"):
            with open(url[len("file://"):]) as page:  # the warm-up page, from a pipe
                assert "<video" in page.read()
            return
        asked = {ie_key: self._ies[ie_key]} if ie_key else self._ies
        return f"handed {ie_key} chose {next(key for key, ie in asked.items() if ie.suitable(url))}"

def parse_options(argv):
    return argv

def main(argv):
    command, args = argv[0], argv[1:]
    if command == "echo":
        print(*args)
    elif command == "stdin":
        print(sys.stdin.read())
    elif command == "fail":
        print("partial")
        sys.exit("ERROR: it failed")
    elif command == "crash":
        raise RuntimeError("boom")
    elif command == "noise":
        sys.stderr.write("x" * 20000 + "END")
    elif command == "hog":  # holds what it reads, as yt-dlp does a page that never ends
        held = []
        while True:
            held.append(bytearray(10 * 1024 * 1024))
    elif command == "memory-cap":
        print(resource.getrlimit(resource.RLIMIT_DATA)[0])
    elif command == "big":
        sys.stdout.write("y" * int(args[0]))
    elif command == "sleep":
        subprocess.Popen(["sleep", "60"])
        time.sleep(60)
    elif command == "tls":  # which process built each context this job asks for
        from .networking import common
        default = {"verify": True, "legacy_support": False, "use_certifi": True}  # as yt-dlp asks
        contexts = [common.make_ssl_context(**default), common.make_ssl_context(**default), common.make_ssl_context(**{**default, "legacy_support": True})]
        print(*("here" if context["pid"] == os.getpid() else "before the fork" for context in contexts))
    elif command in ("embeds", "embeds-with-a-plugin"):  # each extractor's embeds on a page, and whose class was read
        from .extractor import gen_extractor_classes, lazy_extractors
        from .globals import plugin_ies
        if command == "embeds-with-a-plugin":
            plugin_ies.value = {"SomePluginIE": object}
        lazy_extractors.LOOKED_UP.clear()
        page = "https://e/1 https://e/2"
        found = {ie.__name__: list(ie.extract_from_webpage(None, "https://page/", page)) for ie in gen_extractor_classes()}
        print(json.dumps({"found": found, "read": lazy_extractors.LOOKED_UP}))
    elif command in ("choose", "choose-with-a-plugin"):  # as yt-dlp's download() asks for each link
        from .globals import plugin_ies
        if command == "choose-with-a-plugin":
            plugin_ies.value = {"SomePluginIE": object}
        print(YoutubeDL({}).extract_info(args[-1], force_generic_extractor=False))
    elif command == "-J":  # as the service runs yt-dlp (in a worker): what the link's path says
        link = args[-1]
        what, _, arg = link[len("https://site/"):].partition("?")
        if what == "pid":
            print(os.getpid())
        elif what == "wait":  # until the file named after "?" exists
            while not os.path.exists(arg):
                time.sleep(0.01)
            print("waited")
        elif what == "log":
            sys.stderr.write(f"log of {link}\\n")
            print(link)
        elif what == "big":
            sys.stdout.write("y" * int(arg))
        elif what == "spin":  # a pattern that holds the interpreter for ever, as a bad regex on a page would
            import re
            re.match(r"(a+)+$", "a" * 64 + "b")
        elif what == "die":
            os._exit(9)
        elif what == "die-holding":  # what it started keeps the worker's channel to the host open
            subprocess.Popen(["sleep", "60"], pass_fds=(4,))
            os._exit(9)
        elif what == "sleep":
            time.sleep(60)
        elif what == "garble":  # words on the worker's channel to the host that are not its messages
            os.write(4, b"not a message\\n")
            time.sleep(60)
        elif what == "hog":
            main(["hog"])
        elif what == "tls":
            main(["tls"])
        elif what == "choose":
            print(YoutubeDL({}).extract_info(link))
    elif command == "env":
        print(os.environ.get("LEFT_BY_A_JOB", "none"))
        os.environ["LEFT_BY_A_JOB"] = "yes"
    sys.exit(0)
'''

# yt-dlp's TLS context maker, which says which process built a context, and where its CA bundle is.
FAKE_YT_DLP_NETWORKING = '''
import os

def make_ssl_context(verify=True, legacy_support=False, use_certifi=True):
    return {"pid": os.getpid()}
'''
FAKE_YT_DLP_DEPENDENCIES = '''
import os

class certifi:
    where = staticmethod(lambda: os.path.join(os.path.dirname(__file__), "cacert.pem"))
'''

# yt-dlp's lazy extractors: a lazy class reads its real class (and says so) for what it lacks.
FAKE_YT_DLP_EXTRACTORS = {
    "extractor/__init__.py": '''
from . import lazy_extractors

def gen_extractor_classes():
    return list(lazy_extractors.CLASSES)
''',
    "extractor/lazy_extractors.py": '''
import importlib

LOOKED_UP = []

class LazyLoadMetaClass(type):
    def __getattr__(cls, name):
        LOOKED_UP.append(cls.__name__)
        return getattr(cls.real_class, name)

    @property
    def real_class(cls):
        return getattr(importlib.import_module("yt_dlp.extractor.sites"), cls.__name__)

class LazyLoadExtractor(metaclass=LazyLoadMetaClass):
    pass

class BarrenIE(LazyLoadExtractor):
    pass

class EmbedsIE(LazyLoadExtractor):
    pass

class OwnIE(LazyLoadExtractor):
    pass

class BarrenChildIE(BarrenIE):
    pass

CLASSES = [BarrenIE, EmbedsIE, OwnIE, BarrenChildIE]
''',
    "extractor/common.py": '''
import re

class InfoExtractor:
    _EMBED_REGEX = []

    @classmethod
    def extract_from_webpage(cls, ydl, url, webpage):
        yield from cls._extract_from_webpage(url, webpage)

    @classmethod
    def _extract_from_webpage(cls, url, webpage):
        yield from cls._extract_embed_urls(url, webpage)

    @classmethod
    def _extract_embed_urls(cls, url, webpage):
        for regex in cls._EMBED_REGEX:
            yield from (match.group("url") for match in re.finditer(regex, webpage))
''',
    "extractor/sites.py": '''
from .common import InfoExtractor

class BarrenIE(InfoExtractor):
    pass

class EmbedsIE(InfoExtractor):
    _EMBED_REGEX = [r"(?P<url>https://e/1)"]

class OwnIE(InfoExtractor):
    @classmethod
    def _extract_embed_urls(cls, url, webpage):
        yield "its own"

class BarrenChildIE(BarrenIE):
    _EMBED_REGEX = [r"(?P<url>https://e/2)"]
''',
    "globals.py": '''
from collections import defaultdict

class Indirect:
    def __init__(self, value):
        self.value = value

plugin_ies, plugin_pps, plugin_ies_overrides = Indirect({}), Indirect({}), Indirect(defaultdict(list))
''',
}

FAKE_GALLERY_DL = '''
import sys
from . import version

def main():
    print(" ".join(sys.argv))
    return 3
'''


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        file.write(textwrap.dedent(text))


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as file:
            return [int(each) for each in file.read().split()]
    except FileNotFoundError:
        return []


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as file:
            return file.read().strip()
    except FileNotFoundError:
        return None


def running(pid):
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def wait_for(what, check, timeout=5):
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


class HostCase(unittest.TestCase):
    """A host started on stand-in tools, and how to talk to it."""

    def setUp(self):
        self.tools = tempfile.mkdtemp(prefix="extraction-host-tools-")
        write(f"{self.tools}/yt_dlp/__init__.py", FAKE_YT_DLP)
        write(f"{self.tools}/yt_dlp/version.py", "__version__ = '2026.01.01'\n")
        write(f"{self.tools}/yt_dlp/networking/__init__.py", "")
        write(f"{self.tools}/yt_dlp/networking/common.py", FAKE_YT_DLP_NETWORKING)
        write(f"{self.tools}/yt_dlp/dependencies.py", FAKE_YT_DLP_DEPENDENCIES)
        write(f"{self.tools}/yt_dlp/cacert.pem", "the trusted roots\n")
        self.host = None

    def tearDown(self):
        if self.host:
            if self.host.poll() is None:
                self.host.kill()
                self.host.wait()
            self.host.stdin.close()
            self.host.stdout.close()
        shutil.rmtree(self.tools)

    def with_extractors(self):
        """The stand-in yt-dlp gets its lazy extractors and its globals."""
        for path, text in FAKE_YT_DLP_EXTRACTORS.items():
            write(f"{self.tools}/yt_dlp/{path}", text)

    def start(self, *args, gallery=False, env=None):
        if gallery:
            write(f"{self.tools}/gallery_dl/__init__.py", FAKE_GALLERY_DL)
            write(f"{self.tools}/gallery_dl/version.py", "__version__ = '1.0.0'\n")
            write(f"{self.tools}/gallery_dl/extractor.py", "def extractors():\n    return []\n")
            write(f"{self.tools}/gallery_dl/option.py", "def build_parser():\n    pass\n")
            write(f"{self.tools}/gallery_dl/job.py", "")
        # -S: only the stand-ins can be imported, not the machine's own tools.
        env = {"PATH": os.environ["PATH"], "PYTHONPATH": self.tools, **(env or {})}
        self.host = subprocess.Popen([sys.executable, "-S", HOST, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        return self.receive()["ready"]

    def send(self, message):
        self.host.stdin.write((json.dumps(message) + "\n").encode())
        self.host.stdin.flush()

    def receive(self):
        line = self.host.stdout.readline()
        self.assertTrue(line, "the host ended")
        return json.loads(line)

    def answer(self, id=1):
        """The job's answer, with its log (which comes in messages before it) as one "stderr"."""
        log = ""
        while True:
            message = self.receive()
            self.assertEqual(message.get("id"), id)
            if set(message) != {"id", "stderr"}:
                return {**message, "stderr": log} if "exitCode" in message else message
            log += message["stderr"]

    def run_job(self, *args, tool="yt-dlp", **extra):
        self.send({"id": 1, "tool": tool, "args": list(args), **extra})
        return self.answer()

    def job_child(self):
        wait_for("the job's child", lambda: children(self.host.pid))
        child = children(self.host.pid)[0]
        wait_for("the tool's own child", lambda: children(child))
        return child, children(child)[0]



class HostTest(HostCase):
    def test_says_what_it_loaded(self):
        ready = self.start()
        self.assertEqual(ready["versions"], {"yt-dlp": "2026.01.01", "gallery-dl": None})
        self.assertEqual(ready["pid"], self.host.pid)
        self.assertGreater(ready["rssBytes"], 1_000_000)

    def test_runs_a_job_as_the_program_would(self):
        self.start()
        answer = self.run_job("echo", "a", "b")
        self.assertEqual((answer["id"], answer["exitCode"], answer["stdout"], answer["stderr"]), (1, 0, "a b\n", ""))
        self.assertEqual(self.run_job("stdin", stdin="{\"id\": \"x\"}")["stdout"], "{\"id\": \"x\"}\n")
        failed = self.run_job("fail")
        self.assertEqual((failed["exitCode"], failed["stdout"], failed["stderr"]), (1, "partial\n", "ERROR: it failed\n"))
        crashed = self.run_job("crash")
        self.assertEqual(crashed["exitCode"], 1)
        self.assertIn("RuntimeError: boom", crashed["stderr"])

    def test_runs_gallery_dl_with_its_argv(self):
        ready = self.start(gallery=True)
        self.assertEqual(ready["versions"]["gallery-dl"], "1.0.0")
        answer = self.run_job("-j", "https://example.com/p/1", tool="gallery-dl")
        self.assertEqual((answer["exitCode"], answer["stdout"]), (3, "gallery-dl -j https://example.com/p/1\n"))

    def test_passes_the_whole_log_on_and_caps_stdout(self):
        self.start("--max-stdout", "1000")
        self.assertEqual(self.run_job("noise")["stderr"], "x" * 20000 + "END")
        self.assertEqual(self.run_job("big", "1000")["stdout"], "y" * 1000)
        self.assertEqual(self.run_job("big", "5000"), {"id": 1, "oversized": True})

    def test_a_job_leaves_nothing_for_the_next(self):
        self.start()
        self.assertEqual(self.run_job("env")["stdout"], "none\n")
        self.assertEqual(self.run_job("env")["stdout"], "none\n")

    def test_a_cancel_kills_the_job_and_what_it_started_and_the_host_lives_on(self):
        self.start()
        self.send({"id": 5, "tool": "yt-dlp", "args": ["sleep"]})
        child, grandchild = self.job_child()
        self.send({"cancel": 5})
        answer = self.answer(5)
        self.assertEqual((answer["id"], answer["exitCode"]), (5, None))
        wait_for("the tool's child's end", lambda: not running(grandchild))
        self.assertFalse(running(child))
        self.assertEqual(self.run_job("echo", "still", "here")["stdout"], "still here\n")

    def test_ends_its_jobs_and_itself_when_its_stdin_closes(self):
        self.start()
        self.send({"id": 1, "tool": "yt-dlp", "args": ["sleep"]})
        child, grandchild = self.job_child()
        self.host.stdin.close()
        self.assertEqual(self.host.wait(5), 0)
        wait_for("the job's end", lambda: not running(child) and not running(grandchild))

    def test_its_jobs_die_with_it_when_it_is_killed(self):
        self.start()
        self.send({"id": 1, "tool": "yt-dlp", "args": ["sleep"]})
        child, grandchild = self.job_child()
        self.host.send_signal(signal.SIGKILL)
        self.host.wait(5)
        wait_for("the job's end", lambda: not running(child) and not running(grandchild))

    def test_runs_nothing_more_once_a_tool_changed_on_disk(self):
        self.start()
        self.assertEqual(self.run_job("echo", "old")["exitCode"], 0)
        time.sleep(0.01)
        write(f"{self.tools}/yt_dlp/version.py", "__version__ = '2026.02.02'\n")
        self.send({"id": 2, "tool": "yt-dlp", "args": ["echo", "new"]})
        self.assertEqual(self.receive(), {"stale": True})
        self.assertEqual(self.receive(), {"id": 2, "stale": True})
        self.assertEqual(children(self.host.pid), [])

    def test_each_job_gets_its_own_tls_context_built_before_the_fork_once_then_its_own(self):
        self.start()
        for id in (1, 2):
            self.assertEqual(self.run_job("tls")["stdout"], "before the fork here here\n")

    def test_answers_no_embeds_for_an_extractor_that_finds_none_without_reading_its_class(self):
        self.with_extractors()
        self.start()
        found = {"BarrenIE": [], "EmbedsIE": ["https://e/1"], "OwnIE": ["its own"], "BarrenChildIE": ["https://e/2"]}
        embeds = json.loads(self.run_job("embeds")["stdout"])
        self.assertEqual(embeds, {"found": found, "read": ["EmbedsIE", "OwnIE", "BarrenChildIE"]})
        # A plugin may change any class: every extractor is asked again.
        embeds = json.loads(self.run_job("embeds-with-a-plugin")["stdout"])
        self.assertEqual(embeds, {"found": found, "read": ["BarrenIE", "EmbedsIE", "OwnIE", "BarrenChildIE"]})

    def test_a_job_is_handed_the_extractor_it_would_choose_first(self):
        self.with_extractors()
        self.start()
        self.assertEqual(self.run_job("choose", "--", "https://site/1")["stdout"], "handed Site chose Site\n")
        self.assertEqual(self.run_job("choose", "--", "https://other/1")["stdout"], "handed Generic chose Generic\n")
        # A plugin may add extractors or change one: the job chooses for itself.
        self.assertEqual(self.run_job("choose-with-a-plugin", "--", "https://site/1")["stdout"], "handed None chose Site\n")

    def test_jobs_choose_for_themselves_once_the_chooser_is_late_or_gone(self):
        self.with_extractors()
        self.start()
        self.assertEqual(self.run_job("choose", "--", "https://slow/1")["stdout"], "handed None chose Site\n")
        self.assertEqual(self.run_job("choose", "--", "https://site/1")["stdout"], "handed None chose Site\n")
        self.assertEqual(children(self.host.pid), [])
        self.host.stdin.close()
        self.assertEqual(self.host.wait(5), 0)

    def test_a_job_cancelled_while_its_extractor_is_chosen_never_starts(self):
        self.with_extractors()
        self.start()
        self.send({"id": 7, "tool": "yt-dlp", "args": ["choose", "--", "https://slow/1"]})
        self.send({"cancel": 7})
        self.assertEqual({key: value for key, value in self.answer(7).items() if key != "rssBytes"}, {"id": 7, "exitCode": None, "stdout": "", "stderr": ""})
        # Once the chooser is given up, the jobs that waited start; the cancelled one does not.
        self.assertEqual(self.run_job("choose", "--", "https://site/1")["stdout"], "handed None chose Site\n")

    def test_a_killed_chooser_leaves_the_jobs_to_choose(self):
        self.with_extractors()
        self.start()
        [chooser] = children(self.host.pid)
        os.kill(chooser, signal.SIGKILL)
        wait_for("the chooser's end", lambda: not running(chooser))
        self.assertEqual(self.run_job("choose", "--", "https://site/1")["stdout"], "handed None chose Site\n")
        self.assertEqual(self.run_job("echo", "still", "here")["stdout"], "still here\n")

    def test_runs_nothing_more_once_the_ca_bundle_changed_on_disk(self):
        self.start()
        time.sleep(0.01)
        write(f"{self.tools}/yt_dlp/cacert.pem", "other trusted roots\n")
        self.send({"id": 2, "tool": "yt-dlp", "args": ["echo", "new"]})
        self.assertEqual(self.receive(), {"stale": True})
        self.assertEqual(self.receive(), {"id": 2, "stale": True})

    def test_caps_a_jobs_memory_and_lives_on(self):
        self.start("--max-memory", str(300 * 2**20))
        self.assertEqual(self.run_job("memory-cap")["stdout"], f"{300 * 2**20}\n")
        hog = self.run_job("hog")
        self.assertEqual(hog["exitCode"], 1)
        self.assertTrue(hog["stderr"].endswith("\nMemoryError\n"), hog["stderr"][-300:])
        self.assertEqual(self.run_job("echo", "still", "here")["stdout"], "still here\n")

    def test_a_failed_fork_fails_that_job_only(self):
        self.start(env={"FORK_FAILS_ONCE": "1"})
        failed = self.run_job("echo", "a")
        self.assertEqual(set(failed), {"id", "error"})
        self.assertIn("could not be started", failed["error"])
        self.assertEqual(self.run_job("echo", "b")["stdout"], "b\n")

    def test_a_message_it_cannot_run_fails_that_job_only(self):
        self.start()
        self.host.stdin.write(b"not json\n")
        self.send({"id": 4, "args": ["echo"]})  # no tool
        self.assertIn("could not be read", self.answer(4)["error"])
        self.assertEqual(self.run_job("echo", "c")["stdout"], "c\n")


# The options the service names as ones a job may carry into a worker (src/platforms/tools/ytdlp/run.ts
# sends its own; test/platforms/tools/ytdlp/worker-options.test.ts checks them against what it writes).
SHARED_OPTIONS = {"flags": ["-J", "--no-warnings"], "valued": ["--proxy"]}


class WorkerTest(HostCase):
    """Jobs as the service writes them (`-J ... -- link`) run in workers, a thread each."""

    def setUp(self):
        super().setUp()
        self.with_extractors()  # yt_dlp.globals: what a worker relies on
        self.go = f"{self.tools}/go"

    def start(self, *args, **kwargs):
        return super().start("--worker-options", json.dumps(SHARED_OPTIONS), *args, **kwargs)

    def workers(self):
        return [pid for pid in children(self.host.pid) if comm(pid) == "host-worker"]

    def pid_of_job(self, id, *options):
        self.send({"id": id, "tool": "yt-dlp", "args": ["-J", *options, "--", "https://site/pid"]})
        return int(self.answer(id)["stdout"])

    def test_jobs_share_a_worker_and_answer_apart(self):
        self.start("--max-stdout", "1000")
        self.send({"id": 9, "tool": "yt-dlp", "args": ["-J", "--", f"https://site/wait?{self.go}"]})
        self.send({"id": 2, "tool": "yt-dlp", "args": ["-J", "--no-warnings", "--proxy", "http://gate", "--", "https://site/log"]})
        logged = self.answer(2)
        self.assertEqual((logged["exitCode"], logged["stdout"], logged["stderr"]), (0, "https://site/log\n", "log of https://site/log\n"))
        worker = self.pid_of_job(3)
        self.assertEqual(self.workers(), [worker])
        self.assertEqual(self.run_job("-J", "--", "https://site/big?5000"), {"id": 1, "oversized": True})
        self.assertEqual(self.run_job("-J", "--", "https://site/choose")["stdout"], "handed Site chose Site\n")
        self.assertEqual(self.run_job("-J", "--", "https://site/tls")["stdout"], "before the fork before the fork here\n")
        # Cookies, or any option but the service's own: a child of its own.
        self.assertNotEqual(self.pid_of_job(4, "--cookies", "/tmp/jar"), worker)
        self.assertNotEqual(self.pid_of_job(5, "--exec", "x"), worker)
        write(self.go, "")
        self.assertEqual(self.answer(9)["stdout"], "waited\n")

    def test_without_the_services_options_no_job_shares_a_worker(self):
        HostCase.start(self)
        self.send({"id": 9, "tool": "yt-dlp", "args": ["-J", "--", f"https://site/wait?{self.go}"]})
        first = self.pid_of_job(2)
        self.assertNotEqual(self.pid_of_job(3), first)
        self.assertEqual(self.workers(), [])
        write(self.go, "")
        self.assertEqual(self.answer(9)["stdout"], "waited\n")

    def test_a_worker_that_stops_answering_is_killed_and_its_other_jobs_run_alone(self):
        self.start("--worker-stall-s", "0.5")
        self.send({"id": 1, "tool": "yt-dlp", "args": ["-J", "--", "https://site/spin"]})
        self.send({"id": 2, "tool": "yt-dlp", "args": ["-J", "--", f"https://site/wait?{self.go}"]})
        wait_for("two processes for the jobs, each alone", lambda: len(children(self.host.pid)) == 3)  # and the chooser
        write(self.go, "")
        self.assertEqual(self.answer(2)["stdout"], "waited\n")
        self.send({"cancel": 1})
        self.assertEqual(self.answer(1)["exitCode"], None)
        self.assertEqual(self.run_job("-J", "--", "https://site/log")["exitCode"], 0)

    def test_a_worker_holding_the_interpreter_dies_with_the_host(self):
        self.start()
        self.send({"id": 1, "tool": "yt-dlp", "args": ["-J", "--", "https://site/spin"]})
        wait_for("the worker", lambda: self.workers())
        [worker] = self.workers()
        self.host.send_signal(signal.SIGKILL)
        self.host.wait(5)
        wait_for("the worker's end", lambda: not running(worker))

    def test_a_worker_that_writes_what_is_no_message_is_killed_and_its_jobs_run_alone(self):
        self.start()
        self.send({"id": 9, "tool": "yt-dlp", "args": ["-J", "--", f"https://site/wait?{self.go}"]})
        worker = self.pid_of_job(2)
        self.send({"id": 3, "tool": "yt-dlp", "args": ["-J", "--", "https://site/garble"]})
        self.assertIn("Bad file descriptor", self.answer(3)["stderr"])  # alone, it has no such channel
        wait_for("the worker's end", lambda: not running(worker))
        write(self.go, "")
        self.assertEqual(self.answer(9)["stdout"], "waited\n")

    def test_a_worker_that_dies_while_what_it_started_holds_its_channel_is_still_seen_to_end(self):
        self.start()
        worker = self.pid_of_job(1)
        self.send({"id": 2, "tool": "yt-dlp", "args": ["-J", "--", "https://site/die-holding"]})
        self.assertEqual(self.answer(2)["exitCode"], 9)  # run again alone, where it ends as it did
        wait_for("the worker's end", lambda: not running(worker))
        self.assertEqual(self.run_job("-J", "--", "https://site/log")["exitCode"], 0)

    def test_a_crash_takes_only_its_own_job(self):
        self.start()
        self.send({"id": 9, "tool": "yt-dlp", "args": ["-J", "--", f"https://site/wait?{self.go}"]})
        worker = self.pid_of_job(2)
        self.send({"id": 3, "tool": "yt-dlp", "args": ["-J", "--", "https://site/die"]})
        self.assertEqual(self.answer(3)["exitCode"], 9)  # run again alone, where it ends as it did
        wait_for("the worker's end", lambda: not running(worker))
        write(self.go, "")
        self.assertEqual(self.answer(9)["stdout"], "waited\n")

    def test_a_cancelled_job_retires_its_worker_once_the_others_have_answered(self):
        self.start()
        self.send({"id": 1, "tool": "yt-dlp", "args": ["-J", "--", "https://site/sleep"]})
        self.send({"id": 2, "tool": "yt-dlp", "args": ["-J", "--", f"https://site/wait?{self.go}"]})
        wait_for("the worker", lambda: self.workers())
        [worker] = self.workers()
        self.send({"cancel": 1})
        self.assertEqual(self.answer(1)["exitCode"], None)
        self.assertNotEqual(self.pid_of_job(3), worker)  # a new worker: the old one takes nothing more
        self.assertTrue(running(worker))
        write(self.go, "")
        self.assertEqual(self.answer(2)["stdout"], "waited\n")
        wait_for("the retired worker's end", lambda: not running(worker))

    def test_a_job_that_meets_the_memory_cap_in_a_worker_runs_again_alone(self):
        self.start("--max-memory", str(300 * 2**20))
        hog = self.run_job("-J", "--", "https://site/hog")
        self.assertEqual(hog["exitCode"], 1)
        self.assertTrue(hog["stderr"].endswith("\nMemoryError\n"), hog["stderr"][-300:])
        self.assertEqual(self.run_job("-J", "--", "https://site/log")["exitCode"], 0)


class BoundMediaTagsTest(unittest.TestCase):
    """Issue 43: yt-dlp's HTML5 parse reads a page only through one element past the last item asked for."""

    def test_a_page_is_read_through_one_media_element_past_the_last_item(self):
        sys.path.insert(0, os.path.dirname(HOST))
        from child import bound_media_tags
        import types

        class InfoExtractor:  # yt-dlp's, as far as the bound reads it: its parse says what page it was given
            def _parse_html5_media_entries(self, base_url, webpage, video_id, *args, **kwargs):
                return webpage

        common = types.ModuleType("yt_dlp.extractor.common")
        common.InfoExtractor = InfoExtractor
        before = sys.modules.get("yt_dlp.extractor.common")
        sys.modules["yt_dlp.extractor.common"] = common
        try:
            bound_media_tags()
            bound_media_tags()  # once a process: a second call wraps nothing again
        finally:
            if before is None:
                del sys.modules["yt_dlp.extractor.common"]
            else:
                sys.modules["yt_dlp.extractor.common"] = before
        tags = ['<video src="/v/1.mp4"></video>', '<amp-video src="/v/2.mp4"></amp-video>', '<audio src="/a.mp3"/>']
        page = "".join(tags) + '<video src="/v/4.mp4"></video><p>after</p>'

        def seen(items):
            ie = InfoExtractor()
            ie._downloader = types.SimpleNamespace(params={"playlist_items": items})
            return ie._parse_html5_media_entries("http://p/", page, "x")

        self.assertEqual(seen("1:2"), "".join(tags))
        self.assertEqual(seen("1"), "".join(tags[:2]))
        self.assertEqual(seen("1:100"), page)
        self.assertEqual(seen(None), page)


if __name__ == "__main__":
    unittest.main()
