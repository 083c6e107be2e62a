#include "actors/gateway_connection_actor.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <deque>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "messages/agent_replies.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/dyper_framing.hpp"
#include "messages/message_lists.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/xml_print_announcement.hpp"

namespace perfdm {

void gateway_note(const gateway_options& o, const std::string& what) {
  if (o.note)
    o.note(what);
  else
    std::cerr << "perfdm: gateway: " << what << std::endl;
}

namespace {

using options_ptr = std::shared_ptr<const gateway_options>;

// Requests read and waiting for their turn on one connection before its socket is no longer
// read (it is read again at a quarter): memory stays bounded however fast a client sends.
constexpr std::size_t max_waiting_requests = 1024;

bool same_target(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// ----------------------------------------------------------------------------- connection

// A request read from the client, waiting for its turn: either a request for a target, or
// an error it already earned (framing, size, XML), answered in its place in the order.
struct queued_request {
  std::string target;
  caf::message request;
  caf::error error;
  std::string text;  // as received, for the recording when it was refused
};

struct connection_state {
  options_ptr options;
  std::shared_ptr<gateway_transport> transport;  // shared with the transport's I/O thread
  std::unique_ptr<dyper_splitter> splitter;
  std::deque<queued_request> queue;
  bool busy = false;        // a request is at its target; the next waits for its reply
  std::string busy_target;  // that request's target and the request itself
  caf::message busy_request;
  bool paused = false;   // reading stopped: the client has too much output unread
  bool held = false;     // reading stopped: too many requests wait in `queue`
  bool closing = false;  // the client is gone: finish once the request in flight answered
  std::set<stream_handle> streams;            // opened here and not closed yet (T3 on disconnect)
  std::string client = "a client";            // for notes: "client <CONNECT id>" once known
  std::optional<dyper_agent_identity> agent;  // a connection dialed to a DyPer controller
  static inline const char* name = "gateway_connection";
};

using connection_actor = caf::stateful_actor<connection_state>;

void pump(connection_actor* self);

// Every reply a target may send (messages/message_lists.hpp; the XML codec prints each);
// anything else reaches the error handler as CAF's unexpected_response and is answered INTERNAL.
template <class... Ts, class F>
caf::behavior answer_handlers(type_list<Ts...>, F f) {
  return caf::behavior{[=](caf::error& e) { f(caf::make_message(std::move(e))); },
                       [=](Ts& x) { f(caf::make_message(std::move(x))); }...};
}

// T3: a client that disconnects has its streams closed, as if it sent CLOSE for each.
void finish(connection_actor* self) {
  auto& st = self->state;
  auto dm = st.options->targets.find(data_manager_target);
  if (dm != st.options->targets.end())
    for (auto s : st.streams) self->send(dm->second, close_stream{s});
  st.streams.clear();
  st.transport->close({});
  self->quit();
}

// The peer is gone or this side is done: answer nothing more; end once the request in
// flight answered.
void close_connection(connection_actor* self) {
  auto& st = self->state;
  st.closing = true;
  st.queue.clear();
  if (!st.busy) finish(self);
}

void write(connection_actor* self, std::string_view xml, bool is_reply) {
  auto& st = self->state;
  if (st.closing) return;
  auto written = is_reply ? st.transport->send_reply(xml) : st.transport->send_event(xml);
  if (written.unsent > st.options->max_output_bytes) {
    auto why = st.client + " does not read its output (" + std::to_string(written.unsent) +
               " bytes pending): disconnected, its streams closed";
    gateway_note(*st.options, why);
    st.transport->close("too much output unread");
    close_connection(self);
  } else if (written.paused) {
    st.paused = true;  // the socket stopped reading; requests already read wait too
  }
}

void reply(connection_actor* self, const std::string& target, const caf::message& answer) {
  write(self, print_reply(target, answer), true);
}

void on_event(connection_actor* self, const caf::message& event) {
  write(self, print_event(event), false);
}

// Who serves `request`: the log writer for LOG, the data manager for WHO (it keeps the
// process list for now), else the actor registered for the target.
caf::actor route(connection_actor* self, const queued_request& q, caf::error& error) {
  auto& o = *self->state.options;
  if (q.request.match_elements<write_log>()) {
    if (!o.log_writer) error = make_dm_error(dm_error::internal, "this engine writes no log");
    return o.log_writer;
  }
  // WHO and the process commands go to the data manager, which knows the processes.
  auto target =
      q.request.match_elements<who_request>() || q.request.match_elements<process_command>()
          ? std::string(data_manager_target)
          : q.target;
  for (auto& [id, actor] : o.targets)
    if (same_target(id, target)) return actor;
  error = make_dm_error(dm_error::unknown_target, "no process '" + q.target + "' is known");
  return {};
}

void on_answer(connection_actor* self, const caf::message& answer) {
  auto& st = self->state;
  st.busy = false;
  auto target = std::move(st.busy_target);
  auto request = std::move(st.busy_request);
  if (answer.match_elements<stream_opened>())
    st.streams.insert(answer.get_as<stream_opened>(0).stream);
  else if (request.match_elements<close_stream>() && answer.match_elements<ok_reply>())
    st.streams.erase(request.get_as<close_stream>(0).stream);
  if (st.closing) {
    finish(self);
    return;
  }
  reply(self, target, answer);
  pump(self);
}

// Sends the next request to its target once the previous one answered: one reply per
// request, in request order.
// Tells the data manager's recording of a request answered here, in its place in this
// connection's order.
void record_unsent(connection_actor* self, const queued_request& q) {
  auto& targets = self->state.options->targets;
  auto dm = targets.find(data_manager_target);
  if (dm == targets.end()) return;
  if (q.error && !q.text.empty())
    self->send(dm->second, perfdm::record_unsent{q.text, true});
  else if (q.error)  // the framing's refusals (LIMIT, a wrong trailer) have no text to replay
    self->send(dm->second, perfdm::record_unsent{"refused: " + dm_error_reason(q.error), false});
  else
    self->send(dm->second, perfdm::record_unsent{print_request(q.target, q.request), false});
}

void pump(connection_actor* self) {
  auto& st = self->state;
  while (!st.busy && !st.paused && !st.closing && !st.queue.empty()) {
    auto q = std::move(st.queue.front());
    st.queue.pop_front();
    if (q.error || q.request.match_elements<write_log>()) record_unsent(self, q);
    if (q.error) {
      reply(self, q.target, caf::make_message(q.error));
      continue;
    }
    if (st.agent && q.request.match_elements<who_request>()) {
      // DyPer's agent answers WHO with its own id, whatever processes the engine observes.
      write(self, print_agent_who_reply(agent_who_reply{st.agent->id}), true);
      continue;
    }
    caf::error error;
    auto dest = route(self, q, error);
    if (error) {
      reply(self, q.target, caf::make_message(error));
      continue;
    }
    if (q.request.match_elements<open_stream>())
      q.request = caf::make_message(open_stream{caf::actor_cast<caf::actor>(self)});
    st.busy = true;
    auto handle = self->request(dest, caf::infinite, q.request);
    st.busy_target = std::move(q.target);
    st.busy_request = std::move(q.request);
    // The handler captures only `self` (what it needs waits in the state): it is built for
    // every request, once per reply type.
    self->add_multiplexed_response_handler(
        handle.id(),
        answer_handlers(reply_types{}, [self](caf::message answer) { on_answer(self, answer); }));
  }
  if (st.held && st.queue.size() <= max_waiting_requests / 4) {
    st.held = false;
    st.transport->hold_reading(false);
  }
}

// Too many requests wait: the transport stops reading until pump() brings them down to a
// quarter.
void hold_if_flooded(connection_actor* self) {
  auto& st = self->state;
  if (!st.held && st.queue.size() > max_waiting_requests) {
    st.held = true;
    st.transport->hold_reading(true);
  }
}

void on_frame(connection_actor* self, dyper_frame& frame) {
  auto& st = self->state;
  switch (frame.kind) {
    case dyper_frame::connect:
      st.client = "client '" + frame.text + "'";
      return;  // DyPer's CONNECT has no reply
    case dyper_frame::too_large:
      st.queue.push_back(
          {"",
           {},
           make_dm_error(dm_error::limit, "a message may hold at most " +
                                              std::to_string(st.options->max_message_bytes) +
                                              " bytes, this one held more than " +
                                              std::to_string(frame.bytes) +
                                              "; it was skipped up to its ENDDYPERMSG"),
           {}});
      return;
    case dyper_frame::reply:
      st.queue.push_back(
          {"",
           {},
           make_dm_error(dm_error::bad_xml,
                         "a request ends with a line ENDDYPERMSG, not ENDDYPERREPLY"),
           {}});
      return;
    case dyper_frame::message: {
      auto parsed = parse_request(frame.text);
      auto text = parsed.error ? std::move(frame.text) : std::string{};
      st.queue.push_back({std::move(parsed.target), std::move(parsed.request),
                          std::move(parsed.error), std::move(text)});
      return;
    }
  }
}

// A process announcement on a connection dialed to a DyPer controller: only its own
// process's, under its DyPer id. START was said when the connection opened.
void on_agent_announcement(connection_actor* self, const process_announcement& a) {
  auto& st = self->state;
  if (a.pid != st.agent->pid) return;
  if (a.kind == process_announcement::start) return;
  write(self, print_agent_announcement(a.kind, st.agent->id, a.time_ms, a.body), false);
  if (a.kind == process_announcement::end) close_connection(self);
}

caf::behavior connection(connection_actor* self, std::shared_ptr<gateway_transport> transport,
                         options_ptr options, std::optional<dyper_agent_identity> agent) {
  auto& st = self->state;
  st.options = options;
  st.transport = std::move(transport);
  st.agent = std::move(agent);
  if (options->open_connections) {
    ++*options->open_connections;
    self->attach_functor([counter = options->open_connections] { --*counter; });
  }
  // The agent side frames as the DyPer agent does; it reads no CONNECT line.
  st.splitter =
      std::make_unique<dyper_splitter>(options->max_message_bytes, !st.agent.has_value());
  if (st.agent) {
    st.client = "controller (for " + st.agent->id + ")";
    write(self, "CONNECT " + st.agent->id, false);
    write(self, print_agent_announcement(process_announcement::start, st.agent->id), false);
  }
  if (auto dm = options->targets.find(data_manager_target); dm != options->targets.end()) {
    self->send(dm->second, record_origin{st.transport->origin(), true});
    self->send(dm->second, process_announcements{caf::actor_cast<caf::actor>(self)});
  }
  return {
      [=](gateway_input_atom, const std::string& bytes) {
        std::vector<dyper_frame> frames;
        self->state.splitter->feed(bytes, frames);
        for (auto& f : frames) on_frame(self, f);
        pump(self);
        hold_if_flooded(self);
      },
      // One whole message (a WebSocket frame): no framing to undo.
      [=](gateway_message_atom, std::string& text) {
        dyper_frame frame{dyper_frame::message, std::move(text), 0};
        on_frame(self, frame);
        pump(self);
        hold_if_flooded(self);
      },
      [=](gateway_drained_atom) {
        auto& st = self->state;
        if (st.paused && !st.transport->paused()) {
          st.paused = false;
          pump(self);
        }
      },
      [=](gateway_closed_atom) {
        auto& st = self->state;
        if (st.splitter->mid_message())
          gateway_note(*st.options, st.client +
                                        " closed the connection in the middle of a message (" +
                                        std::to_string(st.splitter->held_bytes()) +
                                        " bytes): it is not answered");
        close_connection(self);
      },
      // Events of the streams this connection opened (T1), pushed as they come.
      [=](data_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](fold_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](new_phase_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](samplerate_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](new_metric_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](new_resource_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](component_removed_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](component_added_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](shg_node_event& e) { on_event(self, caf::make_message(std::move(e))); },
      // DyPer's START/END of processes, pushed to every connection.
      [=](process_announcement& a) {
        if (self->state.agent)
          on_agent_announcement(self, a);
        else
          write(self, a.xml, false);
      },
  };
}

}  // namespace

caf::actor spawn_gateway_connection(caf::actor_system& sys,
                                    std::shared_ptr<gateway_transport> transport,
                                    std::shared_ptr<const gateway_options> options,
                                    std::optional<dyper_agent_identity> agent) {
  return sys.spawn(connection, std::move(transport), std::move(options), std::move(agent));
}

}  // namespace perfdm
