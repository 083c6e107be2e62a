// Asking every node of a tree of daemons the same question and merging the answers:
// the search's evidence (WINDOW) and the call graph it refines /Code along must reach
// the processes that daemons watch, not only the engine's own. The engine asks its process
// registry and each component (daemon or relay); a relay asks its children; a daemon asks its
// registry. So any depth works with the same few lines, as for TOPOLOGY.
#pragma once

#include <caf/actor.hpp>
#include <caf/response_promise.hpp>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "actors/fan_out.hpp"
#include "messages/callgraph_messages.hpp"
#include "messages/evidence_messages.hpp"
#include "sources/callgraph_report.hpp"

namespace perfdm {

// How long a node waits for its children's answers. A relay waits less than the engine, so
// that a hung daemon deep down costs the search one round's delay, never its answer; an
// engine without components never waits for one. A window's counts run from the search's
// start, so an answer too late for one round loses nothing: the next round has it all. The
// waits are short for that reason (3 s and 2 s made every round of a loaded 64-host search
// as slow as its slowest daemon); a daemon answers once its sample ends (≤ 0.5 s, the
// stack sampler's stop timeout).
inline constexpr std::chrono::milliseconds tree_gather_wait{1500};
inline constexpr std::chrono::milliseconds tree_gather_wait_in_relay{1000};

inline void merge_answer(window_answers& into, window_answers& from) {
  for (auto& p : from.processes) into.processes.push_back(std::move(p));
}

inline void merge_answer(callgraph_report& into, callgraph_report& from) {
  merge_callgraph_report(into, from);
}

// Sends `msg` to every target (null ones skipped), and answers with the replies merged in the
// targets' order, whatever order they came in (a recording of the EVIDENCE that follows is
// then the same for the same answers). A target that fails or does not answer within `wait`
// is left out: a node that went down costs its part of the answer, not the answer.
template <class Reply, class Self, class Message>
caf::response_promise gather_over_tree(Self* self, const std::vector<caf::actor>& targets,
                                       const Message& msg, std::chrono::milliseconds wait) {
  auto rp = self->make_response_promise();
  auto answers = std::make_shared<std::vector<Reply>>(targets.size());
  std::vector<std::pair<std::size_t, caf::actor>> keyed;
  for (std::size_t i = 0; i < targets.size(); ++i)
    if (targets[i]) keyed.emplace_back(i, targets[i]);
  fan_out<Reply>(
      self, reply_wait::then, wait, keyed, msg,
      [=](std::size_t i, Reply& r) { (*answers)[i] = std::move(r); },
      [=]() mutable {
        Reply out{};
        for (auto& a : *answers) merge_answer(out, a);
        rp.deliver(std::move(out));
      },
      [](std::size_t, caf::error&) {}, true);
  return rp;
}

}  // namespace perfdm
