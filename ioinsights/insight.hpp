// What to fix in a job's I/O: Drishti's insights (github.com/hpc-io/drishti-io,
// drishti/includes/module.py), with its codes and thresholds (thresholds.hpp), each said in
// one line with its evidence (which files, how many operations, what share of the I/O time)
// and ranked by the I/O time at stake.
#pragma once

#include <string>
#include <vector>

#include "ioinsights/thresholds.hpp"
#include "iosummary/job_summary.hpp"

namespace perfdm::ioinsights {

// Drishti's levels: a problem (high), a possible problem (warn), a fact (info), a good
// practice seen (ok).
enum class level { high, warn, info, ok };
const char* level_name(level l);  // "high", "warn", "info", "ok"

// One file of an insight's evidence.
struct evidence {
  std::string file;
  double count = 0;    // operations (or bytes, see unit)
  double share = 0;    // of the file's operations (or bytes), 0..1
  double seconds = 0;  // its I/O time at stake
};

struct insight {
  std::string code;    // Drishti's: S01, P05, M02...
  level severity = level::info;
  std::string line;    // what to fix and the evidence, in one line
  std::string fix;     // the recommendation alone
  double seconds = 0;  // I/O time at stake (summed over processes)
  double share = 0;    // of the job's I/O time, 0..1
  double count = 0;    // the operations (or files, or ranks) concerned
  std::string unit;    // what count counts: "operations", "files", "ranks", "bytes"
  std::vector<evidence> files;
};

// The insights of a job, problems first and by time at stake, then the facts and good
// practices. Drishti's M08-M10 (MPI-IO aggregators against the job's compute nodes) need the
// node count from the batch system, which a log does not hold: they are not given.
std::vector<insight> find_insights(const iosummary::job_summary& job, const thresholds& t = {});

}  // namespace perfdm::ioinsights
