// `--folded OUT` and `--pprof OUT.pb.gz` (with `--view`) of `perfdm log` and `perfdm search`:
// the call paths of a log's native module, or of a live engine's watched process, written as
// folded stacks or a gzipped pprof profile (profile/profile_files.hpp, docs/FLAME.md §4).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "messages/flame_messages.hpp"
#include "profile/profile_files.hpp"

namespace perfdm {

struct profile_export_options {
  std::string folded;        // write folded stacks here
  std::string pprof;         // write a gzipped pprof profile here
  std::string view = "cpu";  // the states written: cpu, offcpu, lock, io, sleep, other, all
  bool wanted() const { return !folded.empty() || !pprof.empty(); }
};

void add_profile_export_options(CLI::App* sub, profile_export_options& o);

// The call paths of the log's native module (records `stack PID PHASE STATE PATH`). Throws
// log_error as `perfdm log` reports it.
std::vector<profile::counted_stack> log_stacks(const std::string& file);

std::vector<profile::counted_stack> export_stacks(const flame_export& x);

// Writes the files asked for, of the stacks in the view; says what it wrote (or why not) on
// `err` as "`who`: …". 0, or 1 when a file could not be written or there was nothing to write.
int write_profile_exports(const profile_export_options& o,
                          const std::vector<profile::counted_stack>& stacks, std::ostream& err,
                          const std::string& who);

// `perfdm log FILE --folded/--pprof`: errors as "perfdm log: FILE: problem"; 0 or 1.
int run_log_profile_export(const std::string& file, const profile_export_options& o,
                           std::ostream& err);

}  // namespace perfdm
