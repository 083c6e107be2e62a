// The I/O modules of a perfdm log read back whole: the job record, the names, the POSIX,
// STDIO and MPI-IO records, the heatmaps and traces, and which modules are partial. For the
// summary `perfdm io` prints and for tests; `perfdm log` streams instead.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "log/log_format.hpp"
#include "log/log_io_records.hpp"

namespace perfdm::io {

struct io_log_contents {
  job_record job;
  std::unordered_map<std::uint64_t, std::string> names;
  std::vector<log_posix_record> posix;
  std::vector<log_stdio_record> stdio;
  std::vector<log_mpiio_record> mpiio;
  std::vector<log_heatmap_record> heatmaps;
  std::vector<log_trace_record> traces;        // DXT_POSIX
  std::vector<log_trace_record> mpiio_traces;  // DXT_MPIIO
  bool posix_partial = false;
  bool stdio_partial = false;
  bool mpiio_partial = false;
  bool trace_partial = false;  // either trace
  bool names_partial = false;

  const std::string& name(std::uint64_t id) const;
  // The metadata value of `key` ("" when absent; the first when repeated).
  std::string metadata(const std::string& key) const;
};

// Throws log_error when the log cannot be read.
io_log_contents read_io_log(const std::string& path);

}  // namespace perfdm::io
