// A child's side of failover in a tree of daemons, as plain state: what the node
// (a daemon's relay, or a relay under a relay) knows of its upstream, and what it keeps so
// that nothing is lost when a relay above it goes down (`kill -9`).
//
// - A relay tells each child, before its first source_update, its own component name and its
//   own upstream's address (upstream_info). The engine tells nothing: a child that heard
//   nothing before its first update is the engine's, and has nowhere else to go.
// - While it can fail over, a node keeps what it sent (resend_buffer) until its relay says it
//   reached the engine (samples_safe), and sends it again after reconnecting, registering as
//   taking over from the relay: the new upstream drops what it had already counted.
// - A relay itself tells its children what is safe: its watermarks the upstream acknowledged,
//   bounded by what its own upstream says is safe (the engine: everything it acknowledged).
#pragma once

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "tree/resend_buffer.hpp"
#include "messages/source_messages.hpp"

namespace perfdm {

class upstream_failover {
 public:
  // Registered with a (new) upstream: what it is comes with its first update.
  void registered() {
    awaiting_update_ = true;
    reached_.clear();
    parent_.clear();
    fallback_.clear();
    acked_ = no_watermark;
    upstream_safe_ = no_watermark;
  }

  void on_info(const upstream_info& x) {
    parent_ = x.component;
    fallback_ = x.upstream;
  }

  // A source_update from upstream. The first since registering without upstream_info: the
  // upstream is the engine, nothing need be kept, everything acknowledged is safe.
  void on_update() {
    if (!awaiting_update_) return;
    awaiting_update_ = false;
    if (parent_.empty()) {
      fallback_.clear();
      kept_.clear();
      upstream_safe_ = std::numeric_limits<time_ns>::max();
    }
  }

  // A batch went upstream: kept while a relay is above.
  void on_sent(const std::vector<sample>& samples) {
    if (can_fail_over()) kept_.sent(samples);
  }

  // The latest end of each MI's samples in `samples`, to note when they are acknowledged
  // (nothing while there is nowhere to fail over to).
  std::map<std::uint64_t, time_ns> ends_of(const std::vector<sample>& samples) const {
    std::map<std::uint64_t, time_ns> ends;
    if (!can_fail_over()) return ends;
    for (auto& x : samples) {
      auto& e = ends.try_emplace(x.mi.id, to_ns(x.end)).first->second;
      e = std::max(e, to_ns(x.end));
    }
    return ends;
  }

  // The upstream acknowledged (received) a batch that carried `watermark` and ended each MI
  // at `ends` (ends_of).
  void on_acked(time_ns watermark, const std::map<std::uint64_t, time_ns>& ends = {}) {
    acked_ = std::max(acked_, watermark);
    for (auto& [mi, end] : ends) {
      auto& r = reached_.try_emplace(mi, end).first->second;
      r = std::max(r, end);
    }
  }

  // Of each MI, the latest end the upstream acknowledged receiving (for source_register's
  // `reached` when taking over from it).
  const std::map<std::uint64_t, time_ns>& reached() const { return reached_; }

  // The upstream (a relay) says everything before `until` reached the engine.
  void on_safe(time_ns until) {
    upstream_safe_ = std::max(upstream_safe_, until);
    kept_.safe_until(upstream_safe_);
  }

  // What this node may tell its own children is safe (no_watermark: nothing yet).
  time_ns safe_for_children() const { return std::min(acked_, upstream_safe_); }

  // The upstream is a relay whose own upstream is known: on losing it, go there.
  bool can_fail_over() const { return !fallback_.empty(); }
  const std::string& fallback() const { return fallback_; }
  const std::string& parent() const { return parent_; }

  // What to send again after reconnecting (kept until the new upstream says it is safe).
  std::vector<sample> to_resend() const { return kept_.kept(); }
  std::size_t kept() const { return kept_.size(); }

 private:
  bool awaiting_update_ = true;
  std::string parent_;    // the upstream relay's component name ("": the engine, or unknown)
  std::string fallback_;  // the upstream relay's own upstream, "HOST:PORT"
  time_ns acked_ = no_watermark;
  time_ns upstream_safe_ = no_watermark;
  resend_buffer kept_;
  std::map<std::uint64_t, time_ns> reached_;
};

}  // namespace perfdm
