#include "actors/dyper_gateway_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <deque>
#include <iostream>
#include <memory>
#include <set>

#include "actors/gateway_io.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/dyper_framing.hpp"
#include "messages/message_lists.hpp"
#include "messages/process_commands.hpp"
#include "messages/record_messages.hpp"

namespace perfdm {

namespace {

using options_ptr = std::shared_ptr<const gateway_options>;

// Requests read and waiting for their turn on one connection before its socket is no longer
// read (it is read again at a quarter): memory stays bounded however fast a client sends.
constexpr std::size_t max_waiting_requests = 1024;

void note(const gateway_options& o, const std::string& what) {
  if (o.note)
    o.note(what);
  else
    std::cerr << "perfdm: gateway: " << what << std::endl;
}

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
  std::shared_ptr<gateway_socket> socket;  // shared with the gateway's I/O thread
  std::unique_ptr<dyper_splitter> splitter;
  std::deque<queued_request> queue;
  bool busy = false;        // a request is at its target; the next waits for its reply
  std::string busy_target;  // that request's target and the request itself
  caf::message busy_request;
  bool paused = false;   // reading stopped: the client has too much output unread
  bool held = false;     // reading stopped: too many requests wait in `queue`
  bool closing = false;  // the client is gone: finish once the request in flight answered
  std::set<stream_handle> streams;  // opened here and not closed yet (T3 on disconnect)
  std::string client = "a client";  // for notes: "client <CONNECT id>" once known
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
  st.socket->close();
  self->quit();
}

void write(connection_actor* self, const std::string& bytes) {
  auto& st = self->state;
  if (st.closing) return;
  auto written = st.socket->write(bytes);
  if (written.unsent > st.options->max_output_bytes) {
    note(*st.options, st.client + " does not read its output (" + std::to_string(written.unsent) +
                          " bytes pending): disconnected, its streams closed");
    st.socket->close();
    st.closing = true;
    st.queue.clear();
    if (!st.busy) finish(self);
  } else if (written.paused) {
    st.paused = true;  // the socket stopped reading; requests already read wait too
  }
}

void reply(connection_actor* self, const std::string& target, const caf::message& answer) {
  write(self, frame_reply(print_reply(target, answer)));
}

void on_event(connection_actor* self, const caf::message& event) {
  write(self, frame_message(print_event(event)));
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
    st.socket->hold_reading(false);
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

caf::behavior connection(connection_actor* self, std::shared_ptr<gateway_socket> socket,
                         options_ptr options) {
  auto& st = self->state;
  st.options = options;
  st.socket = std::move(socket);
  st.splitter = std::make_unique<dyper_splitter>(options->max_message_bytes);
  if (auto dm = options->targets.find(data_manager_target); dm != options->targets.end()) {
    self->send(dm->second, record_origin{"tcp " + std::to_string(st.socket->id()), true});
    self->send(dm->second, process_announcements{caf::actor_cast<caf::actor>(self)});
  }
  return {
      [=](gateway_input_atom, const std::string& bytes) {
        std::vector<dyper_frame> frames;
        self->state.splitter->feed(bytes, frames);
        for (auto& f : frames) on_frame(self, f);
        pump(self);
        auto& st = self->state;
        if (!st.held && st.queue.size() > max_waiting_requests) {
          st.held = true;
          st.socket->hold_reading(true);
        }
      },
      [=](gateway_drained_atom) {
        auto& st = self->state;
        if (st.paused && !st.socket->paused()) {
          st.paused = false;
          pump(self);
        }
      },
      [=](gateway_closed_atom) {
        auto& st = self->state;
        if (st.splitter->mid_message())
          note(*st.options, st.client + " closed the connection in the middle of a message (" +
                                std::to_string(st.splitter->held_bytes()) +
                                " bytes): it is not answered");
        st.closing = true;
        st.queue.clear();
        if (!st.busy) finish(self);
      },
      // Events of the streams this connection opened (T1), pushed as they come.
      [=](data_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](fold_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](new_phase_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](samplerate_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](new_metric_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](new_resource_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](component_removed_event& e) { on_event(self, caf::make_message(std::move(e))); },
      [=](shg_node_event& e) { on_event(self, caf::make_message(std::move(e))); },
      // DyPer's START/END of processes, pushed to every connection.
      [=](process_announcement& a) { write(self, frame_message(a.xml)); },
  };
}

// ----------------------------------------------------------------------------- gateway

// The actor that stands for the gateway: it owns the I/O thread; its exit stops the thread
// and every connection.
struct gateway_state {
  std::shared_ptr<gateway_io> io;
};

caf::behavior gateway(caf::stateful_actor<gateway_state>* self, std::shared_ptr<gateway_io> io) {
  self->state.io = std::move(io);
  self->set_exit_handler([=](caf::exit_msg& exit) {
    for (auto& c : self->state.io->stop()) self->send_exit(c, exit.reason);
    self->quit(exit.reason);
  });
  return {[=](caf::get_atom) { return self->state.io->port(); }};
}

}  // namespace

caf::expected<std::pair<caf::actor, std::uint16_t>> start_dyper_gateway(caf::actor_system& sys,
                                                                        gateway_options options) {
  auto shared = std::make_shared<const gateway_options>(std::move(options));
  auto io = gateway_io::listen(
      shared->host, shared->port, shared->pause_output_bytes,
      [&sys, shared](std::shared_ptr<gateway_socket> socket) {
        return sys.spawn(connection, std::move(socket), shared);
      },
      [shared](const std::string& what) { note(*shared, what); });
  if (!io) return io.error();
  auto port = (*io)->port();
  return std::make_pair(sys.spawn(gateway, std::shared_ptr<gateway_io>(std::move(*io))), port);
}

}  // namespace perfdm
