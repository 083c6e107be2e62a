// Writing the session's self-describing log (docs/LOG-FORMAT.md) by reading the data manager
// through its ordinary requests. One piece for every front end: `perfdm replay`/`engine`
// (cli/xml_session.cpp) call write_dm_log() directly; the TCP gateway sends LOG to the actor
// of spawn_dm_log_writer(), because writing a large log blocks.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/message.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "log/log_codec.hpp"

namespace perfdm {

// What the log's job record says about the run.
struct dm_log_job {
  std::string command_line;
  std::int64_t start_ns = 0;  // since the epoch
  std::string clock;          // "virtual (replay)", "virtual" or "live"
  std::size_t log_memory_bytes = 64u << 20;
  log_compression compression = log_compression::zlib;
};

// Sends one request to the data manager and returns its reply (a caf::error for a failure).
using dm_ask = std::function<caf::message(const caf::message&)>;

// Nanoseconds since the epoch, for dm_log_job::start_ns.
std::int64_t epoch_now_ns();

// Reads the data manager through `ask` and writes the log to `path` (`path`.partial until
// complete). Returns its size in bytes; throws log_error (or std::exception) on failure.
std::uint64_t write_dm_log(const dm_ask& ask, const dm_log_job& job, const std::string& path);

// An actor (detached: it blocks on the file and on its requests to `dm`) that answers
// write_log{file} with log_written, or with an INTERNAL error saying why the log could not be
// written. An empty file means `default_path`. It stops on an exit message.
caf::actor spawn_dm_log_writer(caf::actor_system& sys, caf::actor dm, dm_log_job job,
                               std::string default_path);

}  // namespace perfdm
