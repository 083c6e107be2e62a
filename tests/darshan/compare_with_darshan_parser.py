#!/usr/bin/env python3
"""Compares `perfdm log` with darshan-parser (or darshan-dxt-parser) on one log.

usage: compare_with_darshan_parser.py [--dxt] [--swapped] [--any-region-sizes] EXPECTED ACTUAL
EXPECTED: darshan-parser's output (.gz or .xz allowed), ACTUAL: perfdm's.
--swapped: the log has the other byte order.
darshan-util 3.5.0 misreads a few counters (DEFECTS below): converting POSIX records of
versions 2 and 3 it loses the last 4 and 2 float counters (it shows 0); of a log of the
other byte order it leaves POSIX_F_META_TIME, POSIX_F_MAX_READ_TIME and
POSIX_F_MAX_WRITE_TIME of POSIX records before version 4 unswapped, and adds PnetCDF's
independent and collective opens of versions 1-2 before swapping them; darshan-dxt-parser
leaves the thread ids of such logs unswapped. Those counters, and the figures derived from
them, are reported, not compared.
--any-region-sizes: the compressed sizes of the regions may differ (another compression or
  byte order of the same log).

Every counter darshan-parser prints must be printed by perfdm with the same value, rank,
record id, file name, mount point and file system type. perfdm prints each record with the
counter names of its version; darshan-parser converts older records to the current counters
and shows the counters a version lacks as -1 (those are reported, not failures, when the
module's record version in this log is older than the current one). The job header, the
region sizes, the mount table and the --total, --file and --perf figures must be equal too.
Comment text is not compared. Exit status 0 when everything is equal.
"""
import gzip
import lzma
import re
import sys
from collections import defaultdict, deque

CURRENT = {"POSIX": 4, "MPI-IO": 3, "H5F": 3, "H5D": 2, "PNETCDF_FILE": 3,
           "PNETCDF_VAR": 1, "BG/Q": 2, "LUSTRE": 2, "STDIO": 2, "HEATMAP": 1,
           "DXT_POSIX": 2, "DXT_MPIIO": 3}
MODULE = {"HDF5": "H5F", "PNETCDF": "PNETCDF_FILE"}
COUNTER = {
    "POSIX_F_OPEN_TIMESTAMP": "POSIX_F_OPEN_START_TIMESTAMP",
    "POSIX_F_CLOSE_TIMESTAMP": "POSIX_F_CLOSE_END_TIMESTAMP",
    "MPIIO_F_OPEN_TIMESTAMP": "MPIIO_F_OPEN_START_TIMESTAMP",
    "MPIIO_F_CLOSE_TIMESTAMP": "MPIIO_F_CLOSE_END_TIMESTAMP",
    "HDF5_OPENS": "H5F_OPENS",
    "HDF5_F_OPEN_TIMESTAMP": "H5F_F_OPEN_START_TIMESTAMP",
    "HDF5_F_CLOSE_TIMESTAMP": "H5F_F_CLOSE_END_TIMESTAMP",
    "PNETCDF_F_OPEN_TIMESTAMP": "PNETCDF_FILE_F_OPEN_START_TIMESTAMP",
    "PNETCDF_F_CLOSE_TIMESTAMP": "PNETCDF_FILE_F_CLOSE_END_TIMESTAMP",
    "PNETCDF_F_OPEN_START_TIMESTAMP": "PNETCDF_FILE_F_OPEN_START_TIMESTAMP",
    "PNETCDF_F_CLOSE_START_TIMESTAMP": "PNETCDF_FILE_F_CLOSE_START_TIMESTAMP",
    "PNETCDF_F_OPEN_END_TIMESTAMP": "PNETCDF_FILE_F_OPEN_END_TIMESTAMP",
    "PNETCDF_F_CLOSE_END_TIMESTAMP": "PNETCDF_FILE_F_CLOSE_END_TIMESTAMP",
    "LUSTRE_STRIPE_SIZE": "LUSTRE_COMP1_STRIPE_SIZE",
    "LUSTRE_STRIPE_WIDTH": "LUSTRE_COMP1_STRIPE_COUNT",
}
# Counters of older record versions that the current version dropped or merged.
OLD_ONLY = {"POSIX_FOPENS", "POSIX_FREADS", "POSIX_FWRITES", "POSIX_FSEEKS", "LUSTRE_OSTS",
            "LUSTRE_MDTS", "LUSTRE_STRIPE_OFFSET"}
