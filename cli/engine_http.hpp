// `perfdm engine --http [HOST:]PORT`: the dashboard (docs/DASHBOARD.md) in front of a
// session's data manager: the page, its WebSocket (the XML command language), GET /metrics.
// Loopback unless a host is given; beyond loopback only with TLS (--tls-cert and --tls-key, the
// options of --publish; with --tls-ca clients need a certificate it signed) or with
// --http-insecure (plain HTTP: anyone who reaches the port commands the engine).
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "cli/xml_session.hpp"
#include "http/http_server.hpp"

namespace perfdm {

struct http_options {
  std::string address;  // empty: no dashboard
  bool insecure = false;
  std::size_t max_connections = 64;
  std::string tls_cert, tls_key, tls_ca;  // --tls-* (shared with --publish)
};

// Adds --http, --http-insecure and --http-max-connections to the engine subcommand.
void add_http_options(CLI::App& engine, http_options& o);

// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost).
bool is_loopback_host(const std::string& host);

// Where the page's files are: <prefix>/share/perfdm/web next to an installed executable,
// else the source tree's web/ (the build's).
std::string dashboard_web_root();

class engine_http {
 public:
  engine_http() = default;
  engine_http(const engine_http&) = delete;
  engine_http& operator=(const engine_http&) = delete;
  ~engine_http() { stop(); }

  // Serves the dashboard of `s` on o.address (LOG writes to `default_log` unless it names a
  // FILE); `open_connections` counts the engine's client connections (shared with --listen).
  // Prints `perfdm: dashboard on http://HOST:PORT/` to `err`. Does nothing and returns true
  // when o.address is empty. On failure prints why to `err` and returns false.
  bool start(session& s, const http_options& o, const std::string& default_log,
             std::shared_ptr<std::atomic<std::int64_t>> open_connections, std::ostream& err);

  void stop();
  bool running() const { return static_cast<bool>(server_); }

 private:
  std::unique_ptr<http_server> server_;
  caf::actor log_writer_;
};

}  // namespace perfdm
