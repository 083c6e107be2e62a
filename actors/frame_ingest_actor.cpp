#include "actors/frame_ingest_actor.hpp"

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include <caf/stateful_actor.hpp>

#include "actors/source_registration.hpp"
#include "sources/frame_sample_builder.hpp"
#include "messages/dm_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/source_messages.hpp"
#include "shm/frame_reader.hpp"
#include "shm/process_memory.hpp"
#include "shm/segment.hpp"
#include "shm/segment_format.hpp"
#include "proc/process_facts.hpp"

namespace perfdm {

std::string process_resource(const std::string& name, int pid) {
  return "/Process/" + name + "{" + std::to_string(pid) + "}";
}

namespace {

struct frame_type {
  std::unique_ptr<shm::frame_reader> reader;
  std::unique_ptr<frame_sample_builder> sampler;
  std::string segment;
  bool name_removed = false;
};

using tick_atom = caf::atom_constant<caf::atom("ingtick")>;
using detach_timeout_atom = caf::atom_constant<caf::atom("ingdetach")>;


}  // namespace

struct ingest_state {
  caf::actor dm;
  shm::attachment attached;
  ingest_options options;
  std::string resource;
  std::vector<frame_type> types;
  std::uint64_t dropped = 0;  // samples the data manager dropped (MIs deleted meanwhile)
  bool detaching = false;
  bool reading = false;  // polls started (after the first collection set)
  bool reader_clock = false;  // a frame type's writer stamps frames with the polls' time
  time_ns last_poll = 0;  // engine time of the last poll
  static inline const char* name = "frame_ingest";

  time_ns engine_now() const { return shm::monotonic_now_ns() - options.origin_monotonic_ns; }

  // Reads every committed frame; returns how many, and in `fullest` the largest share of a
  // lane's capacity one lane gave (how close that lane came to overwriting unread frames).
  std::size_t poll(double* fullest = nullptr) {
    std::size_t n = 0;
    double most = 0;
    for (auto& t : types) {
      per_lane.assign(t.reader->lane_count(), 0);
      n += t.reader->poll_lanes([&](const std::byte* frame, std::int64_t mono, std::uint32_t lane) {
        t.sampler->add(frame, mono - options.origin_monotonic_ns);
        ++per_lane[lane];
      });
      for (auto c : per_lane)
        most = std::max(most, static_cast<double>(c) / t.reader->lane_capacity());
    }
    if (fullest) *fullest = most;
    return n;
  }
  std::vector<std::size_t> per_lane;  // frames per lane in the current poll

  // The segment's name can go once the writer mapped it: a crash of either side then leaves
  // nothing in /dev/shm.
  void remove_names_once_mapped() {
    for (auto& t : types)
      if (!t.name_removed && t.reader->writer_state() != shm::format::writer_waiting) {
        shm::segment::remove(t.segment);
        t.name_removed = true;
      }
  }

  std::vector<sample> flush(time_ns until) {
    std::vector<sample> out;
    for (auto& t : types) t.sampler->flush(until, out);
    return out;
  }

  std::vector<frame_type_stats> stats() const {
    std::vector<frame_type_stats> out;
    for (auto& t : types) {
      auto c = t.reader->counters();
      out.push_back(frame_type_stats{attached.pid, resource, t.reader->layout().struct_name,
                                     c.read, c.lost, c.torn, t.sampler->late_frames(),
                                     c.no_lane_drops, t.sampler->summaries()});
    }
    return out;
  }

