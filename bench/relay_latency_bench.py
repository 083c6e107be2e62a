#!/usr/bin/env python3
"""Latency from a sample's end to its DATA event at the engine, through 0, 1 and 2 relay
levels. Real processes on 127.0.0.1: `perfdm engine --publish --listen`, a chain of
LEVEL `perfdm relay`s, one `perfdm daemon --attach` of the bundled workload (frames,
work.requests) at the bottom, and a watcher: this script itself on the engine's TCP gateway
(DyPer's framing), which enables work.requests over the whole program and timestamps every
message as it arrives.

A bucket's DATA event can go out only once the bucket's samples arrived: the frame source
aligns its sampling intervals to multiples of the interval in engine time, equal to the
bucket width (0.2 s, no fold in a short run), so the last sample of bucket k ends at the
bucket's end, START + (k + 1) * WIDTH. The latency of bucket k is the engine time at which
its DATA event reached the watcher minus that end. Engine time on the watcher's clock: the
engine's STATUS NOW (engine started with --live-clock, so NOW is its clock) against the wall
clock at its reply, the smallest offset of several (the error is then at most the best
round trip, well under a millisecond on loopback). Every process runs on this machine, so
there is one clock.

Usage: bench/relay_latency_bench.py [--seconds S] [--levels 0 1 2] [--flush-ms MS]
PERFDM / PERFDM_WORKLOAD: the binaries (default build/perfdm, build/examples/perfdm_workload).
Results: bench/RESULTS.md.
"""
import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PERFDM = os.environ.get("PERFDM", os.path.join(ROOT, "build", "perfdm"))
WORKLOAD = os.environ.get("PERFDM_WORKLOAD", os.path.join(ROOT, "build", "examples", "perfdm_workload"))


def wait_for(path, pattern, timeout=20.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open(path) as f:
                m = re.search(pattern, f.read())
            if m:
                return m
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    raise RuntimeError("no %r in %s: %s" % (pattern, path, open(path).read() if os.path.exists(path) else ""))


class Run:
    """One engine, `levels` relays in a chain, one daemon at the bottom, one watcher."""

    def __init__(self, levels, flush_ms, tmp):
        self.procs = []
        self.tmp = tmp
        err = os.path.join(tmp, "engine.err")
        # --live-clock: STATUS NOW is then the engine's clock (otherwise the latest sample's end).
        self.spawn([PERFDM, "engine", "--live-clock", "--publish", "127.0.0.1:0", "--listen",
                    "127.0.0.1:0"], err, stdin=subprocess.DEVNULL)
        port = wait_for(err, r"publishing on 127\.0\.0\.1:(\d+)\n").group(1)
        self.listen = wait_for(err, r"listening on 127\.0\.0\.1:(\d+)\n").group(1)
        self.engine = "127.0.0.1:" + port
        upstream = self.engine
        for level in range(levels):
            err = os.path.join(tmp, "relay%d.err" % level)
            self.spawn([PERFDM, "relay", "--upstream", upstream, "--publish", "127.0.0.1:0",
                        "--name", "relay%d" % level, "--flush-ms", str(flush_ms)], err)
            upstream = "127.0.0.1:" + wait_for(err, r"publishing on 127\.0\.0\.1:(\d+)\n").group(1)
        work = subprocess.Popen([WORKLOAD, "0"], stdout=subprocess.PIPE, text=True)
        self.procs.append(work)
        work.stdout.readline()  # its pid: it runs its own code now
        err = os.path.join(tmp, "daemon.err")
        self.spawn([PERFDM, "daemon", "--upstream", upstream, "--name", "node",
                    "--flush-ms", str(flush_ms), "--attach", str(work.pid)], err)
        wait_for(err, r"forwarding to")
        self.lines = []  # (wall time, message)
        self.sock = socket.create_connection(("127.0.0.1", int(self.listen)))
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def spawn(self, argv, err, stdin=None):
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=open(err, "w"), stdin=stdin)
        self.procs.append(p)
        return p

    def read(self):
        # Messages end with a line ENDDYPERMSG (events) or ENDDYPERREPLY (replies).
        buf = b""
        message = []
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            now = time.time()
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                text = line.decode().rstrip("\r")
                if text in ("ENDDYPERMSG", "ENDDYPERREPLY"):
                    self.lines.append((now, "\n".join(message)))
                    message = []
                else:
                    message.append(text)

    def ask(self, request):
        self.sock.sendall((request + "\nENDDYPERMSG\n").encode())

    def close(self):
        self.sock.close()
        for p in reversed(self.procs):
            if p.poll() is None:
                p.kill()
            p.wait()


