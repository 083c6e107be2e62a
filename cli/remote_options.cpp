#include "cli/remote_options.hpp"

#include <algorithm>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/remote_actor.hpp>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>

#include "messages/type_registry.hpp"

namespace perfdm {

void add_remote_options(CLI::App& sub, remote_options& o) {
  sub.add_option("--heartbeat-ms", o.heartbeat_ms,
                 "milliseconds between heartbeats to remote peers (default 1000)")
      ->check(CLI::Range(1, 3600000));
  sub.add_option("--timeout-ms", o.timeout_ms,
                 "a remote peer silent this long is dropped, its streams closed (default 5000)")
      ->check(CLI::Range(1, 3600000));
  sub.add_option("--tls-cert", o.tls_cert,
                 "TLS: this end's certificate (PEM); with --tls-key and --tls-ca, the peer "
                 "must present a certificate signed by the CA too")
      ->check(CLI::ExistingFile);
  sub.add_option("--tls-key", o.tls_key, "TLS: the private key of --tls-cert (PEM)")
      ->check(CLI::ExistingFile);
  sub.add_option("--tls-ca", o.tls_ca, "TLS: the CA certificate (PEM) peers must be signed by")
      ->check(CLI::ExistingFile);
}

std::string remote_options_problem(const remote_options& o) {
  if (o.tls() && (o.tls_cert.empty() || o.tls_key.empty() || o.tls_ca.empty()))
    return "TLS needs --tls-cert, --tls-key and --tls-ca together";
  if (o.timeout_ms <= o.heartbeat_ms)
    return "--timeout-ms must exceed --heartbeat-ms, or idle peers are dropped";
  return "";
}

void configure_remote(caf::actor_system_config& cfg, const remote_options& o) {
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::milliseconds(o.heartbeat_ms)});
  cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::milliseconds(o.timeout_ms)});
  if (!o.tls()) return;
  cfg.load<caf::openssl::manager>();
  cfg.openssl_certificate = o.tls_cert;
  cfg.openssl_key = o.tls_key;
  cfg.openssl_cafile = o.tls_ca;
}

remote_peer_config::remote_peer_config(const remote_options& o) {
  register_message_types(*this);
  set("logger.console", caf::atom("none"));
  load<caf::io::middleman>();
  configure_remote(*this, o);  // a frozen engine is detected, not waited for for ever
  // Daemons, relays and clients idle most of the time, woken by timers (a daemon's flush
  // every 5 ms). CAF's default work-stealing workers (at least 4) then nap 50 us at a time,
  // 500 naps after each wake-up: an idle daemon cost 17 % of a core (perf: clock_nanosleep
  // of 50 us), so 64 daemons on one 2-core machine could not all start. The sharing
  // scheduler's workers wait on a condition variable instead, one per core.
  set("scheduler.policy", caf::atom("sharing"));
  set("scheduler.max-threads", std::max<std::size_t>(1, std::thread::hardware_concurrency()));
}

std::optional<caf::expected<remote_dm_actor>> connect_remote_dm(
    caf::actor_system& sys, const host_port& where, const remote_options& o,
    std::chrono::duration<double> wait) {
  auto connected = std::make_shared<std::promise<caf::expected<remote_dm_actor>>>();
  auto result = connected->get_future();
  std::thread([&sys, connected, host = where.host, port = where.port, tls = o.tls()] {
    connected->set_value(tls ? caf::openssl::remote_actor<remote_dm_actor>(sys, host, port)
                             : sys.middleman().remote_actor<remote_dm_actor>(host, port));
  }).detach();
  if (result.wait_for(wait) != std::future_status::ready) return std::nullopt;
  return result.get();
}

bool told_unreachable(const std::optional<caf::expected<remote_dm_actor>>& connected,
                      const host_port& where, double waited, const std::string& say,
                      std::ostream& err) {
  if (connected && *connected) return false;
  auto why = unreachable_reason(where, waited);
  if (why.empty()) return false;
  err << say << ": " << why << std::endl;
  if (!connected) std::_Exit(2);  // the connecting thread stays blocked inside CAF
  return true;
}

connect_function remote_dm_connector(caf::actor_system& sys, const remote_options& o) {
  return [&sys, o](const std::string& address,
                   std::chrono::milliseconds wait) -> caf::expected<caf::actor> {
    auto where = parse_host_port(address);
    if (!where || where->port == 0)
      return caf::make_error(caf::sec::invalid_argument, "not HOST:PORT: " + address);
    auto got = connect_remote_dm(sys, *where, o, wait);
    if (!got) return caf::make_error(caf::sec::connection_timeout);
    if (!*got) return got->error();
    return caf::actor_cast<caf::actor>(**got);
  };
}

}  // namespace perfdm