# Kept as is (the header line is the header's true size in perfdm's output).
HEADER_KEYS = ("# darshan log version:", "# compression method:", "# exe:", "# uid:",
               "# jobid:", "# start_time:", "# start_time_asci:", "# end_time:",
               "# end_time_asci:", "# nprocs:", "# run time:", "# metadata:", "# job data:",
               "# record table:", "# mount entry:")
DERIVED = re.compile(r"^# (total|read_only|write_only|read_write|unique|shared|total_bytes|"
                     r"unique files|shared files|agg_time_by_slowest|agg_perf_by_slowest)")
REGION = re.compile(r"^# (\S+) module: (\d+) bytes \(compressed\), ver=(\d+)$")


def read(path):
    opener = gzip.open if path.endswith(".gz") else lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        return f.read().splitlines()


def counter_name(name):
    name = COUNTER.get(name, name)
    m = re.match(r"^LUSTRE_OST_ID_(\d+)$", name)
    return "LUSTRE_COMP1_OST_ID_" + m.group(1) if m else name


def parse(lines, perfdm):
    header, regions, data, totals, derived = [], {}, [], [], []
    for line in lines:
        if line.startswith("#"):
            m = REGION.match(line)
            if m:
                mod = MODULE.get(m.group(1), m.group(1))
                regions[mod] = (m.group(2), int(m.group(3)))
            elif line.startswith(HEADER_KEYS):
                header.append(line)
            elif DERIVED.match(line):
                derived.append(line)
            continue
        if line.startswith("total_"):
            name, _, value = line[len("total_"):].partition(": ")
            totals.append((counter_name(name) if perfdm else name, value))
            continue
        f = line.split("\t")
        if len(f) != 8:
            continue
        mod = MODULE.get(f[0], f[0]) if perfdm else f[0]
        data.append((mod, f[1], f[2], counter_name(f[3]) if perfdm else f[3], f[4], tuple(f[5:])))
    return header, regions, data, totals, derived


# darshan-util's misreadings: (module, counter, record versions, only in the other byte order).
DEFECTS = [("POSIX", "POSIX_F_FASTEST_RANK_TIME", {2}, False),
           ("POSIX", "POSIX_F_SLOWEST_RANK_TIME", {2}, False),
           ("POSIX", "POSIX_F_VARIANCE_RANK_TIME", {2, 3}, False),
           ("POSIX", "POSIX_F_VARIANCE_RANK_BYTES", {2, 3}, False),
           ("POSIX", "POSIX_F_META_TIME", {1, 2, 3}, True),
           ("POSIX", "POSIX_F_MAX_READ_TIME", {1, 2, 3}, True),
           ("POSIX", "POSIX_F_MAX_WRITE_TIME", {1, 2, 3}, True),
           ("PNETCDF_FILE", "PNETCDF_FILE_OPENS", {1, 2}, True)]


