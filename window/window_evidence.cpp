#include "window/window_evidence.hpp"

namespace perfdm::window {

evidence_counts evidence_counts_of(const focus_counts& c, std::int32_t pid,
                                   const std::string& host) {
  evidence_counts e;
  e.pid = pid;
  e.ticks = c.ticks;
  e.runs = c.runs;
  e.syncs = c.syncs;
  e.ios = c.ios;
  e.runs_most = c.runs_most;
  e.syncs_most = c.syncs_most;
  e.ios_most = c.ios_most;
  e.io_ops = c.io_ops;
  e.io_bytes = c.io_bytes;
  e.first = c.first;
  e.last = c.last;
  e.runs_share = c.runs_share;
  e.syncs_share = c.syncs_share;
  e.ios_share = c.ios_share;
  e.runs_saving = c.runs_saving;
  e.syncs_saving = c.syncs_saving;
  e.ios_saving = c.ios_saving;
  e.runs_blamed = c.runs_blamed;
  e.ios_blamed = c.ios_blamed;
  e.idle = c.idle;
  e.host = host;
  return e;
}

}  // namespace perfdm::window
