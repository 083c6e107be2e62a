#include "actors/metric_instance_actor.hpp"

#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <unordered_map>

#include "actors/internal_messages.hpp"
#include "messages/dm_error.hpp"

namespace perfdm {

namespace {

struct metric_instance_actor_state {
  explicit metric_instance_actor_state(
      metric_instance_actor_type::stateful_pointer<metric_instance_actor_state> self)
      : self(self) {}

  metric_instance_actor_type::stateful_pointer<metric_instance_actor_state> self;
  mi_handle id;
  metric_instance_state mi{mi_handle{}, metric_style::counter};  // set as the actor starts
  std::unordered_map<stream_handle, caf::actor> streams;         // every current or global user
  completed_values done;                                         // reused across sample batches
  static inline const char* name = "metric_instance";

  // Forgets the actors of streams that use this MI no more.
  void prune_streams() {
    for (auto i = streams.begin(); i != streams.end();) {
      auto used = [&](const std::vector<stream_handle>& xs) {
        return std::find(xs.begin(), xs.end(), i->first) != xs.end();
      };
      if (used(mi.global_users()) || used(mi.current_users()))
        ++i;
      else
        i = streams.erase(i);
    }
  }

  // Every state change answers with the summary the data manager mirrors; a deleted MI
  // answers once more and ends.
  mi_summary reply() {
    prune_streams();
    auto s = mi.summary();
    if (s.state == mi_state::deleted) self->quit();
    return s;
  }

  // Every user gets the values of the histogram it subscribed to, in bucket order (T2).
  void deliver() {
    if (done.empty()) return;
    for (auto& [handle, actor] : streams) {
      stream_data out;
      auto add = [&](const std::vector<stream_handle>& users, const std::vector<data_value>& xs) {
        if (!xs.empty() && std::find(users.begin(), users.end(), handle) != users.end())
          out.values.insert(out.values.end(), xs.begin(), xs.end());
      };
      add(mi.global_users(), done.global);
      add(mi.current_users(), done.current);
      // A stream is dynamically typed (it carries every event of the language): a typed
      // actor sends to it with unsafe_send_as, which is what send() does for an untyped one.
      if (!out.values.empty()) caf::unsafe_send_as(self, actor, std::move(out));
    }
    done.global.clear();
    done.current.clear();
  }
};

metric_instance_actor_type::behavior_type metric_instance_actor(
    metric_instance_actor_type::stateful_pointer<metric_instance_actor_state> self, mi_handle id,
    metric_style style) {
  self->state.id = id;
  self->state.mi = metric_instance_state(id, style);
  return {
      [=](mi_samples& batch) {
        for (auto& s : batch.samples)
          self->state.mi.add(s.start, s.end, s.value, &self->state.done);
        self->state.deliver();
      },
      [=](mi_enable& x) {
        self->state.streams.emplace(x.stream, x.stream_actor);
        self->state.mi.enable(x.stream, x.type, x.flags, x.bases);
        return self->state.reply();
      },
      [=](mi_disable& x) -> caf::result<mi_summary> {
        if (!self->state.mi.disable(x.stream, x.type))
          return make_dm_error(dm_error::bad_argument,
                               "stream " + to_string(x.stream) + " is not a " + to_string(x.type) +
                                   " user of metric instance " + to_string(self->state.id));  // D4
        return self->state.reply();
      },
      [=](mi_drop_stream& x) {
        self->state.mi.drop_stream(x.stream);
        return self->state.reply();
      },
      [=](mi_flags& x) {
        if (x.set)
          self->state.mi.set_flags(x.named);
        else
          self->state.mi.clear_flags(x.named);
        return self->state.reply();
      },
      [=](mi_new_phase& x) {
        self->state.mi.new_phase(x.old_phase, x.bases);
        return self->state.reply();
      },
      [=](mi_fold& x) {
        self->state.mi.fold(x.start, x.width);
        return self->state.reply();
      },
      [=](mi_sync) { return ok_reply{}; },
      [=](mi_status_query) { return self->state.mi.status(); },
      [=](mi_data& x) -> caf::result<histogram_data> {
        const histogram* h = nullptr;
        std::string what;
        if (x.archive) {
          h = self->state.mi.archived(x.archived);
          what = "archived data of phase " + to_string(x.archived);
        } else if (x.type == phase_type::global) {
          h = self->state.mi.global_histogram();
          what = "global histogram";
        } else {
          h = self->state.mi.current_histogram();
          what = "current-phase histogram";
        }
        if (!h)
          return make_dm_error(dm_error::bad_argument,
                               "metric instance " + to_string(self->state.id) + " has no " + what);
        return data_of(self->state.id, *h);
      },
  };
}

}  // namespace

metric_instance_actor_type spawn_metric_instance(caf::event_based_actor* parent, mi_handle id,
                                                 metric_style style) {
  return parent->spawn<caf::linked>(metric_instance_actor, id, style);
}

}  // namespace perfdm
