#include "cli/send_command.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <istream>
#include <ostream>

#include "cli/host_port.hpp"
#include "cli/stop_signals.hpp"
#include "messages/dyper_framing.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

// A reply is an error when its start tag carries ERROR.
bool is_error_reply(const std::string& xml) {
  auto end = xml.find('>');
  return xml.compare(0, 12, "<DYPER_REPLY") == 0 &&
         xml.substr(0, end).find(" ERROR=") != std::string::npos;
}

class connection {
 public:
  ~connection() {
    if (fd_ >= 0) close(fd_);
  }

  // Connects to host:port; on failure returns the reason.
  std::string open(const host_port& where) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    auto port = std::to_string(where.port);
    if (int rc = getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found); rc != 0)
      return gai_strerror(rc);
    std::string why = "no address";
    for (auto* a = found; a != nullptr; a = a->ai_next) {
      int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        fd_ = fd;
        break;
      }
      why = std::strerror(errno);
      close(fd);
    }
    freeaddrinfo(found);
    return fd_ >= 0 ? std::string() : why;
  }

  bool send_all(const std::string& bytes) {
    std::size_t at = 0;
    while (at < bytes.size()) {
      auto n = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      at += static_cast<std::size_t>(n);
    }
    return true;
  }

  enum class status { frame, closed, timeout, interrupted };

  // Waits up to `wait_ms` (-1: forever) for the next frame.
  status next(dyper_frame& frame, int wait_ms, bool stop_on_signal) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    while (frames_.empty()) {
      if (stop_on_signal && stop_requested()) return status::interrupted;
      int slice = 100;  // poll in slices so a signal is noticed
      if (wait_ms >= 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now())
                        .count();
        if (left <= 0) return status::timeout;
        slice = static_cast<int>(std::min<long long>(left, slice));
      }
      pollfd p{fd_, POLLIN, 0};
      int rc = poll(&p, 1, slice);
      if (rc < 0 && errno != EINTR) return status::closed;
      if (rc <= 0) continue;
      char buf[65536];
      auto n = recv(fd_, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return status::closed;
      splitter_.feed(std::string_view(buf, static_cast<std::size_t>(n)), frames_);
    }
    frame = std::move(frames_.front());
    frames_.erase(frames_.begin());
    return status::frame;
  }

 private:
  int fd_ = -1;
  // Replies can be large (a STATUS of many MIs), so the client's limit is generous.
  dyper_splitter splitter_{1u << 30, false};
  std::vector<dyper_frame> frames_;
};

}  // namespace

CLI::App* add_send_command(CLI::App& app, send_options& o) {
  auto* cmd = app.add_subcommand(
      "send",
      "Send requests to an engine listening on HOST:PORT and print the replies and "
      "stream events, one per line");
  cmd->add_option("ADDRESS", o.address, "HOST:PORT of `perfdm engine --listen`")->required();
  cmd->add_option("XML", o.request,
                  "one request; without it, requests are read from standard "
                  "input, one per line");
  cmd->add_flag("--watch", o.watch,
                "after the requests, keep printing stream events until Ctrl-C or SIGTERM");
  cmd->add_option("--timeout", o.timeout_seconds,
                  "seconds to wait for each reply (0: forever; default 60)");
  return cmd;
}

int run_send_command(const send_options& o, std::istream& in, std::ostream& out,
                     std::ostream& err) {
  auto where = parse_host_port(o.address);
  if (!where) {
    err << "perfdm send: the address is HOST:PORT, not '" << o.address << "'\n";
    return 2;
  }
  connection c;
  if (auto why = c.open(*where); !why.empty()) {
    err << "perfdm send: cannot connect to " << o.address << ": " << why << '\n';
    return 2;
  }
  const int wait_ms = o.timeout_seconds > 0 ? static_cast<int>(o.timeout_seconds * 1000) : -1;
  bool any_error = false;
  // Sends one request and prints what arrives up to its reply.
  auto exchange = [&](const std::string& request) -> int {
    if (!c.send_all(frame_message(request))) {
      err << "perfdm send: the engine closed the connection\n";
      return 2;
    }
    for (;;) {
      dyper_frame f;
      auto s = c.next(f, wait_ms, false);
      if (s == connection::status::timeout) {
        err << "perfdm send: no reply within " << o.timeout_seconds << " s\n";
        return 2;
      }
      if (s != connection::status::frame) {
        err << "perfdm send: the engine closed the connection before replying\n";
        return 2;
      }
      out << f.text << '\n';
      if (f.kind == dyper_frame::reply) {
        out.flush();
        if (is_error_reply(f.text)) any_error = true;
        return 0;
      }
    }
  };
  if (!o.request.empty()) {
    if (int rc = exchange(o.request)) return rc;
  } else {
    std::string line;
    while (std::getline(in, line)) {
      line = std::string(trim(line));
      if (line.empty() || line[0] == '#') continue;
      if (int rc = exchange(line)) return rc;
    }
  }
  if (o.watch) {
    install_stop_signals();
    for (;;) {
      dyper_frame f;
      auto s = c.next(f, -1, true);
      if (s == connection::status::interrupted) break;
      if (s != connection::status::frame) {
        err << "perfdm send: the engine closed the connection\n";
        return 2;
      }
      out << f.text << std::endl;
    }
  }
  return any_error ? 1 : 0;
}

}  // namespace perfdm