def measure(levels, seconds, flush_ms):
    with tempfile.TemporaryDirectory(prefix="perfdm_latency.") as tmp:
        run = Run(levels, flush_ms, tmp)
        try:
            time.sleep(1.0)  # the attach defines work.requests upstream
            run.ask("<DYPER PID='DM' COMMAND='STREAM'/>")
            run.ask("<DYPER PID='DM' COMMAND='ENABLE'><ENABLE STREAM='0' METRIC='work.requests'/></DYPER>")
            end = time.time() + seconds
            while time.time() < end:
                run.ask("<DYPER PID='DM' COMMAND='STATUS'/>")
                time.sleep(0.5)
            run.ask("<DYPER PID='DM' COMMAND='DATA'><DATA MI='0'/></DYPER>")
            time.sleep(1.0)
        finally:
            run.close()
        lines = list(run.lines)
    offsets = []  # wall time - engine time, at each STATUS reply
    start = width = None
    for t, line in lines:
        m = re.search(r"<STATUS NOW='([^']+)'", line)
        if m:
            offsets.append(t - float(m.group(1)))
        m = re.search(r"<HISTOGRAM MI='0' START='([^']+)' WIDTH='([^']+)'", line)
        if m:
            start, width = float(m.group(1)), float(m.group(2))
        if "FOLD=" in line:
            raise RuntimeError("a fold during the run: use fewer --seconds")
    if not offsets or width is None:
        raise RuntimeError("no STATUS or HISTOGRAM in the watcher's output")
    origin = min(offsets)  # the engine's time 0 on the wall clock, at the best round trip
    # Buckets that ended before the MI existed come at once with its first event (no data,
    # VALUE -1): only buckets that began after the ENABLE's reply count.
    enabled = next(t for t, line in lines if "<MI ID='0'" in line) - origin
    latencies = []
    for t, line in lines:
        if "<DYPER DATA=" not in line:
            continue
        for k in re.findall(r"<V MI='0' PHASE='GLOBAL' BUCKET='(\d+)'", line):
            bucket_end = start + (int(k) + 1) * width
            if bucket_end - width >= enabled:
                latencies.append((t - origin) - bucket_end)
    if len(latencies) < 10:
        raise RuntimeError("too few DATA values: %d" % len(latencies))
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(round(0.95 * (len(latencies) - 1))))]
    return len(latencies), statistics.median(latencies), p95


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--levels", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--flush-ms", type=int, default=5)
    a = ap.parse_args()
    print("%-6s %-8s %-11s %-11s %-16s %s" % ("levels", "buckets", "median ms", "p95 ms",
                                             "median / level 0", "median added per level ms"))
    base = None
    for levels in a.levels:
        n, med, p95 = measure(levels, a.seconds, a.flush_ms)
        if base is None:
            base = med
        per_level = "" if levels == 0 else "%.1f" % (1000 * (med - base) / levels)
        ratio = "%.2f" % (med / base) if base > 0 else "n/a"
        print("%-6d %-8d %-11.1f %-11.1f %-16s %s" % (levels, n, 1000 * med, 1000 * p95, ratio,
                                                      per_level))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
