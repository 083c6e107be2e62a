// How a node of a tree of daemons answers TOPOLOGY (the engine) or a topology_probe from its
// parent (a relay): its own node, then each child's subtree, asked of the child itself, under
// it with the link figures this node measured. Pulled on demand rather than pushed
// with registrations or heartbeats: nothing is sent while nobody asks, the answer is as
// current as each node's own view (a child that went down is gone from it at once), and the
// same few lines work at any depth, since a relay asks its children as the engine asks it.
#pragma once

#include <algorithm>
#include <caf/actor.hpp>
#include <caf/response_promise.hpp>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "actors/fan_out.hpp"
#include "tree/topology_tree.hpp"
#include "messages/topology_messages.hpp"

namespace perfdm {

// A child as its parent knows it: its name and the figures of its link (measure_link).
struct topology_child {
  caf::actor actor;
  topology_node known;
};

// Answers with `own` as the root and the children's subtrees below, in the order of their
// names. Each child is asked with
// half of `budget_ms` (and told to use half of that below), so the answer comes within the
// budget whatever hangs below; a child that did not answer in time is listed as known, with
// an empty kind. Below 20 ms of budget the children are not asked.
template <class Self>
caf::response_promise answer_topology(Self* self, topology_node own,
                                      std::vector<topology_child> children,
                                      std::uint32_t budget_ms) {
  auto rp = self->make_response_promise();
  std::stable_sort(children.begin(), children.end(),
                   [](const topology_child& a, const topology_child& b) {
                     return a.known.name < b.known.name;
                   });
  auto answers = std::make_shared<std::vector<std::vector<topology_node>>>(children.size());
  own.has_parent = false;
  auto done = [=]() mutable {
    topology_reply out;
    out.nodes.push_back(own);
    for (std::size_t i = 0; i < children.size(); ++i)
      graft(out.nodes, 0, (*answers)[i], children[i].known);
    count_components(out.nodes);
    rp.deliver(std::move(out));
  };
  const std::uint32_t half = budget_ms / 2;
  if (half < 20) {
    done();
    return rp;
  }
  std::vector<std::pair<std::size_t, caf::actor>> targets;
  for (std::size_t i = 0; i < children.size(); ++i) targets.emplace_back(i, children[i].actor);
  fan_out<topology_reply>(
      self, reply_wait::then, std::chrono::milliseconds(half), targets, topology_probe{half},
      [=](std::size_t i, topology_reply& r) { (*answers)[i] = std::move(r.nodes); }, done,
      [](std::size_t, caf::error&) {}, true);
  return rp;
}

}  // namespace perfdm
