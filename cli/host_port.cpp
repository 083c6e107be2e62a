#include "cli/host_port.hpp"

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

}  // namespace perfdm
