#!/usr/bin/env python3
"""Time to the right finding of `perfdm search -- CMD` against `perf record -g` for 5 s plus
`perf report`, in alternating runs on the same machine (bench/RESULTS.md).

usage: bench/pc/time_to_finding.py BUILD_DIR [ROUNDS] [WORKLOAD...]

Workloads: pc_cpu, pc_lock, pc_tiny_writes (examples/pc), xz (xz -6 -T1 on 24 MB of text),
sqlite3 (one fsync'ed insert per transaction, its database under BUILD_DIR so that fsync
reaches a disk), python_gil (four CPU-bound Python threads). For each workload and round:
perfdm search starts the workload itself; the clock runs from perfdm's launch to the finding
line (wall time read here, as the user sees it): the first finding line, and the first one
that names the expected thing (the function, the file or the lock kind). Then perf record
-e cpu-clock -F 999 -g -- timeout 5 CMD, followed by perf report --stdio --no-children
--sort sym; the clock runs from the launch of perf record to the end of perf report, whose
first symbol line is its answer.
"""
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
chosen = sys.argv[3:]
work = tempfile.mkdtemp(prefix="perfdm-ttf-")
disk = tempfile.mkdtemp(prefix="perfdm-ttf-", dir=os.path.abspath(build))


def xz_input():
    path = os.path.join(work, "input.txt")
    words = ("performance consultant hypothesis focus resource metric instance sample stack "
             "thread mutex file lzma xz search").split()
    r = random.Random(24)
    with open(path, "w") as f:
        n = 0
        while n < 24 << 20:
            line = " ".join(f"{r.choice(words)} {r.randrange(1000)}" for _ in range(12)) + "\n"
            f.write(line)
            n += len(line)
    return path


def sqlite_script():
    path = os.path.join(work, "inserts.sql")
    with open(path, "w") as f:
        f.write("PRAGMA synchronous=FULL;\nCREATE TABLE t(x INTEGER, y TEXT);\n")
        for i in range(40000):
            f.write(f"INSERT INTO t VALUES({i}, 'row {i}');\n")
    return path


GIL = ("import threading\n"
       "def work():\n"
       "    while True:\n"
       "        sum(i * i for i in range(1000))\n"
       "for _ in range(4):\n"
       "    threading.Thread(target=work).start()\n")

# name -> (command as a shell line, what the right finding names)
workloads = {
    "pc_cpu": (f"{build}/examples/pc_cpu 60", r"in tokenize \(pc_cpu\)"),
    "pc_lock": (f"{build}/examples/pc_lock 60", r"update_shared_table .*on Mutex/0x"),
    "pc_tiny_writes": (f"{build}/examples/pc_tiny_writes 60", r"write_log"),
    "xz": (None, r"CPUbound .*liblzma"),
    "sqlite3": (None, r"(TooManySmallIOOps|ExcessiveIOBlockingTime) .*file .*t\.db"),
    "python_gil": (f"python3 -c '{GIL}'", r"ExcessiveSyncWaitingTime .*on CondVar/0x"),
}
finding_re = re.compile(r"^\[ *[0-9.]+ s\] (\S+ .*)$")


def command(name):
    if name == "xz":
        return f"xz -6 -T1 -c {xz_path} > /dev/null"
    if name == "sqlite3":
        db = os.path.join(disk, "t.db")
        for suffix in ("", "-journal"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        return f"sqlite3 {db} < {sql_path}"
    return workloads[name][0]


def perfdm_run(name):
    expected = re.compile(workloads[name][1])
    cmd = [f"{build}/perfdm", "search", "--seconds", "20", "--", "sh", "-c",
           "exec " + command(name)]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         start_new_session=True)
    first = right = None
    right_line = ""
    for line in p.stdout:
        m = finding_re.match(line.rstrip("\n"))
        if not m:
            continue
        t = time.monotonic() - t0
        if first is None:
            first = t
        if expected.search(line):
            right, right_line = t, m.group(1)
            break
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
    return first, right, right_line


def perf_run(name):
    with tempfile.NamedTemporaryFile(suffix=".data") as data:
        t0 = time.monotonic()
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-g", "-o",
                        data.name, "--", "timeout", "-s", "INT", "5", "sh", "-c",
                        "exec " + command(name)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        report = subprocess.run(["perf", "report", "--stdio", "--no-children", "--sort", "sym",
                                 "-i", data.name], capture_output=True, text=True)
        t = time.monotonic() - t0
    top = next((l.strip() for l in report.stdout.splitlines()
                if re.match(r"^\s+[0-9.]+%", l)), "")
    return t, top


xz_path = xz_input()
sql_path = sqlite_script()
fmt = lambda x: "none" if x is None else f"{x:.1f}"
for r in range(rounds):
    for name in chosen or workloads:
        first, right, right_line = perfdm_run(name)
        perf_t, perf_top = perf_run(name)
        load = open("/proc/loadavg").read().split()[0]
        ratio = "-" if right is None else f"{right / perf_t:.2f}"
        print(f"round {r + 1} {name}: perfdm first {fmt(first)} s, right {fmt(right)} s "
              f"({right_line}); perf {perf_t:.1f} s ({perf_top}); perfdm/perf {ratio}; "
              f"load {load}", flush=True)
subprocess.run(["rm", "-rf", work, disk])
