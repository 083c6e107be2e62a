// For the dashboard tests: a real `perfdm engine --listen 127.0.0.1:0 --http 127.0.0.1:0`
// child process, a WebSocket client and an HTTP client (Boost.Beast, synchronous, with a
// receive timeout) on 127.0.0.1.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/gateway_test_support.hpp"

namespace perfdm::dashboard_test {

using gateway_test::eventually;
using gateway_test::slurp;
using gateway_test::temp_path;

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = boost::asio::ip::tcp;

// Reads on `fd` give up after 20 s (the sync Beast calls have no timeout of their own).
inline void bound_reads(int fd) {
  timeval tv{20, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

// `perfdm engine --listen 127.0.0.1:0 --http 127.0.0.1:0 EXTRA…`; SIGTERM when it goes.
class engine_process {
 public:
  explicit engine_process(const std::string& name, std::vector<std::string> extra = {}) {
    err_path_ = temp_path(name + ".dash.err");
    log_path_ = temp_path(name + ".dash.log");
    std::vector<std::string> args = {PERFDM_BINARY, "engine",      "--listen", "127.0.0.1:0",
                                     "--http",      "127.0.0.1:0", "--log",    log_path_};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      int in = open("/dev/null", O_RDONLY);
      int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(in, STDIN_FILENO);
      dup2(err, STDERR_FILENO);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(PERFDM_BINARY, argv.data());
      _exit(127);
    }
    static const std::regex listening("listening on 127\\.0\\.0\\.1:([0-9]+)\n");
    static const std::regex dashboard("dashboard on https?://127\\.0\\.0\\.1:([0-9]+)/\n");
    bool up = eventually([&] {
      auto text = slurp(err_path_);
      std::smatch a, b;
      if (!std::regex_search(text, a, listening) || !std::regex_search(text, b, dashboard))
        return false;
      tcp_port_ = static_cast<std::uint16_t>(std::stoul(a[1]));
      http_port_ = static_cast<std::uint16_t>(std::stoul(b[1]));
      return true;
    });
    if (!up) {
      stop();
      throw std::runtime_error("the engine did not start: " + slurp(err_path_));
    }
  }
  ~engine_process() {
    stop();
    std::filesystem::remove(err_path_);
    std::filesystem::remove(log_path_);
  }
  std::uint16_t tcp_port() const { return tcp_port_; }
  std::uint16_t http_port() const { return http_port_; }
  std::string errors() const { return slurp(err_path_); }

  int stop() { return gateway_test::stop_child(pid_, status_); }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  std::uint16_t tcp_port_ = 0, http_port_ = 0;
  std::string err_path_, log_path_;
};

// One WebSocket to /ws.
class ws_client {
 public:
  explicit ws_client(std::uint16_t port, const std::string& origin = {}) : ws_(io_) {
    tcp::endpoint at(boost::asio::ip::make_address("127.0.0.1"), port);
    ws_.next_layer().connect(at);
    bound_reads(ws_.next_layer().native_handle());
    ws_.set_option(websocket::stream_base::decorator([origin](websocket::request_type& r) {
      if (!origin.empty()) r.set(http::field::origin, origin);
    }));
    ws_.handshake(response_, "127.0.0.1:" + std::to_string(port), "/ws");
  }
  void send(const std::string& text) {
    ws_.text(true);
    ws_.write(boost::asio::buffer(text));
  }
  // The next message; throws on a close or after 20 s.
  std::string next() {
    beast::flat_buffer b;
    ws_.read(b);
    return beast::buffers_to_string(b.data());
  }
  // Sends `request`, returns its reply; the events that came first go to `events`.
  std::string ask(const std::string& request, std::vector<std::string>* events = nullptr) {
    send(request);
    for (;;) {
      auto m = next();
      if (m.rfind("<DYPER_REPLY", 0) == 0) return m;
      if (events) events->push_back(m);
    }
  }
  websocket::close_reason close_reason() const { return ws_.reason(); }
  void close() { ws_.close(websocket::close_code::normal); }

 private:
  boost::asio::io_context io_;
  websocket::stream<tcp::socket> ws_;
  websocket::response_type response_;
};

struct http_answer {
  unsigned status = 0;
  std::string content_type;
  std::string body;
};

// One request on a new connection.
inline http_answer http_request(std::uint16_t port, const std::string& target,
                                http::verb method = http::verb::get) {
  boost::asio::io_context io;
  tcp::socket s(io);
  s.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  bound_reads(s.native_handle());
  http::request<http::empty_body> req(method, target, 11);
  req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  http::write(s, req);
  beast::flat_buffer b;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  if (method == http::verb::head) parser.skip(true);
  http::read(s, b, parser);
  auto res = parser.release();
  return {res.result_int(), std::string(res[http::field::content_type]), res.body()};
}

}  // namespace perfdm::dashboard_test
