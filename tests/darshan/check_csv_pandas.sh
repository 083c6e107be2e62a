#!/usr/bin/env bash
# check_csv_pandas.sh PERFDM WRITE_TEST_LOG TESTS_DIR: perfdm log --csv DIR, read back with
# Debian's pandas (python3-pandas): the frames PyDarshan's to_df() gives, counters of older
# record versions converted (-1 where a version lacks one). Exit 77 (ctest: skipped) without
# pandas.
set -euo pipefail
perfdm=$1 writer=$2 tests=$3
py=/usr/bin/python3
if ! "$py" -c 'import pandas' 2>/dev/null; then
  echo "SKIPPED: no pandas for $py (Debian's python3-pandas, scripts/setup.sh)"
  exit 77
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$writer" "$work/g.darshan" 3.41 bzip2 swapped
"$perfdm" log "$work/g.darshan" --csv "$work/new"
"$perfdm" log "$tests/darshan/logs/mpi-io-test-x86_64-3.0.0.darshan" --csv "$work/old"
"$perfdm" log --show-incomplete "$tests/darshan/logs/partial_data_stdio.darshan" --csv "$work/stdio"
exec "$py" - "$work" <<'PY'
import sys
import pandas as pd
work = sys.argv[1]

posix = pd.read_csv(f"{work}/new/POSIX.csv")
assert list(posix.columns[:3]) == ["rank", "id", "POSIX_OPENS"], posix.columns[:3]
assert len(posix.columns) == 2 + 69 + 17 + 1 and posix.columns[-1] == "filename"
# PyDarshan's two frames are the columns before and after the first float counter.
counters = posix.loc[:, "rank":"POSIX_SLOWEST_RANK_BYTES"]
fcounters = posix[["rank", "id"] + [c for c in posix.columns if c.startswith("POSIX_F_")]]
assert counters.shape == (2, 71) and fcounters.shape == (2, 19)
row = posix.set_index("filename").loc["/scratch/run/out.dat"]
assert row["id"] == 1078948942690381235 and row["rank"] == 0
assert row["POSIX_OPENS"] == 1000 and row["POSIX_SLOWEST_RANK_BYTES"] == 1068
assert row["POSIX_F_META_TIME"] == 1 + 10 / 8
assert posix["POSIX_BYTES_READ"].sum() == 1014 + 2014

dxt = pd.read_csv(f"{work}/new/DXT_POSIX.csv")
assert len(dxt) == 6 and set(dxt["operation"]) == {"write", "read"}
assert dxt["length"].sum() == 6 * 4096
heat = pd.read_csv(f"{work}/new/HEATMAP.csv")
assert heat["id"].dtype == "uint64" and heat["id"].iloc[0] == 16592106915301738621
assert heat.groupby("rank")["read_bytes"].sum().to_dict() == {0: 453, 1: 753}
lustre = pd.read_csv(f"{work}/new/LUSTRE.csv", dtype={"ost_ids": str})
assert list(lustre["ost_ids"]) == ["5 6", "9", "5 6", "9"]

# A 3.0.0 log (POSIX version 1): the current counters, -1 where version 1 has none.
old = pd.read_csv(f"{work}/old/POSIX.csv")
assert (old["POSIX_FILENOS"] == -1).all() and (old["POSIX_RENAMED_FROM"] == 0).all()
assert "POSIX_FOPENS" not in old.columns
assert old["POSIX_F_OPEN_START_TIMESTAMP"].iloc[0] > 0

stdio = pd.read_csv(f"{work}/stdio/STDIO.csv")
assert len(stdio) > 1000 and stdio["filename"].notna().all()
print(f"pandas read {len(posix)} POSIX, {len(dxt)} DXT, {len(stdio)} STDIO rows as "
      "PyDarshan's frames")
PY
