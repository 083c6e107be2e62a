#include "cli/engine_http.hpp"

#include <caf/send.hpp>
#include <filesystem>
#include <system_error>

#include "cli/dm_log_writer.hpp"
#include "cli/host_port.hpp"

#ifndef PERFDM_SOURCE_WEB_DIR
#define PERFDM_SOURCE_WEB_DIR "web"
#endif
#ifndef PERFDM_SOURCE_NPM_DIR
#define PERFDM_SOURCE_NPM_DIR "web/node_modules"
#endif

namespace perfdm {

void add_http_options(CLI::App& engine, http_options& o) {
  engine.add_option("--http", o.address,
                    "serve the dashboard (page, WebSocket /ws, GET /metrics) on [HOST:]PORT; "
                    "loopback unless a host is given; port 0 picks one; the engine then runs "
                    "until SIGINT/SIGTERM");
  engine.add_flag("--http-insecure", o.insecure,
                  "let --http listen beyond loopback in plain HTTP, without authentication");
  engine
      .add_option("--http-max-connections", o.max_connections,
                  "dashboard connections at once (HTTP and WebSocket); more are answered 503")
      ->check(CLI::Range(1, 100000));
}

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

std::string dashboard_web_root() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto installed = exe.parent_path().parent_path() / "share" / "perfdm" / "web";
    if (std::filesystem::is_regular_file(installed / "index.html", ec)) return installed.string();
  }
  return PERFDM_SOURCE_WEB_DIR;
}

bool engine_http::start(session& s, const http_options& o, const std::string& default_log,
                        std::shared_ptr<std::atomic<std::int64_t>> open_connections,
                        std::ostream& err) {
  if (o.address.empty()) return true;
  auto where = parse_host_port(o.address);
  if (!where) {
    err << "perfdm: --http takes [HOST:]PORT (e.g. 127.0.0.1:0), not '" << o.address << "'\n";
    return false;
  }
  const bool tls = !o.tls_cert.empty() || !o.tls_key.empty() || !o.tls_ca.empty();
  if (tls && (o.tls_cert.empty() || o.tls_key.empty())) {
    err << "perfdm: --http with TLS needs --tls-cert and --tls-key (--tls-ca: clients must show "
           "a certificate it signed)\n";
    return false;
  }
  if (!is_loopback_host(where->host) && !tls && !o.insecure) {
    err << "perfdm: --http " << o.address
        << " listens beyond loopback: the dashboard commands the engine; give it TLS "
           "(--tls-cert, --tls-key, --tls-ca) or add --http-insecure to serve plain HTTP\n";
    return false;
  }
  gateway_options g;
  g.targets.emplace(data_manager_target, s.data_manager());
  log_writer_ = spawn_dm_log_writer(s.system(), s.data_manager(), s.log_job(), default_log);
  g.log_writer = log_writer_;
  g.open_connections = std::move(open_connections);
  http_server_options h;
  h.host = where->host;
  h.port = where->port;
  // Installed, the page's chart libraries are in the web folder (lib/); in a build they are in
  // the source tree's web/node_modules, where scripts/setup.sh's `npm ci` put them.
  auto web = dashboard_web_root();
  h.roots = {web, web == PERFDM_SOURCE_WEB_DIR ? PERFDM_SOURCE_NPM_DIR : ""};
  h.gateway = std::make_shared<const gateway_options>(std::move(g));
  h.max_connections = o.max_connections;
  h.tls_cert = o.tls_cert;
  h.tls_key = o.tls_key;
  h.tls_ca = o.tls_ca;
  auto started = http_server::start(s.system(), std::move(h));
  if (!started) {
    err << "perfdm: cannot serve the dashboard on " << o.address << ": "
        << s.system().render(started.error()) << '\n';
    stop();
    return false;
  }
  server_ = std::move(*started);
  auto host = where->host.find(':') != std::string::npos && where->host[0] != '['
                  ? "[" + where->host + "]"
                  : where->host;
  err << "perfdm: dashboard on " << (tls ? "https://" : "http://") << host << ':' << server_->port()
      << '/' << std::endl;
  return true;
}

void engine_http::stop() {
  if (server_) server_->stop();
  server_.reset();
  if (log_writer_) caf::anon_send_exit(log_writer_, caf::exit_reason::user_shutdown);
  log_writer_ = nullptr;
}

}  // namespace perfdm
