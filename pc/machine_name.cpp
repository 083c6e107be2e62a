#include "pc/machine_name.hpp"

#include <charconv>

namespace perfdm::pc {

std::vector<std::string> resource_components(const std::string& name) {
  std::vector<std::string> out;
  if (name.size() <= 1) return out;
  std::size_t at = 1;
  while (at <= name.size()) {
    auto slash = name.find('/', at);
    if (slash == std::string::npos) slash = name.size();
    out.push_back(name.substr(at, slash - at));
    at = slash + 1;
  }
  return out;
}

int id_in_braces(const std::string& component) {
  auto open = component.rfind('{');
  if (open == std::string::npos || component.back() != '}') return 0;
  const char* first = component.data() + open + 1;
  const char* last = component.data() + component.size() - 1;
  int id = 0;
  auto [end, ec] = std::from_chars(first, last, id);
  if (ec != std::errc() || end != last || id < 0) return 0;
  return id;
}

bool parse_machine_name(const std::string& resource, machine_name& out) {
  auto c = resource_components(resource);
  if (c.empty() || c[0] != "Machine" || resource.front() != '/') return false;
  out = {};
  out.depth = c.size() - 1;
  if (c.size() >= 2) out.host = c[1];
  if (c.size() >= 3) {
    out.process = c[2];
    out.pid = id_in_braces(c[2]);
  }
  if (c.size() >= 4) {
    out.thread = c[3];
    out.tid = id_in_braces(c[3]);
  }
  return true;
}

std::string with_host(const std::string& host, const std::string& component, bool name_host) {
  return name_host && !host.empty() ? host + ":" + component : component;
}

}  // namespace perfdm::pc
