#include "actors/dyper_controller_dialer_actor.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>

#include "actors/dyper_gateway_actor.hpp"
#include "gateway/gateway_io.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"
#include "proc/process_facts.hpp"

namespace perfdm {

namespace {

using dial_atom = caf::atom_constant<caf::atom("dialagain")>;
using connected_atom = caf::atom_constant<caf::atom("dialed")>;

// A TCP connection to host:port within `timeout`, or -1 with `why`.
int dial_tcp(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout,
             std::string& why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  auto service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found)) {
    why = std::string("cannot resolve '") + host + "': " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  why = "no address";
  for (auto* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = poll(&p, 1, static_cast<int>(timeout.count()));
      int error = 0;
      socklen_t len = sizeof error;
      if (rc == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 && error == 0) {
        rc = 0;
      } else {
        errno = rc == 0 ? ETIMEDOUT : error;
        rc = -1;
      }
    }
    if (rc != 0) {
      why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

struct link {
  caf::actor connection;  // null while not connected
  bool dialing = false;   // connected, its actor not known yet
  bool ended = false;     // the process ended: no more dialing
  bool retry_scheduled = false;
  std::chrono::milliseconds backoff{0};
};

struct dialer_state {
  std::shared_ptr<const controller_options> options;
  std::shared_ptr<const gateway_options> gateway;
  std::shared_ptr<gateway_io> io;
  std::map<std::int32_t, link> links;
  static inline const char* name = "dyper_controller_dialer";
};

using dialer_actor = caf::stateful_actor<dialer_state>;

void note(dialer_actor* self, const std::string& what) {
  auto& o = *self->state.options;
  if (o.note)
    o.note(what);
  else
    std::cerr << "perfdm: controller: " << what << std::endl;
}

std::string address(const controller_options& o) {
  return o.host + ":" + std::to_string(o.port);
}

void retry_later(dialer_actor* self, std::int32_t pid, const std::string& why) {
  auto& l = self->state.links[pid];
  auto& o = *self->state.options;
  l.backoff = l.backoff.count() == 0 ? o.first_retry : std::min(l.backoff * 2, o.max_retry);
  note(self, why + "; dialing again in " + std::to_string(l.backoff.count()) + " ms");
  if (l.retry_scheduled) return;
  l.retry_scheduled = true;
  self->delayed_send(self, l.backoff, dial_atom::value, pid);
}

void dial(dialer_actor* self, std::int32_t pid) {
  auto& st = self->state;
  auto& l = st.links[pid];
  if (l.ended || l.connection || l.dialing) return;
  std::string why;
  int fd = dial_tcp(st.options->host, st.options->port, st.options->connect_timeout, why);
  auto id = dyper_process_id(pid, st.options->hostname);
  if (fd < 0) {
    retry_later(
        self, pid,
        "cannot reach the controller at " + address(*st.options) + " for " + id + ": " + why);
    return;
  }
  l.dialing = true;
  auto dialer = caf::actor_cast<caf::actor>(self);
  auto gateway = st.gateway;
  auto& sys = self->home_system();
  st.io->adopt(fd, [&sys, dialer, gateway, pid, id](std::shared_ptr<gateway_socket> socket) {
    auto a = spawn_dyper_agent_connection(sys, std::move(socket), gateway, {pid, id});
    caf::anon_send(dialer, connected_atom::value, pid, a);
    return a;
  });
}

void on_announcement(dialer_actor* self, const process_announcement& a) {
  auto& st = self->state;
  if (a.kind == process_announcement::start) {
    auto& l = st.links[a.pid];
    l.ended = false;
    dial(self, a.pid);
  } else if (a.kind == process_announcement::end) {
    auto i = st.links.find(a.pid);
    if (i == st.links.end()) return;
    i->second.ended = true;
    // The connection says END and closes (it may have subscribed after the END went out).
    if (i->second.connection) self->send(i->second.connection, a);
  }
}

caf::behavior dialer(dialer_actor* self, std::shared_ptr<const controller_options> options,
                     std::shared_ptr<gateway_io> io) {
  auto& st = self->state;
  st.options = options;
  st.io = std::move(io);
  auto g = std::make_shared<gateway_options>();
  g->targets.emplace(data_manager_target, options->data_manager);
  g->log_writer = options->log_writer;
  if (options->note) g->note = options->note;
  st.gateway = g;
  self->send(options->data_manager, process_announcements{caf::actor_cast<caf::actor>(self)});
  // The processes observed already (engine --pid WATCHes before the dialer starts).
  self->request(options->data_manager, std::chrono::seconds(30), list_processes{})
      .then(
          [=](process_list& l) {
            for (auto& p : l.processes)
              if (p.active) dial(self, p.pid);
          },
          [=](caf::error& e) { note(self, "cannot list the processes: " + to_string(e)); });
  self->set_down_handler([=](caf::down_msg& d) {
    for (auto& [pid, l] : self->state.links)
      if (l.connection && l.connection.address() == d.source) {
        l.connection = nullptr;
        if (!l.ended)
          retry_later(self, pid,
                      "the controller at " + address(*self->state.options) +
                          " closed the connection for " +
                          dyper_process_id(pid, self->state.options->hostname));
      }
  });
  self->set_exit_handler([=](caf::exit_msg& exit) {
    for (auto& c : self->state.io->stop()) self->send_exit(c, exit.reason);
    self->quit(exit.reason);
  });
  return {
      [=](process_announcement& a) { on_announcement(self, a); },
      [=](connected_atom, std::int32_t pid, caf::actor& connection) {
        auto& l = self->state.links[pid];
        l.dialing = false;
        l.connection = connection;
        l.backoff = std::chrono::milliseconds(0);
        self->monitor(connection);
        note(self, "connected to the controller at " + address(*self->state.options) + " for " +
                       dyper_process_id(pid, self->state.options->hostname));
        if (l.ended)  // it ended while the connection was made
          self->send(connection, process_announcement{{}, pid, process_announcement::end, 0, {}});
      },
      [=](dial_atom, std::int32_t pid) {
        self->state.links[pid].retry_scheduled = false;
        dial(self, pid);
      },
  };
}

}  // namespace

std::string dyper_process_id(std::int32_t pid, const std::string& hostname) {
  return std::to_string(pid) + "@" + hostname;
}

caf::expected<caf::actor> start_dyper_controller_dialer(caf::actor_system& sys,
                                                        controller_options options) {
  if (options.hostname.empty()) options.hostname = proc::host_name();
  auto shared = std::make_shared<const controller_options>(std::move(options));
  auto io = gateway_io::without_listener(4u << 20, [shared](const std::string& what) {
    if (shared->note)
      shared->note(what);
    else
      std::cerr << "perfdm: controller: " << what << std::endl;
  });
  if (!io) return io.error();
  // Detached: dialing blocks (up to connect_timeout) without holding up CAF's workers.
  return sys.spawn<caf::detached>(dialer, shared, std::shared_ptr<gateway_io>(std::move(*io)));
}

}  // namespace perfdm
