// `HOST:PORT` addresses of the command line (engine --listen, send).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace perfdm {

struct host_port {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
};

// "HOST:PORT", ":PORT" or "PORT" (the host defaults to 127.0.0.1); the port is 0..65535 in
// decimal. "[::1]:PORT" for IPv6. Nothing when the text is not an address.
std::optional<host_port> parse_host_port(const std::string& text);

// Whether a TCP connection to `a` succeeds within `seconds` (closed at once); if not, `why`
// says why.
bool tcp_reachable(const host_port& a, double seconds, std::string& why);

// After a perfdm connection to `a` failed or was not answered within `waited` seconds: why,
// when nothing accepts TCP connections there ("Connection refused", "no answer within 10 s"),
// else "" (something listens: the failure was perfdm's or TLS's). CAF's remote_actor reports
// every failure alike, so the daemon, the relay and the client tell an unreachable engine
// apart with this. Only after a failure, never as a probe before connecting: a probe's
// connect-and-close just before the real connection let the engine's CAF lose the real one's
// handshake (it names a connection by its descriptor number, which the probe's close freed
// for the next accept), and 1 in 10 of 64 daemons starting at once never registered.
std::string unreachable_reason(const host_port& a, double waited);

}  // namespace perfdm
