#include "actors/process_registry_details.hpp"

#include <caf/event_based_actor.hpp>
#include <chrono>
#include <memory>

#include "actors/fan_out.hpp"

namespace perfdm {

namespace {

// Calls `then(stream)` with the registry's detail stream, opening it first if need be.
template <class Then, class Failed>
void with_detail_stream(registry_actor self, caf::actor dm, Then then, Failed failed) {
  auto& st = self->state;
  if (st.detail_stream) return then(*st.detail_stream);
  self->request(dm, std::chrono::seconds(30), open_stream{caf::actor_cast<caf::actor>(self)})
      .then(
          [=](stream_opened& o) mutable {
            // Two SETDETAILs may have crossed: the first stream opened is kept.
            if (!self->state.detail_stream) self->state.detail_stream = o.stream;
            then(*self->state.detail_stream);
          },
          failed);
}

// SETDETAIL drives collection: an item turned on enables the metrics it names at their foci
// (global phase, no persistence) on the registry's stream; turned off, it disables them (D1:
// an MI nobody else uses goes). An item that names nothing refuses the whole request before
// anything changes.
}  // namespace

caf::result<caf::message> setdetail_command(registry_actor self, caf::actor dm,
                                            const process_command& c) {
  std::vector<detail_setting> settings;
  try {
    settings = parse_detail_settings(c.argument);
  } catch (const process_command_error& e) {
    return refusal(c, e.code, e.what());
  }
  auto rp = self->make_response_promise<caf::message>();
  auto failed = [=](caf::error& e) mutable {
    rp.deliver(refusal(c, dm_error_code(e), dm_error_reason(e)));
  };
  self->request(dm, std::chrono::seconds(30), list_metrics{})
      .then(
          [=](metric_list& defined) mutable {
            auto& p = self->state.processes.at(c.pid);
            std::vector<std::pair<detail_setting, std::vector<detail_target>>> plan;
            bool all_dyper = true;
            for (auto& s : settings) {
              auto targets = detail_targets(s.item, p.info, defined.metrics);
              // An item of one of DyPer's agents that names nothing native (MEMORY's
              // ALLOC_SOURCE: a native process's allocations are not traced) is recorded and
              // answered as DyPer answers it; it collects nothing.
              bool dyper = targets.empty() && is_dyper_agent_name(s.agent);
              all_dyper = all_dyper && dyper;
              if (dyper) continue;
              if (targets.empty()) {
                rp.deliver(
                    refusal(c, dm_error::bad_argument,
                            "ITEM '" + s.item + "' names no frame type, frame field or metric of " +
                                "process " + std::to_string(c.pid) +
                                (p.info.frames.empty() ? " (it has no frames attached)" : "")));
                return;
              }
              plan.emplace_back(s, std::move(targets));
            }
            process_command_outcome out;
            try {
              out = run_process_command(p.commands, p.info, c);
            } catch (const process_command_error& e) {
              rp.deliver(refusal(c, e.code, e.what()));
              return;
            }
            auto body = all_dyper ? std::string() : out.body;
            auto pid = c.pid;
            with_detail_stream(
                self, dm,
                [=](stream_handle stream) mutable {
                  // Every enable and disable is waited for; the first error, if any, is
                  // the answer, after all of them.
                  auto error = std::make_shared<caf::error>();
                  auto count = countdown::make(
                      [=]() mutable {
                        if (*error)
                          rp.deliver(refusal(c, dm_error_code(*error), dm_error_reason(*error)));
                        else
                          rp.deliver(answer(c, body));
                      },
                      true);
                  auto one_done = [=] { count->arrived(); };
                  auto& detailed = self->state.processes.at(pid).detailed;
                  for (auto& [setting, targets] : plan) {
                    auto item = setting.item;
                    if (setting.value && !detailed.count(item)) {
                      detailed[item];
                      for (auto& t : targets) {
                        count->expect();
                        self->request(dm, std::chrono::seconds(30),
                                      enable_request{stream, t.metric, {t.focus}, {}, {}})
                            .then(
                                [=](mi_info& mi) mutable {
                                  auto& d = self->state.processes.at(pid).detailed;
                                  if (auto i = d.find(item); i != d.end())
                                    i->second.push_back(mi.id);
                                  one_done();
                                },
                                [=](caf::error& e) mutable {
                                  if (!*error) *error = e;
                                  one_done();
                                });
                      }
                    } else if (!setting.value) {
                      auto i = detailed.find(item);
                      if (i == detailed.end()) continue;
                      for (auto mi : i->second) {
                        count->expect();
                        // An MI that went meanwhile (its process detached, say) is off already.
                        self->request(dm, std::chrono::seconds(30),
                                      disable_request{stream, mi, phase_type::global})
                            .then([=](mi_info&) mutable { one_done(); },
                                  [=](caf::error&) mutable { one_done(); });
                      }
                      detailed.erase(i);
                    }
                  }
                  count->release();
                },
                failed);
          },
          failed);
  return rp;
}

}  // namespace perfdm
