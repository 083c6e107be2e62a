// For the gateway tests: a real `perfdm engine --listen` child process, and a client over a
// real TCP socket on 127.0.0.1 that speaks DyPer's framing.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "messages/dyper_framing.hpp"

namespace perfdm::gateway_test {

// Generous: CI runs two test processes on two loaded cores.
inline constexpr auto patience = std::chrono::seconds(20);

inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("perfdm_gateway_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Polls `condition` until it holds or `patience` passed; returns whether it held.
template <class F>
bool eventually(F&& condition, std::chrono::milliseconds limit = patience) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// `perfdm engine --listen 127.0.0.1:0` with standard input from /dev/null and standard error
// to a file (the port is read from there). SIGTERM and a wait when it goes out of scope.
// Stops the child `pid` (SIGTERM, then SIGKILL if it has not exited within `patience`) and
// returns its exit status, -1 when it had to be killed; `pid` becomes -1. A child stopped
// already (`pid` <= 0) returns `status` as it was.
inline int stop_child(pid_t& pid, int& status) {
  if (pid <= 0) return status;
  ::kill(pid, SIGTERM);
  int raw = 0;
  if (!eventually([&] { return waitpid(pid, &raw, WNOHANG) == pid; })) {
    ::kill(pid, SIGKILL);
    waitpid(pid, &raw, 0);
    status = -1;
  } else {
    status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  }
  pid = -1;
  return status;
}

class engine_process {
 public:
  explicit engine_process(const std::string& name) {
    err_path_ = temp_path(name + ".err");
    log_path_ = temp_path(name + ".log");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      int in = open("/dev/null", O_RDONLY);
      int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(in, STDIN_FILENO);
      dup2(err, STDERR_FILENO);
      execl(PERFDM_BINARY, PERFDM_BINARY, "engine", "--listen", "127.0.0.1:0", "--log",
            log_path_.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    const std::string marker = "perfdm: listening on 127.0.0.1:";
    bool up = eventually([&] {
      auto text = slurp(err_path_);
      auto at = text.find(marker);
      if (at == std::string::npos || text.find('\n', at) == std::string::npos) return false;
      port_ = static_cast<std::uint16_t>(std::stoul(text.substr(at + marker.size())));
      return true;
    });
    if (!up) {
      stop();
      throw std::runtime_error("the engine did not start listening: " + slurp(err_path_));
    }
  }
  ~engine_process() {
    stop();
    std::filesystem::remove(err_path_);
    std::filesystem::remove(log_path_);
  }

  std::uint16_t port() const { return port_; }
  std::string errors() const { return slurp(err_path_); }
  bool alive() const { return pid_ > 0 && ::kill(pid_, 0) == 0 && !exited_now(); }

  // SIGTERM, then the exit status (-1 when it had to be killed).
  int stop() { return stop_child(pid_, status_); }

 private:
  bool exited_now() const {
    int status = 0;
    return waitpid(pid_, &status, WNOHANG) == pid_;
  }
  pid_t pid_ = -1;
  int status_ = 0;
  std::uint16_t port_ = 0;
  std::string err_path_, log_path_;
};

// One TCP connection to the gateway.
class client {
 public:
  explicit client(std::uint16_t port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error(std::string("cannot connect: ") + std::strerror(errno));
  }
  ~client() { close(); }
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  void send_raw(const std::string& bytes) {
    std::size_t at = 0;
    while (at < bytes.size()) {
      auto n = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error("send failed");
      at += static_cast<std::size_t>(n);
    }
  }
  void send(const std::string& request) { send_raw(frame_message(request)); }

  // The next frame; throws when none comes within `patience` or the connection closed.
  dyper_frame next() {
    dyper_frame f;
    if (!try_next(f, patience)) throw std::runtime_error("no frame from the gateway");
    return f;
  }

  // The next frame within `limit`; false on timeout or a closed connection.
  bool try_next(dyper_frame& frame, std::chrono::milliseconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (frames_.empty()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0 || closed_) return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char buf[65536];
      auto n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        return false;
      }
      splitter_.feed(std::string_view(buf, static_cast<std::size_t>(n)), frames_);
    }
    frame = std::move(frames_.front());
    frames_.erase(frames_.begin());
    return true;
  }

  // True once the gateway closed the connection (reading and discarding what is left).
  bool closed_by_peer(std::chrono::milliseconds limit = patience) {
    dyper_frame f;
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!try_next(f, std::chrono::milliseconds(100)) && closed_) return true;
    }
    return false;
  }

  // Sends `request` and returns its reply; the events that came first go to `events`.
  std::string ask(const std::string& request, std::vector<std::string>* events = nullptr) {
    send(request);
    for (;;) {
      auto f = next();
      if (f.kind == dyper_frame::reply) return f.text;
      if (events) events->push_back(f.text);
    }
  }

 private:
  int fd_ = -1;
  bool closed_ = false;
  dyper_splitter splitter_{1u << 30, false};
  std::vector<dyper_frame> frames_;
};

