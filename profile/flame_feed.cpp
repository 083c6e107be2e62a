#include "profile/flame_feed.hpp"

#include <algorithm>

#include "native/pc_resources.hpp"

namespace perfdm {

std::string flame_frame(const native::stack_frame& frame) {
  // The function and module of its /Code resource, as a person reads them (crypto/sha256.block,
  // not the resource part's crypto%2Fsha256.block).
  auto out = native::function_name(frame.function) + " (" + native::module_part(frame.module) + ")";
  std::replace(out.begin(), out.end(), ';', ',');
  return out;
}

std::optional<profile::sample_state> flame_state(native::thread_activity a) {
  using native::thread_activity;
  using profile::sample_state;
  switch (a) {
    case thread_activity::runs: return sample_state::running;
    case thread_activity::blocks: return sample_state::lock;
    case thread_activity::ios: return sample_state::io;
    case thread_activity::sleeps: return sample_state::sleep;
    case thread_activity::waits: return sample_state::other;
    case thread_activity::other: break;
  }
  return std::nullopt;
}

void add_to_flame(profile::call_path_store& store, const native::stack_snapshot& snapshot,
                  double time, const native::io_predicate& is_io) {
  std::vector<std::string> frames;
  for (auto& t : snapshot.threads) {
    auto state = flame_state(native::classify_thread(t.state, t.frames, is_io));
    if (!state) continue;
    frames.clear();
    for (auto f = t.frames.rbegin(); f != t.frames.rend(); ++f) frames.push_back(flame_frame(*f));
    store.add(time, t.tid, t.name, *state, frames);
  }
}

}  // namespace perfdm
