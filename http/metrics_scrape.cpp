#include "http/metrics_scrape.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <map>

#include "messages/dm_messages.hpp"
#include "messages/engine_counters_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/record_messages.hpp"

namespace perfdm {

namespace {

using done_function = std::function<void(prometheus_snapshot, std::string)>;

struct scrape_state {
  prometheus_snapshot snapshot;
  std::map<std::string, bool> counters;  // metric name → COUNTER style
  std::map<std::uint64_t, std::string> phase_names;
  std::size_t waiting = 0;  // histogram and frame requests not answered yet
  done_function done;
};

using scrape_actor = caf::stateful_actor<scrape_state>;

void finish_one(scrape_actor* self) {
  if (--self->state.waiting > 0) return;
  self->state.done(std::move(self->state.snapshot), {});
  self->quit();
}

void fail(scrape_actor* self, const caf::error& e) {
  self->state.done({}, "the data manager did not answer: " + self->system().render(e));
  self->quit();
}

void ask_histograms(scrape_actor* self, caf::actor dm, const status_info& status) {
  auto& st = self->state;
  st.snapshot.clock = status.now;
  st.snapshot.interval = status.interval;
  st.snapshot.metric_instances = status.mis.size();
  st.waiting = 2;  // the frame counts and the engine's counters
  for (auto& mi : status.mis)
    for (bool current : {false, true}) {
      if (current ? !mi.has_current : !mi.has_global) continue;
      prometheus_histogram h;
      h.mi = mi.id.id;
      h.metric = mi.metric;
      h.focus = mi.focus;
      h.counter = st.counters[mi.metric];
      h.phase = current ? st.phase_names[status.phase.id] : "global";
      data_request request{mi.id, {current ? phase_type::current : phase_type::global, false, {}}};
      ++st.waiting;
      self->request(dm, caf::infinite, request)
          .then(
              [self, h](histogram_data& d) mutable {
                h.width = d.width;
                summarise_buckets(d.values, h);
                self->state.snapshot.histograms.push_back(std::move(h));
                finish_one(self);
              },
              // Deleted between STATUS and DATA: it is simply not there any more.
              [self](caf::error&) { finish_one(self); });
    }
  self->request(dm, caf::infinite, engine_counters_query{})
      .then(
          [self](engine_counters& c) {
            auto& snapshot = self->state.snapshot;
            snapshot.has_samples = true;
            snapshot.samples = c.samples;
            snapshot.samples_dropped = c.samples_dropped;
            finish_one(self);
          },
          // Not a data manager of this engine's (none answers): the counters are left out.
          [self](caf::error&) { finish_one(self); });
  self->request(dm, caf::infinite, frames_stats_query{})
      .then(
          [self](frames_stats& f) {
            for (auto& t : f.frame_types)
              self->state.snapshot.frames.push_back(
                  {t.process, t.frame_type, t.frames, t.lost, t.torn});
            finish_one(self);
          },
          [self](caf::error&) { finish_one(self); });
}

caf::behavior scrape(scrape_actor* self, caf::actor dm,
                     std::shared_ptr<std::atomic<std::int64_t>> clients, done_function done) {
  self->state.done = std::move(done);
  if (clients) self->state.snapshot.clients = clients->load();
  self->send(dm, record_origin{"http /metrics", true});
  self->request(dm, caf::infinite, list_metrics{})
      .then(
          [self, dm](metric_list& metrics) {
            for (auto& m : metrics.metrics)
              self->state.counters[m.name] = m.style == metric_style::counter;
            self->request(dm, caf::infinite, list_phases{})
                .then(
                    [self, dm](phase_list& phases) {
                      for (auto& p : phases.phases) self->state.phase_names[p.id.id] = p.name;
                      self->request(dm, caf::infinite, status_query{})
                          .then([self, dm](status_info& s) { ask_histograms(self, dm, s); },
                                [self](caf::error& e) { fail(self, e); });
                    },
                    [self](caf::error& e) { fail(self, e); });
          },
          [self](caf::error& e) { fail(self, e); });
  return {};
}

}  // namespace

void scrape_metrics(caf::actor_system& sys, caf::actor data_manager,
                    std::shared_ptr<std::atomic<std::int64_t>> clients,
                    std::function<void(prometheus_snapshot, std::string error)> done) {
  sys.spawn(scrape, std::move(data_manager), std::move(clients), std::move(done));
}

}  // namespace perfdm
