// A perfdm io log (docs/IO.md) as a Darshan log (format 3.41, darshan/darshan_log_writer.hpp):
// the job (command line, times, process count, mount table), the name records, and the POSIX,
// STDIO, HEATMAP and DXT_POSIX modules in Darshan's own record bytes (perfdm's extra POSIX
// counters are left out: Darshan's record has no place for them). darshan-parser, PyDarshan and
// `perfdm log` (darshan-parser's layout, --total, --perf, --file) then read it as any Darshan
// log.
#pragma once

#include <string>
#include <vector>

namespace perfdm {

// True when the perfdm log at `path` has any I/O module (posix, stdio, heatmap, dxt_posix).
bool has_io_modules(const std::string& path);

// Writes the I/O modules of the perfdm log at `perfdm_log` to `darshan_log`; only `modules`
// (perfdm's module names or Darshan's: posix, stdio, mpiio/mpi-io, heatmap, dxt_posix; any
// case) when not empty. Throws log_error when the perfdm log cannot be read or has no I/O
// module, darshan::darshan_error when the Darshan log cannot be written.
void write_io_log_as_darshan(const std::string& perfdm_log, const std::string& darshan_log,
                             const std::vector<std::string>& modules = {});

}  // namespace perfdm
