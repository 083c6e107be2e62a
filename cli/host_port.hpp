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
// says why. CAF's remote_actor has no timeout and reports every failure alike, so the
// daemon and the client tell an unreachable engine apart with this first.
bool tcp_reachable(const host_port& a, double seconds, std::string& why);

}  // namespace perfdm
