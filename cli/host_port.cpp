#include "cli/host_port.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace perfdm {

std::optional<host_port> parse_host_port(const std::string& text) {
  host_port out;
  std::string port = text;
  auto colon = text.rfind(':');
  if (colon != std::string::npos) {
    auto host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    if (!host.empty()) out.host = host;
    port = text.substr(colon + 1);
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  auto n = std::stoul(port);
  if (n > 65535) return std::nullopt;
  out.port = static_cast<std::uint16_t>(n);
  return out;
}

bool tcp_reachable(const host_port& a, double seconds, std::string& why) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(a.host.c_str(), std::to_string(a.port).c_str(), &hints, &found)) {
    why = gai_strerror(rc);
    return false;
  }
  bool ok = false;
  why = "no address";
  for (auto* ai = found; ai && !ok; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      ok = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, static_cast<int>(seconds * 1000)) == 1) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        ok = err == 0;
        if (!ok) why = std::strerror(err);
      } else {
        why = "no answer within " + std::to_string(static_cast<int>(seconds)) + " s";
      }
    } else {
      why = std::strerror(errno);
    }
    close(fd);
  }
  freeaddrinfo(found);
  return ok;
}

std::string unreachable_reason(const host_port& a, double waited) {
  // The connection already had its time: a short look says whether anything listens.
  std::string why;
  if (tcp_reachable(a, std::min(waited, 1.0), why)) return "";
  if (why.rfind("no answer within", 0) == 0) {
    char text[64];
    std::snprintf(text, sizeof text, "no answer within %g s", waited);
    why = text;
  }
  return why;
}

}  // namespace perfdm