def compare_parser(expected, actual, swapped=False, any_sizes=False):
    eh, er, ed, et, ederived = parse(expected, False)
    ah, ar, ad, at, aderived = parse(actual, True)
    problems = []
    if any_sizes:
        eh = [l for l in eh if not l.startswith(("# job data:", "# record table:"))]
        ah = [l for l in ah if not l.startswith(("# job data:", "# record table:"))]
    if eh != ah:
        for x, y in zip(eh + [""] * len(ah), ah + [""] * len(eh)):
            if x != y:
                problems.append(f"header: darshan-parser {x!r}, perfdm {y!r}")
                break
    for mod, (size, ver) in er.items():
        got = ar.get(mod)
        if got is None or got[1] != ver or (got[0] != size and not any_sizes):
            problems.append(f"region {mod}: darshan-parser {size} bytes ver={ver}, perfdm {got}")
    old = {mod for mod, (_, ver) in er.items() if ver < CURRENT.get(mod, ver)}
    misread = {(m, c) for m, c, versions, only_swapped in DEFECTS
               if m in er and er[m][1] in versions and (swapped or not only_swapped)}
    defects = 0

    equal = absent = old_only = 0
    index = defaultdict(deque)
    for mod, rank, rid, counter, value, rest in ad:
        index[(mod, rank, rid, counter)].append((value, rest))
    for mod, rank, rid, counter, value, rest in ed:
        key = (mod, rank, rid, counter)
        if index[key]:
            v, r = index[key].popleft()
            if (v, r) == (value, rest):
                equal += 1
            elif (mod, counter) in misread:
                defects += 1
            else:
                problems.append(f"{mod} rank {rank} record {rid} {counter}: darshan-parser "
                                f"{value} {rest}, perfdm {v} {r}")
        elif mod == "PNETCDF_FILE" and counter == "PNETCDF_FILE_OPENS" and \
                index[(mod, rank, rid, "PNETCDF_INDEP_OPENS")]:
            indep = int(index[(mod, rank, rid, "PNETCDF_INDEP_OPENS")].popleft()[0])
            coll = int(index[(mod, rank, rid, "PNETCDF_COLL_OPENS")].popleft()[0])
            if indep + coll == int(value):
                equal += 1
            elif (mod, counter) in misread:
                defects += 1
            else:
                problems.append(f"{key}: darshan-parser {value}, perfdm {indep} + {coll}")
        elif mod in old:
            absent += 1
        else:
            problems.append(f"{mod} rank {rank} record {rid} {counter} = {value}: not in perfdm's output")
    for key, left in index.items():
        for value, rest in left:
            if key[3] in OLD_ONLY or key[3] in ("LUSTRE_NUM_COMPONENTS", "LUSTRE_NUM_STRIPES"):
                old_only += 1
            else:
                problems.append(f"{key}: {value} printed by perfdm only")

    tindex = defaultdict(deque)
    for name, value in at:
        tindex[name].append(value)
    for name, value in et:
        if tindex[name]:
            v = tindex[name].popleft()
            if v == value:
                equal += 1
            elif any(name == c for _, c in misread):
                defects += 1
            else:
                problems.append(f"total_{name}: darshan-parser {value}, perfdm {v}")
        elif any(name.startswith(p) for p in ("POSIX_", "MPIIO_", "STDIO_")) and old:
            absent += 1
        else:
            problems.append(f"total_{name}: not in perfdm's output")
    if ederived != aderived and misread:
        defects += sum(1 for x, y in zip(ederived, aderived) if x != y)
    elif ederived != aderived:
        for x, y in zip(ederived + [""] * len(aderived), aderived + [""] * len(ederived)):
            if x != y:
                problems.append(f"--file/--perf: darshan-parser {x!r}, perfdm {y!r}")
                break
    equal += len(ederived) if ederived == aderived else 0
    return equal, absent, old_only, defects, problems


def compare_dxt(expected, actual, any_sizes=False, swapped=False):
    sizes = ("# job data:", "# record table:")
    def keep(lines):
        out = []
        for l in lines:
            # Comment text (warnings, notes) and the header's size are not compared.
            if l.startswith(("# header:", "# note:", "# WARNING:", "#          ")) or \
                    (any_sizes and l.startswith(sizes)):
                continue
            if swapped and l.startswith(" X_"):
                l = l.rsplit(" ", 1)[0]  # the thread id darshan-dxt-parser does not swap
            if any_sizes and REGION.match(l):
                l = re.sub(r": \d+ bytes", ": N bytes", l)
            out.append(l)
        return out
    e, a = keep(expected), keep(actual)
    problems = []
    for i, (x, y) in enumerate(zip(e, a)):
        if x != y:
            problems.append(f"line {i + 1}: darshan-dxt-parser {x!r}, perfdm {y!r}")
            break
    if len(e) != len(a):
        problems.append(f"darshan-dxt-parser printed {len(e)} lines, perfdm {len(a)}")
    segments = sum(1 for l in e if l.startswith(" X_"))
    return segments, problems


def main():
    args = sys.argv[1:]
    dxt = "--dxt" in args
    swapped = "--swapped" in args
    any_sizes = "--any-region-sizes" in args
    args = [a for a in args if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    expected, actual = read(args[0]), read(args[1])
    if dxt:
        segments, problems = compare_dxt(expected, actual, any_sizes, swapped)
        summary = f"{segments} DXT segments, every line equal"
    else:
        equal, absent, old_only, defects, problems = compare_parser(expected, actual, swapped,
                                                                    any_sizes)
        summary = (f"{equal} counters and figures equal; {absent} shown by darshan-parser only "
                   f"(counters this log's record versions lack); {old_only} printed by perfdm "
                   f"only (counters of older record versions)")
        if defects:
            summary += f"; {defects} misread by darshan-util (its known defects)"
    for p in problems[:20]:
        print("DIFFERENT: " + p)
    if problems:
        print(f"{len(problems)} differences")
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
