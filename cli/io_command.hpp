// `perfdm io -- CMD [ARGS…]` (docs/IO.md): runs a program with perfdm's I/O library preloaded
// in it and in every process it starts, then reduces every process's counters into one log
// (-o) and prints a one-screen summary of the run's I/O. `perfdm io --library` prints the
// library's path, for LD_PRELOAD=$(perfdm io --library) without perfdm io.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace perfdm {

struct io_command_options {
  std::vector<std::string> command;  // after --
  std::string output;                // -o: the log (a directory: the default name inside)
  std::string summary;               // --summary FILE: the summary there instead of stderr
  std::string darshan_log;           // --darshan-log FILE: the log in Darshan's format too
  bool json = false;                 // the summary as JSON
  bool library = false;              // --library: print the library's path
  bool quiet = false;                // no summary
  std::size_t top = 5;
  bool trace = false;                // --trace: the per-call trace (DXT)
  bool darshan_only = false;         // --darshan-only: count only what Darshan 3.5.0 sees
  std::vector<std::string> exclude;  // --exclude REGEX
  std::vector<std::string> include;  // --include REGEX
  bool no_default_excludes = false;
  std::uint64_t max_records = 0;    // 0: the library's default
  std::uint64_t mem_alignment = 0;  // 0: the library's default (8)
  std::string compression = "zlib";
};

CLI::App* add_io_command(CLI::App& app, io_command_options& options);

// The preloaded library's path: next to an installed perfdm (<prefix>/lib/perfdm/), else the
// build tree's. Empty when neither exists.
std::string io_library_path();

// The program's exit code (128 + signal); 127 when it cannot be started, 126 when it cannot
// be run; 1 when the log cannot be written (the reason on `err`).
int run_io_command(const io_command_options& options, std::ostream& out, std::ostream& err);

}  // namespace perfdm
