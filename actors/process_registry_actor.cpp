#include "actors/process_registry_actor.hpp"

#include <map>
#include <memory>

#include <caf/stateful_actor.hpp>

#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "shm/layout.hpp"
#include "shm/schema.hpp"
#include "shm/attach.hpp"
#include "shm/segment.hpp"

namespace perfdm {

namespace {

struct observed {
  process_info info;
  caf::actor ingest;  // null once it ended
  frames_stats last;  // what it had read when it ended
};

caf::error attach_failure(const shm::attach_error& e) {
  auto code = e.code == shm::attach_errc::no_such_process ? dm_error::unknown_target
              : e.code == shm::attach_errc::not_permitted  ? dm_error::not_allowed
              : e.code == shm::attach_errc::segment_failed ? dm_error::internal
                                                           : dm_error::bad_argument;
  return make_dm_error(code, e.what());
}

}  // namespace

struct registry_state {
  std::map<std::int32_t, observed> processes;  // by pid; ordered for listing
  static inline const char* name = "process_registry";
};

namespace {

caf::behavior process_registry_actor(caf::stateful_actor<registry_state>* self, caf::actor dm,
                                     ingest_options options) {
  self->set_down_handler([=](caf::down_msg& x) {
    for (auto& [pid, p] : self->state.processes)
      if (p.ingest && p.ingest.address() == x.source) {
        p.ingest = nullptr;
        p.info.active = false;
      }
  });
  return {
    [=](attach_request& x) -> caf::result<process_info> {
      auto& st = self->state;
      if (auto i = st.processes.find(x.pid); i != st.processes.end() && i->second.ingest)
        return make_dm_error(dm_error::not_allowed,
                             "process " + std::to_string(x.pid) + " is attached already");
      shm::attachment attached;
      try {
        shm::attach_options o;
        if (!x.schema.empty()) o.expected = shm::schema_descriptors(x.schema);
        o.force = x.force;
        shm::segment_options geometry;
        if (x.lanes) geometry.lanes = x.lanes;
        if (x.capacity) geometry.capacity = x.capacity;
        o.create_segment = [geometry](int pid, const std::string&, const std::string& descriptor,
                                      std::uint64_t handle) {
          return shm::segment::create_for_attach(pid, descriptor, handle, geometry);
        };
        attached = shm::attach(x.pid, o);
      } catch (const shm::attach_error& e) {
        return attach_failure(e);
      } catch (const shm::schema_error& e) {
        return make_dm_error(dm_error::bad_argument, e.what());
      }
      caf::actor ingest;
      try {
        ingest = spawn_frame_ingest(self, dm, attached, options);
      } catch (const std::exception& e) {
        try {
          shm::detach(x.pid);
        } catch (const shm::attach_error&) {
        }
        return make_dm_error(dm_error::internal,
                             std::string("cannot read the new segments: ") + e.what());
      }
      self->monitor(ingest);
      process_info info{attached.pid, attached.name, attached.executable,
                        process_resource(attached.name, attached.pid), {}, true};
      for (auto& f : attached.frames) info.frames.push_back(f.struct_name);
      st.processes[x.pid] = observed{info, ingest, {}};  // a new attach starts afresh
      auto pid = x.pid;
      auto rp = self->make_response_promise<process_info>();
      self->request(ingest, std::chrono::seconds(60), ingest_start_atom::value)
          .then([=](ok_reply) mutable { rp.deliver(info); },
                [=](caf::error& e) mutable {
                  self->send_exit(ingest, caf::exit_reason::user_shutdown);
                  try {
                    shm::detach(pid);
                  } catch (const shm::attach_error&) {
                  }
                  rp.deliver(e);
                });
      return rp;
    },
    [=](detach_request& x) -> caf::result<caf::message> {
      auto i = self->state.processes.find(x.pid);
      if (i == self->state.processes.end() || !i->second.ingest)
        return make_dm_error(dm_error::unknown_target,
                             "process " + std::to_string(x.pid) + " is not attached");
      auto rp = self->make_response_promise();
      auto pid = x.pid;
      self->request(i->second.ingest, std::chrono::seconds(30), x)
          .then(
              [=](process_info& info) mutable {
                // Inactive from now on, though its ingest actor still reads what was written.
                if (auto j = self->state.processes.find(pid); j != self->state.processes.end())
                  j->second.info.active = false;
                rp.deliver(info);
              },
              [=](caf::error& e) mutable { rp.deliver(e); });
      return rp;
    },
    [=](frames_stats& last) {  // an ingest actor that ended
      for (auto& t : last.frame_types)
        if (auto i = self->state.processes.find(t.pid); i != self->state.processes.end()) {
          i->second.last.frame_types.push_back(t);
        }
    },
    [=](list_processes) {
      process_list out;
      for (auto& [pid, p] : self->state.processes) out.processes.push_back(p.info);
      return out;
    },
    [=](frames_stats_query) -> caf::result<frames_stats> {
      auto rp = self->make_response_promise<frames_stats>();
      auto out = std::make_shared<frames_stats>();
      std::vector<caf::actor> live;
      for (auto& [pid, p] : self->state.processes) {
        if (p.ingest)
          live.push_back(p.ingest);
        else
          out->frame_types.insert(out->frame_types.end(), p.last.frame_types.begin(),
                                  p.last.frame_types.end());
      }
      if (live.empty()) {
        rp.deliver(*out);
        return rp;
      }
      auto left = std::make_shared<std::size_t>(live.size());
      for (auto& a : live)
        self->request(a, std::chrono::seconds(10), frames_stats_query{})
            .then(
                [=](frames_stats& s) mutable {
                  out->frame_types.insert(out->frame_types.end(), s.frame_types.begin(),
                                          s.frame_types.end());
                  if (--*left == 0) rp.deliver(*out);
                },
                [=](caf::error&) mutable {
                  if (--*left == 0) rp.deliver(*out);  // it ended meanwhile
                });
      return rp;
    },
  };
}

}  // namespace

caf::actor spawn_process_registry(caf::event_based_actor* dm, ingest_options options) {
  return dm->spawn<caf::linked>(process_registry_actor, caf::actor_cast<caf::actor>(dm), options);
}

}  // namespace perfdm
