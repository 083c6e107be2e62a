// A session: one client of the data manager that speaks the XML command language.
// `perfdm replay` runs one with the deterministic scheduler and virtual time (rule C1);
// `perfdm engine` runs one over stdin/stdout with the live scheduler.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include <caf/fwd.hpp>

#include "actors/data_manager_actor.hpp"
#include "cli/dm_log_writer.hpp"
#include "log/log_codec.hpp"

namespace perfdm {

struct session_options {
  // true: CAF's test coordinator runs every actor on this thread, so the same requests
  // always give the same bytes.
  bool deterministic = true;
  engine_options engine;
  // When set, the data manager writes every request it processes here, from any front end
  // or data source, in the replay format (docs/PROTOCOL.md §6).
  std::ostream* record = nullptr;
  // The log (docs/LOG-FORMAT.md): where LOG without FILE writes, the job record's command
  // line, and the memory pool its modules share (a run-time option, unlike Darshan's).
  std::string default_log = "perfdm.log";
  std::string command_line;
  std::size_t log_memory_bytes = 64u << 20;
  // How every region of the log is compressed (LOG too): --log-compression zlib|zstd.
  log_compression log_compression_type = log_compression::zlib;
  // Runs on the actor system's config before the system exists (a live session only): CAF
  // options that must be set then, e.g. the middleman's heartbeat of engine --publish.
  std::function<void(caf::actor_system_config&)> configure;
};

// One output line: a reply, an error reply or a stream event, already in XML.
struct session_line {
  enum kind_t { reply, error, event } kind;
  std::string xml;
  caf::message message;  // the reply, error or event as a message (for readable printing)
};

class session {
 public:
  explicit session(const session_options& options);
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  // Runs one request line to completion. Blank lines and `#` comments produce nothing.
  // Every event the request caused is emitted, then its reply (exactly one).
  void run_line(const std::string& line, const std::function<void(const session_line&)>& emit);

  // Sends one request to the data manager and returns its reply; events it causes are
  // passed to `emit` when given (dropped otherwise). A reply that is an error is returned as
  // a message holding the caf::error.
  caf::message ask(const caf::message& request,
                   const std::function<void(const session_line&)>& emit = {});

  // Emits the stream events that arrived since the last request (a live engine's data
  // sources send samples between requests, so their events come then).
  void drain_events(const std::function<void(const session_line&)>& emit);

  // Writes the self-describing log of this session (job record, Data Manager module) to
  // `path` (`path`.partial until complete). Returns its size in bytes; throws log_error.
  std::uint64_t write_log_file(const std::string& path);

  // What this session's log says about the run (for a log writer serving LOG elsewhere).
  dm_log_job log_job() const;

  // The engine, for other front ends of the same data manager (the TCP gateway). A session
  // that is not deterministic has CAF's middleman loaded.
  caf::actor_system& system();
  caf::actor data_manager() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// The actor system of an engine: perfdm's message types, no console log, the deterministic
// scheduler (`deterministic`) or the live one with CAF's middleman, and the scheduler tuned
// for request latency. The benchmarks use it too, so that they measure what the engine runs.
void configure_engine_system(caf::actor_system_config& cfg, bool deterministic);

// Replays every line of `in`, writing the XML of every reply and event to `out`.
// Returns the number of requests that got an error reply.
std::size_t replay(std::istream& in, std::ostream& out, const session_options& options);

}  // namespace perfdm
