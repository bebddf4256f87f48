"""What the extraction host's forks cost (issue 34): N `yt-dlp -J` jobs sent at once to a host, each
on a distinct page of a local server that answers after DELAY seconds; the tree's peak PSS, and each
child at its own peak (PSS, Private_Dirty, minor page faults), sampled from /proc every 50 ms.

    python3 bench/host-forks.py [N] [DELAY] [HOST]    (defaults: 32, 2, extraction-host/host.py)

Run it with the interpreter of yt-dlp's program (`head -1 $(command -v yt-dlp)`). Memory figures do
not depend on the machine's load; how many children are alive at the peak does. It measures a child
per job: a host that has workers (workers.py) is started without them.
"""
import http.server
import json
import os
import socketserver
import subprocess
import sys
import threading
import time

PAGE = b'<!DOCTYPE html><html><head><title>Clip</title></head><body><video src="/media/clip.mp4"></video></body></html>'


def serve(delay):
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            time.sleep(delay)  # a platform takes its time over a page
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *_):
            pass

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads, request_queue_size = True, 256

    server = Server(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def rollup(pid):
    """smaps_rollup's kB figures and the minor faults of a process; None once it has gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as file:
            figures = {line.split()[0].rstrip(":"): int(line.split()[1]) for line in file if line.rstrip().endswith("kB")}
        with open(f"/proc/{pid}/stat") as file:
            figures["minflt"] = int(file.read().split(") ")[1].split()[7])
        return figures
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def children(pid):
    """The host's forks for jobs (not its chooser, which lives as long as it does)."""
    with open(f"/proc/{pid}/task/{pid}/children") as file:
        return [int(each) for each in file.read().split() if comm(int(each)) != "host-chooser"]


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as file:
            return file.read().strip()
    except FileNotFoundError:
        return None


def at_rest(host_pid):
    """The host and its chooser."""
    with open(f"/proc/{host_pid}/task/{host_pid}/children") as file:
        return [host_pid, *(int(each) for each in file.read().split() if comm(int(each)) == "host-chooser")]


def main(n, delay, host_py):
    port = serve(delay)
    with open(host_py) as source:
        alone = ["--workers", "0"] if "--workers" in source.read() else []  # an earlier host had none
    host = subprocess.Popen([sys.executable, host_py, "--program", "yt-dlp", *alone], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    json.loads(host.stdout.readline())
    time.sleep(1)
    rest = at_rest(host.pid)
    idle = {key: sum(rollup(pid)[key] for pid in rest) for key in ("Pss", "Rss")}
    args = ["-J", "--ignore-config", "--no-playlist", "--playlist-items", "1", "--no-warnings", "--socket-timeout", "60", "--"]
    for i in range(n):
        host.stdin.write((json.dumps({"id": i + 1, "tool": "yt-dlp", "args": [*args, f"http://127.0.0.1:{port}/page.html?n={i}"]}) + "\n").encode())
    host.stdin.flush()
    answers = []
    threading.Thread(target=lambda: answers.extend(m for m in map(json.loads, host.stdout) if "stderr" not in m), daemon=True).start()
    peak, tree_peak, alive_then = {}, 0, 0
    while len(answers) < n:
        figures = {pid: rollup(pid) for pid in [*rest, *children(host.pid)]}
        figures = {pid: each for pid, each in figures.items() if each}
        for pid, each in figures.items():
            if pid not in rest and each["Private_Dirty"] >= peak.get(pid, {"Private_Dirty": -1})["Private_Dirty"]:
                peak[pid] = each
        tree = sum(each["Pss"] for each in figures.values())
        if tree > tree_peak:
            tree_peak, alive_then = tree, len(figures) - len(rest)
        time.sleep(0.05)
    host.stdin.close()
    host.wait()
    median = lambda key: sorted(each[key] for each in peak.values())[len(peak) // 2]
    print(f"{n} jobs, pages after {delay} s, load average {os.getloadavg()[0]:.1f}: exit codes {sorted(set(m.get('exitCode') for m in answers))}")
    print(f"host idle (with its chooser, if any): PSS {idle['Pss'] / 1024:.0f} MB, RSS (summed) {idle['Rss'] / 1024:.0f} MB")
    print(f"tree at its peak: {tree_peak / 1024:.0f} MB PSS with {alive_then} children, {(tree_peak - idle['Pss']) / 1024 / max(alive_then, 1):.1f} MB each over the idle host")
    print(f"a child at its own peak (median): PSS {median('Pss') / 1024:.1f} MB, Private_Dirty {median('Private_Dirty') / 1024:.1f} MB, RSS {median('Rss') / 1024:.0f} MB, {median('minflt')} minor faults")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 32, float(sys.argv[2]) if len(sys.argv) > 2 else 2, sys.argv[3] if len(sys.argv) > 3 else "extraction-host/host.py")