inline std::string dm(const std::string& command, const std::string& argument = "") {
  return argument.empty() ? "<DYPER PID='DM' COMMAND='" + command + "'/>"
                          : "<DYPER PID='DM' COMMAND='" + command + "'>" + argument + "</DYPER>";
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The MI entries of a STATUS reply, by id: the attribute text of each <MI .../>.
inline std::map<std::string, std::string> status_mis(const std::string& reply) {
  std::map<std::string, std::string> out;
  static const std::regex mi("<MI ID='([0-9]+)'([^>]*)/>");
  for (std::sregex_iterator i(reply.begin(), reply.end(), mi), end; i != end; ++i)
    out[(*i)[1]] = (*i)[2];
  return out;
}

// The walk-through session of docs/PROTOCOL.md (every DM command, errors included), then
// `more`: what every front end's test sends and compares with replay.
inline std::vector<std::string> walkthrough_and(std::vector<std::string> more) {
  std::vector<std::string> out = {
      dm("STREAM"),
      dm("DEFINE", "<METRIC NAME='cpu' STYLE='COUNTER' UNITS='s'/>"),
      dm("DEFINE", "<RESOURCE NAME='/Process/app'/>"),
      dm("METRICS"),
      dm("RESOURCES"),
      dm("ENABLE",
         "<ENABLE STREAM='0' METRIC='cpu' FOCUS='/Process/app' PHASE='CURRENT' "
         "PERSISTENT_DATA='true'/>"),
      dm("SAMPLES",
         "<SAMPLES><S MI='0' START='0' END='0.3' VALUE='3'/>"
         "<S MI='0' START='0.3' END='0.5' VALUE='1'/></SAMPLES>"),
      dm("DATA", "<DATA MI='0' PHASE='CURRENT'/>"),
      dm("SETFLAGS", "<FLAGS MI='0' PERSISTENT_COLLECTION='true'/>"),
      dm("SAMPLERATE"),
      dm("PHASE", "<PHASE NAME='busy'/>"),
      dm("PHASES"),
      dm("DATA", "<DATA MI='0' PHASE='0'/>"),
      dm("ENABLE", "<ENABLE STREAM='0' METRIC='cpu' FOCUS='/Process/app'/>"),
      dm("STATUS"),
      dm("DISABLE", "<DISABLE STREAM='0' MI='0' PHASE='GLOBAL'/>"),
      dm("CLEARFLAGS", "<FLAGS MI='0' PERSISTENT_COLLECTION='true'/>"),
      dm("STATUS"),
      dm("PING"),
      "<DYPER COMMAND='WHO'/>",
  };
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

// `perfdm replay` of `requests`: the reference output, one line per reply or event.
inline std::vector<std::string> replayed(const std::vector<std::string>& requests) {
  auto file = temp_path("every.replay");
  {
    std::ofstream out(file);
    for (auto& r : requests) out << r << '\n';
  }
  std::string output;
  auto* p = popen((std::string(PERFDM_BINARY) + " replay " + file).c_str(), "r");
  if (!p) throw std::runtime_error("cannot run perfdm replay");
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  pclose(p);
  std::filesystem::remove(file);
  return lines_of(output);
}

}  // namespace perfdm::gateway_test
