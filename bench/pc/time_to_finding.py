#!/usr/bin/env python3
"""Time to the first finding line of `perfdm search -- CMD` against `perf record -g` for 5 s
plus `perf report`, in alternating runs on the same machine (bench/RESULTS.md).

usage: bench/pc/time_to_finding.py BUILD_DIR [ROUNDS] [SUFFICIENT_TIME]

For each workload (pc_cpu, pc_lock) and round: perfdm search starts the workload itself; the
clock runs from the launch of perfdm to the line printed (wall time read here, as the user
sees it): the first finding line, and the first one naming the expected function. Then
perf record -e cpu-clock -F 999 -g -- WORKLOAD (the workload told to run 5 s) followed by
perf report --stdio --no-children --sort sym; the clock runs from the launch of perf record
to the end of perf report, whose first symbol line is its answer.
"""
import re
import signal
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
sufficient = sys.argv[3] if len(sys.argv) > 3 else None

workloads = {
    "pc_cpu": "tokenize",
    "pc_lock": "update_shared_table",
}
finding_re = re.compile(r"^\[ *[0-9.]+ s\] (\S+ .*)$")


def perfdm_run(workload, expected):
    cmd = [f"{build}/perfdm", "search", "--seconds", "40"]
    if sufficient:
        cmd += ["--sufficient-time", sufficient]
    cmd += ["--", f"{build}/examples/{workload}", "60"]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first = right = None
    first_line = right_line = ""
    for line in p.stdout:
        m = finding_re.match(line.rstrip("\n"))
        if not m:
            continue
        t = time.monotonic() - t0
        if first is None:
            first, first_line = t, m.group(1)
        if expected in line:
            right, right_line = t, m.group(1)
            break
        if t > 35:
            break
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=30)
    return first, first_line, right, right_line


def perf_run(workload):
    with tempfile.NamedTemporaryFile(suffix=".data") as data:
        t0 = time.monotonic()
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-g", "-o",
                        data.name, "--", f"{build}/examples/{workload}", "5"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        report = subprocess.run(["perf", "report", "--stdio", "--no-children", "--sort", "sym",
                                 "-i", data.name], capture_output=True, text=True, check=True)
        t = time.monotonic() - t0
    top = next((l.strip() for l in report.stdout.splitlines()
                if re.match(r"^\s+[0-9.]+%", l)), "")
    return t, top


for r in range(rounds):
    for workload, expected in workloads.items():
        first, first_line, right, right_line = perfdm_run(workload, expected)
        perf_t, perf_top = perf_run(workload)
        fmt = lambda x: "none" if x is None else f"{x:.1f}"
        print(f"round {r + 1} {workload}: perfdm first finding {fmt(first)} s ({first_line}); "
              f"right function {fmt(right)} s ({right_line}); perf {perf_t:.1f} s ({perf_top})",
              flush=True)
