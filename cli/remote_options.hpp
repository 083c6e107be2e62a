// The network options of remote actors, the same on both ends (`perfdm engine --publish`,
// `perfdm client`): CAF's middleman sends a heartbeat every --heartbeat-ms and drops a
// connection that was silent for --timeout-ms, so a frozen peer is detected (its proxies go
// down) instead of holding its streams forever. Both are off in CAF unless configured.
#pragma once

#include <CLI/CLI.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>
#include <chrono>
#include <optional>
#include <ostream>
#include <string>

#include "actors/reconnect_actor.hpp"
#include "cli/host_port.hpp"
#include "messages/remote_interface.hpp"

namespace perfdm {

struct remote_options {
  int heartbeat_ms = 1000;
  int timeout_ms = 5000;  // must exceed the peer's heartbeat, or an idle peer is dropped
  // TLS (libcaf-openssl): all three or none. With them both ends present a certificate
  // signed by the CA file and accept only a peer whose certificate is.
  std::string tls_cert, tls_key, tls_ca;
  bool tls() const { return !tls_cert.empty() || !tls_key.empty() || !tls_ca.empty(); }
};

// Adds --heartbeat-ms, --timeout-ms, --tls-cert, --tls-key and --tls-ca to `sub`.
void add_remote_options(CLI::App& sub, remote_options& o);

// Why the options cannot work ("" when they can): TLS needs all three files, readable.
std::string remote_options_problem(const remote_options& o);

// Sets those options for the middleman (which the caller loads first: a live session does)
// and, with TLS, loads CAF's OpenSSL module with the files; call before the actor system
// exists.
void configure_remote(caf::actor_system_config& cfg, const remote_options& o);

// The actor system of a process that connects to a publishing engine (`perfdm client`,
// `perfdm daemon`): every perfdm message type, the middleman, `o`, and a quiet console.
struct remote_peer_config : caf::actor_system_config {
  explicit remote_peer_config(const remote_options& o);
};

// Connects to the remote_dm_actor published at `where`, through TLS when `o` has it. CAF's
// remote_actor has no timeout, so it runs on a thread of its own: nothing is returned when it
// has not finished within `wait`, and that thread then stays blocked inside CAF (the caller
// should leave the process, e.g. with std::_Exit).
std::optional<caf::expected<remote_dm_actor>> connect_remote_dm(caf::actor_system& sys,
                                                                const host_port& where,
                                                                const remote_options& o,
                                                                std::chrono::duration<double> wait);

// After connect_remote_dm did not connect (`connected` empty: no answer within the wait, or an
// error): when nothing accepts TCP connections at `where` (unreachable_reason), writes `say`
// and why on `err` and returns true, the caller then returning 2; with the connecting thread
// still blocked inside CAF (`connected` empty) it leaves the process instead (std::_Exit(2)).
// False when something listens there: the failure is the caller's to tell.
bool told_unreachable(const std::optional<caf::expected<remote_dm_actor>>& connected,
                      const host_port& where, double waited, const std::string& say,
                      std::ostream& err);

// The same as a connect_function (actors/reconnect_actor.hpp), for failover: "HOST:PORT".
connect_function remote_dm_connector(caf::actor_system& sys, const remote_options& o);

}  // namespace perfdm
