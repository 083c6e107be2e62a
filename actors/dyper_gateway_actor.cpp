#include "actors/dyper_gateway_actor.hpp"

#include <caf/atom.hpp>
#include <caf/io/broker.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <deque>
#include <iostream>
#include <memory>
#include <set>

#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/message_lists.hpp"
#include "messages/process_commands.hpp"
#include "messages/record_messages.hpp"
#include "messages/dyper_framing.hpp"

namespace perfdm {

namespace {

using port_atom = caf::atom_constant<caf::atom("gwport")>;
using options_ptr = std::shared_ptr<const gateway_options>;

// Bytes asked of the socket per read.
constexpr std::size_t read_chunk = 64 * 1024;

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
  caf::io::connection_handle hdl;
  std::unique_ptr<dyper_splitter> splitter;
  std::deque<queued_request> queue;
  bool busy = false;            // a request is at its target; the next waits for its reply
  bool paused = false;          // reading stopped: the client has too much output unread
  bool closing = false;         // the client is gone: finish once the request in flight answered
  std::uint64_t unwritten = 0;  // output handed to the socket, not yet sent
  std::set<stream_handle> streams;  // opened here and not closed yet (T3 on disconnect)
  std::string client = "a client";  // for notes: "client <CONNECT id>" once known
};

using connection_broker = caf::io::stateful_broker<connection_state>;

void pump(connection_broker* self);

// Every reply a target may send (messages/message_lists.hpp; the XML codec prints each);
// anything else reaches the error handler as CAF's unexpected_response and is answered INTERNAL.
template <class... Ts, class F>
caf::behavior answer_handlers(type_list<Ts...>, F f) {
  return caf::behavior{[=](caf::error& e) { f(caf::make_message(std::move(e))); },
                       [=](Ts& x) { f(caf::make_message(std::move(x))); }...};
}

// T3: a client that disconnects has its streams closed, as if it sent CLOSE for each.
void finish(connection_broker* self) {
  auto& st = self->state;
  auto dm = st.options->targets.find(data_manager_target);
  if (dm != st.options->targets.end())
    for (auto s : st.streams) self->send(dm->second, close_stream{s});
  st.streams.clear();
  self->quit();
}

void write(connection_broker* self, const std::string& bytes) {
  auto& st = self->state;
  if (st.closing) return;
  auto& buf = self->wr_buf(st.hdl);
  buf.insert(buf.end(), bytes.begin(), bytes.end());
  self->flush(st.hdl);
  st.unwritten += bytes.size();
  if (st.unwritten > st.options->max_output_bytes) {
    note(*st.options, st.client + " does not read its output (" + std::to_string(st.unwritten) +
                          " bytes pending): disconnected, its streams closed");
    self->close(st.hdl);
    st.closing = true;
    st.queue.clear();
    if (!st.busy) finish(self);
  } else if (!st.paused && st.unwritten > st.options->pause_output_bytes) {
    st.paused = true;
    self->halt(st.hdl);
  }
}

void reply(connection_broker* self, const std::string& target, const caf::message& answer) {
  write(self, frame_reply(print_reply(target, answer)));
}

void on_event(connection_broker* self, const caf::message& event) {
  write(self, frame_message(print_event(event)));
}

// Who serves `request`: the log writer for LOG, the data manager for WHO (it keeps the
// process list for now), else the actor registered for the target.
caf::actor route(connection_broker* self, const queued_request& q, caf::error& error) {
  auto& o = *self->state.options;
  if (q.request.match_elements<write_log>()) {
    if (!o.log_writer) error = make_dm_error(dm_error::internal, "this engine writes no log");
    return o.log_writer;
  }
  // WHO and the process commands go to the data manager, which knows the processes.
  auto target = q.request.match_elements<who_request>() ||
                        q.request.match_elements<process_command>()
                    ? std::string(data_manager_target)
                    : q.target;
  for (auto& [id, actor] : o.targets)
    if (same_target(id, target)) return actor;
  error = make_dm_error(dm_error::unknown_target, "no process '" + q.target + "' is known");
  return {};
}

void on_answer(connection_broker* self, const std::string& target, const caf::message& request,
               const caf::message& answer) {
  auto& st = self->state;
  st.busy = false;
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
void record_unsent(connection_broker* self, const queued_request& q) {
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

void pump(connection_broker* self) {
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
    auto target = q.target;
    auto request = q.request;
    self->add_multiplexed_response_handler(handle.id(),
                                           answer_handlers(reply_types{}, [=](caf::message answer) {
                                             on_answer(self, target, request, answer);
                                           }));
  }
}

void on_frame(connection_broker* self, dyper_frame& frame) {
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

caf::behavior connection(connection_broker* self, caf::io::connection_handle hdl,
                         options_ptr options) {
  auto& st = self->state;
  st.options = options;
  st.hdl = hdl;
  st.splitter = std::make_unique<dyper_splitter>(options->max_message_bytes);
  self->configure_read(hdl, caf::io::receive_policy::at_most(read_chunk));
  self->ack_writes(hdl, true);
  if (auto dm = options->targets.find(data_manager_target); dm != options->targets.end()) {
    self->send(dm->second, record_origin{"tcp " + std::to_string(hdl.id()), true});
    self->send(dm->second, process_announcements{caf::actor_cast<caf::actor>(self)});
  }
  return {
      [=](const caf::io::new_data_msg& msg) {
        std::vector<dyper_frame> frames;
        self->state.splitter->feed(std::string_view(msg.buf.data(), msg.buf.size()), frames);
        for (auto& f : frames) on_frame(self, f);
        pump(self);
      },
      [=](const caf::io::data_transferred_msg& msg) {
        auto& st = self->state;
        st.unwritten = msg.remaining;
        if (st.paused && st.unwritten <= st.options->pause_output_bytes / 4) {
          st.paused = false;
          self->trigger(st.hdl);
          pump(self);
        }
      },
      [=](const caf::io::connection_closed_msg&) {
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
      // DyPer's START/END of processes, pushed to every connection.
      [=](process_announcement& a) { write(self, frame_message(a.xml)); },
  };
}

// ----------------------------------------------------------------------------- acceptor

struct acceptor_state {
  std::uint16_t port = 0;
  caf::error bind_error;
  std::set<caf::actor> connections;
};

caf::behavior acceptor(caf::io::broker* self, options_ptr options) {
  auto st = std::make_shared<acceptor_state>();
  auto bound = self->add_tcp_doorman(options->port, options->host.c_str(), true);
  if (bound)
    st->port = bound->second;
  else
    st->bind_error = bound.error();
  self->set_down_handler([=](caf::down_msg& down) {
    for (auto i = st->connections.begin(); i != st->connections.end(); ++i)
      if (i->address() == down.source) {
        st->connections.erase(i);
        return;
      }
  });
  // Stopping the gateway stops every connection with it.
  self->set_exit_handler([=](caf::exit_msg& exit) {
    for (auto& c : st->connections) self->send_exit(c, exit.reason);
    st->connections.clear();
    self->quit(exit.reason);
  });
  return {
      [=](const caf::io::new_connection_msg& msg) {
        auto c = self->fork(connection, msg.handle, options);
        self->monitor(c);
        st->connections.insert(c);
      },
      [=](port_atom) -> caf::result<std::uint16_t> {
        if (st->bind_error) return st->bind_error;
        return st->port;
      },
      [=](const caf::io::acceptor_closed_msg&) {
        note(*options, "the listening socket closed; no new connections");
      },
  };
}

}  // namespace

caf::expected<std::pair<caf::actor, std::uint16_t>> start_dyper_gateway(caf::actor_system& sys,
                                                                        gateway_options options) {
  auto shared = std::make_shared<const gateway_options>(std::move(options));
  auto gateway = sys.middleman().spawn_broker(acceptor, shared);
  caf::scoped_actor self{sys};
  caf::expected<std::pair<caf::actor, std::uint16_t>> result{caf::sec::runtime_error};
  self->request(gateway, caf::infinite, port_atom::value)
      .receive([&](std::uint16_t port) { result = std::make_pair(gateway, port); },
               [&](caf::error& e) {
                 self->send_exit(gateway, caf::exit_reason::user_shutdown);
                 result = std::move(e);
               });
  return result;
}

}  // namespace perfdm
