#include "actors/process_registry_flame.hpp"

#include <caf/sec.hpp>
#include <chrono>

#include "messages/xml_codec.hpp"
#include "profile/flame_reports.hpp"

namespace perfdm {

namespace {

template <class Report>
Report ended(Report r) {
  r.ended = true;
  return r;
}

// With a timeout, as PROFILE: a source stuck in a system call costs an error reply.
template <class Report, class Request>
caf::result<caf::message> ask_source(registry_actor self, const process_command& c,
                                     const caf::actor& source, const Request& request) {
  auto rp = self->make_response_promise<caf::message>();
  self->request(source, std::chrono::seconds(30), request)
      .then([=](Report& r) mutable { rp.deliver(answer(c, print_reply_body(caf::make_message(r)))); },
            [=](caf::error& e) mutable {
              bool gone = e == caf::sec::request_receiver_down;
              rp.deliver(refusal(c, gone ? dm_error::unknown_target : dm_error_code(e),
                                 gone ? "process " + std::to_string(c.pid) + " exited"
                                      : dm_error_reason(e)));
            });
  return rp;
}

}  // namespace

caf::result<caf::message> flame_command(registry_actor self, const process_command& c) {
  auto parsed = parse_flame_argument(c.pid, c.command, c.argument);
  if (parsed.error) return refusal(c, dm_error_code(parsed.error), dm_error_reason(parsed.error));
  auto& p = self->state.processes.at(c.pid);
  if (!p.native) {
    if (!p.flame_last)
      return refusal(c, dm_error::unknown_target,
                     "process " + std::to_string(c.pid) + " is not watched (WATCH it first)");
    if (parsed.request.match_elements<timeline_request>())
      return answer(c, print_reply_body(caf::make_message(
                           ended(timeline_of(*p.flame_last, parsed.request.get_as<timeline_request>(0))))));
    auto r = flamegraph_of(*p.flame_last, parsed.request.get_as<flamegraph_request>(0));
    if (auto* why = std::get_if<std::string>(&r)) return refusal(c, dm_error::bad_argument, *why);
    return answer(c, print_reply_body(caf::make_message(ended(std::get<flamegraph_report>(r)))));
  }
  if (parsed.request.match_elements<timeline_request>())
    return ask_source<timeline_report>(self, c, p.native, parsed.request.get_as<timeline_request>(0));
  return ask_source<flamegraph_report>(self, c, p.native,
                                       parsed.request.get_as<flamegraph_request>(0));
}

caf::result<flame_export> flame_export_answer(registry_actor self, const flame_export_request& x) {
  auto i = self->state.processes.find(x.pid);
  if (i == self->state.processes.end() || (!i->second.native && !i->second.flame_last))
    return make_dm_error(dm_error::unknown_target,
                         "process " + std::to_string(x.pid) + " is not watched");
  if (!i->second.native) return flame_export_of(*i->second.flame_last, x.pid);
  auto rp = self->make_response_promise<flame_export>();
  self->request(i->second.native, std::chrono::seconds(30), x)
      .then([=](flame_export& r) mutable { rp.deliver(std::move(r)); },
            [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
  return rp;
}

void flame_phase_started(registry_actor self, const phase_info& p) {
  self->state.current_phase = p;
  for (auto& [pid, o] : self->state.processes)
    if (o.native) self->send(o.native, p);
}

}  // namespace perfdm
