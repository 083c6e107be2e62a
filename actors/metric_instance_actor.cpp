#include "actors/metric_instance_actor.hpp"

#include <caf/send.hpp>
#include <memory>
#include <unordered_map>

#include "actors/internal_messages.hpp"
#include "messages/dm_error.hpp"

namespace perfdm {

namespace {

struct mi_actor_state {
  mi_actor_state(mi_handle id, metric_style style) : id(id), mi(id, style) {}

  mi_handle id;
  metric_instance_state mi;
  std::unordered_map<stream_handle, caf::actor> streams;  // every current or global user
  completed_values done;                                  // reused across sample batches

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
};

// Every user gets the values of the histogram it subscribed to, in bucket order (T2).
void deliver(metric_instance_actor_type::pointer self, mi_actor_state& st) {
  if (st.done.empty()) return;
  for (auto& [handle, actor] : st.streams) {
    stream_data out;
    auto add = [&](const std::vector<stream_handle>& users, const std::vector<data_value>& xs) {
      if (!xs.empty() && std::find(users.begin(), users.end(), handle) != users.end())
        out.values.insert(out.values.end(), xs.begin(), xs.end());
    };
    add(st.mi.global_users(), st.done.global);
    add(st.mi.current_users(), st.done.current);
    // A stream is dynamically typed (it carries every event of the language): a typed actor
    // sends to it with unsafe_send_as, which is what send() does for an untyped one.
    if (!out.values.empty()) caf::unsafe_send_as(self, actor, std::move(out));
  }
  st.done.global.clear();
  st.done.current.clear();
}

histogram_data to_data(mi_handle id, const histogram& h) {
  histogram_data d;
  d.mi = id;
  d.start = to_seconds(h.start());
  d.width = to_seconds(h.width());
  d.nbins = static_cast<std::uint32_t>(bucket_count);
  auto last = h.last_bucket_with_data();
  for (std::ptrdiff_t i = 0; i <= last; ++i)
    d.values.push_back(h.reading(static_cast<std::size_t>(i)));
  return d;
}

}  // namespace

metric_instance_actor_type::behavior_type metric_instance_actor(
    metric_instance_actor_type::pointer self, mi_handle id, metric_style style) {
  auto st = std::make_shared<mi_actor_state>(id, style);
  // Every state change answers with the summary the data manager mirrors; a deleted MI
  // answers once more and ends.
  auto reply = [self, st] {
    st->prune_streams();
    auto s = st->mi.summary();
    if (s.state == mi_state::deleted) self->quit();
    return s;
  };
  return {
      [=](mi_samples& batch) {
        for (auto& s : batch.samples) st->mi.add(s.start, s.end, s.value, &st->done);
        deliver(self, *st);
      },
      [=](mi_enable& x) {
        st->streams.emplace(x.stream, x.stream_actor);
        st->mi.enable(x.stream, x.type, x.flags, x.bases);
        return reply();
      },
      [=](mi_disable& x) -> caf::result<mi_summary> {
        if (!st->mi.disable(x.stream, x.type))
          return make_dm_error(dm_error::bad_argument,
                               "stream " + to_string(x.stream) + " is not a " + to_string(x.type) +
                                   " user of metric instance " + to_string(st->id));  // D4
        return reply();
      },
      [=](mi_drop_stream& x) {
        st->mi.drop_stream(x.stream);
        return reply();
      },
      [=](mi_flags& x) {
        if (x.set)
          st->mi.set_flags(x.named);
        else
          st->mi.clear_flags(x.named);
        return reply();
      },
      [=](mi_new_phase& x) {
        st->mi.new_phase(x.old_phase, x.bases);
        return reply();
      },
      [=](mi_fold& x) {
        st->mi.fold(x.start, x.width);
        return reply();
      },
      [=](mi_sync) { return ok_reply{}; },
      [=](mi_status_query) { return st->mi.status(); },
      [=](mi_data& x) -> caf::result<histogram_data> {
        const histogram* h = nullptr;
        std::string what;
        if (x.archive) {
          h = st->mi.archived(x.archived);
          what = "archived data of phase " + to_string(x.archived);
        } else if (x.type == phase_type::global) {
          h = st->mi.global_histogram();
          what = "global histogram";
        } else {
          h = st->mi.current_histogram();
          what = "current-phase histogram";
        }
        if (!h)
          return make_dm_error(dm_error::bad_argument,
                               "metric instance " + to_string(st->id) + " has no " + what);
        return to_data(st->id, *h);
      },
  };
}

}  // namespace perfdm