  void remove_names() {
    for (auto& t : types)
      if (!t.name_removed) {
        shm::segment::remove(t.segment);
        t.name_removed = true;
      }
  }
};

namespace {

caf::behavior frame_ingest_actor(caf::stateful_actor<ingest_state>* self, caf::actor dm,
                                 caf::actor registry, shm::attachment attached,
                                 ingest_options options) {
  auto& st = self->state;
  st.dm = dm;
  st.options = options;
  st.resource = process_resource(attached.name, attached.pid);
  for (auto& f : attached.frames) {
    frame_type t;
    t.segment = f.segment;
    t.reader = std::make_unique<shm::frame_reader>(f.segment);
    t.sampler = std::make_unique<frame_sample_builder>(t.reader->layout(),
                                                st.resource + "/" + f.struct_name);
    st.reader_clock = st.reader_clock || t.reader->uses_reader_clock();
    st.types.push_back(std::move(t));
  }
  st.attached = std::move(attached);

  self->monitor(dm);
  self->set_down_handler([=](caf::down_msg&) { self->quit(); });
  self->send(dm, record_origin{"source " + st.resource, true});

  // Sends the samples of every interval that ended before `until`.
  auto send_samples = [=](time_ns until) {
    auto out = self->state.flush(until);
    if (out.empty()) return;
    self->request(self->state.dm, caf::infinite, source_samples{std::move(out)})
        .then([=](samples_ack& a) { self->state.dropped += a.dropped; });
  };
  // The writer is gone (exited, or released the segment after a detach): read the rest,
  // count torn frames, send every interval, and stop.
  auto finish = [=] {
    auto& s = self->state;
    while (s.poll() > 0) {
    }
    for (auto& t : s.types) t.reader->writer_gone();
    send_samples(std::numeric_limits<time_ns>::max());
    s.remove_names();
    self->send(registry, frames_stats{s.stats()});  // the log keeps the frames of ended processes
    self->send(s.dm, source_unregister{caf::actor_cast<caf::actor>(self)});
    self->quit();
  };

  return {
    // Defines the process's resources and metrics, registers as a data source and starts
    // reading; answers once the data manager knows them all, so ATTACH's reply means a
    // front end can enable the frame types' metrics at once.
    [=](ingest_start_atom) -> caf::result<ok_reply> {
      auto rp = self->make_response_promise<ok_reply>();
      auto& s = self->state;
      std::vector<source_definition> definitions;
      for (auto& t : s.types)
        definitions.emplace_back(define_resource{t.sampler->resource()});
      for (auto& t : s.types)
        for (auto& f : t.sampler->fields())
          if (f.kind == shm::field_kind::counter || f.kind == shm::field_kind::sampled)
            definitions.emplace_back(define_metric{t.sampler->metric_of(f),
                                                   f.kind == shm::field_kind::counter
                                                       ? metric_style::counter
                                                       : metric_style::sampled,
                                                   f.units});
      // Reading starts with the first collection set (source_update), so no frame is read
      // before the ingest knows which MIs take it. A metric of that name with another style,
      // for one: the attach fails whole.
      define_and_register(
          self, s.dm, definitions, [=]() mutable { rp.deliver(ok_reply{}); },
          [=](caf::error& e) mutable { rp.deliver(e); });
      return rp;
    },
    [=](source_update& u) {
      for (auto& t : self->state.types) {
        t.sampler->set_interval(to_ns(u.interval));
        t.sampler->set_collecting(u.mis);
      }
      if (!self->state.reading) {
        self->state.reading = true;
        self->send(self, tick_atom::value);
      }
    },
    [=](tick_atom) {
      auto& s = self->state;
      double fullest = 0;
      s.poll(&fullest);
      s.remove_names_once_mapped();
      send_samples(s.engine_now() - s.options.flush_delay);
      bool released = s.detaching;
      for (auto& t : s.types)
        released = released && t.reader->writer_state() == shm::format::writer_released;
      if (!proc::process_alive(s.attached.pid) || released) return finish();
      // The next poll comes before the fullest lane, at the rate it filled since the last
      // poll, is a quarter full: a busy writer never laps the reader. Short waits are slept
      // on this actor's own thread (it is detached): timers dispatch through the clock thread
      // and a worker, which is a millisecond or more late.
      auto now = s.engine_now();
      auto since = std::max<time_ns>(now - s.last_poll, 1000);
      s.last_poll = now;
      time_ns next = s.options.poll_period;
      if (s.reader_clock) next = std::min(next, s.options.reader_clock_period);
      if (fullest > 0)
        next = std::min<time_ns>(next, static_cast<time_ns>(0.25 * static_cast<double>(since) / fullest));
      if (next < 2'000'000) {
        std::this_thread::sleep_for(std::chrono::nanoseconds(next));
        self->send(self, tick_atom::value);
      } else {
        self->delayed_send(self, std::chrono::nanoseconds(next), tick_atom::value);
      }
    },
    [=](detach_request&) -> caf::result<process_info> {
      auto& s = self->state;
      try {
        shm::detach(s.attached.pid);
      } catch (const shm::attach_error& e) {
        if (e.code != shm::attach_errc::no_such_process && e.code != shm::attach_errc::not_attached)
          return caf::make_error(caf::sec::runtime_error, e.what());
      }
      s.detaching = true;
      // The writer releases the segment at its next frame; one that writes no more frames is
      // finished by the timeout below.
      self->delayed_send(self, std::chrono::seconds(1), detach_timeout_atom::value);
      process_info info{s.attached.pid, s.attached.name, s.attached.executable, s.resource, {}, false};
      for (auto& f : s.attached.frames) info.frames.push_back(f.struct_name);
      return info;
    },
    [=](detach_timeout_atom) { finish(); },
    [=](frames_stats_query) { return frames_stats{self->state.stats()}; },
  };
}

}  // namespace

caf::actor spawn_frame_ingest(caf::event_based_actor* parent, caf::actor dm,
                              shm::attachment attached, ingest_options options) {
  return parent->spawn<caf::detached>(frame_ingest_actor, std::move(dm), caf::actor_cast<caf::actor>(parent),
                       std::move(attached), options);
}

}  // namespace perfdm
