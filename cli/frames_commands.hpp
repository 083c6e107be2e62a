// `perfdm gen SCHEMA -o DIR` (writes the generated component) and `perfdm read SEGMENT`
// (prints a segment's frames as text rows), docs/FRAMES.md. main.cpp adds them to its app
// and, after parsing, runs the one chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <iosfwd>
#include <string>

namespace perfdm {

// Adds the `gen` and `read` subcommands to `app`.
void add_frames_commands(CLI::App& app);

// Runs the frames subcommand chosen on the command line: its exit code, or -1 when the
// command line chose another subcommand.
int run_frames_commands();

struct gen_command_options {
  std::string schema;         // SCHEMA
  std::string out_dir = ".";  // -o DIR
  std::string clock = "tsc";  // --clock tsc|reader (shm::writer_clock)
};
int run_gen_command(const gen_command_options& o, std::ostream& err);

struct read_command_options {
  std::string segment;      // SEGMENT: perfdm.<pid>.<handle>, or /dev/shm/perfdm.<pid>.<handle>
  int pid = 0;              // --pid: stop once this process has exited and the ring is drained
  std::string trace_event;  // --trace-event OUT.json: a Chrome trace instead of rows
};
// Prints a header line, then one tab-separated row per frame (seq, time_ns, lane, fields)
// to `out` until SIGINT or SIGTERM, or with a pid until that process is gone; then
// "frames read N, lost N, torn N" to `err`.
int run_read_command(const read_command_options& o, std::FILE* out, std::ostream& err);

// perfdm attach PID: writes handles into a running program's generated frame types (all of
// them, or those of --schema, which must match) and prints one line per frame type,
// "<struct>\t<segment>", for `perfdm read`. perfdm detach PID undoes it.
struct attach_command_options {
  int pid = 0;
  std::string schema;
  bool force = false;
  std::uint32_t lanes = 16;
  std::uint32_t capacity = 4096;
};
int run_attach_command(const attach_command_options& o, std::ostream& out, std::ostream& err);
int run_detach_command(int pid, std::ostream& out, std::ostream& err);

}  // namespace perfdm
