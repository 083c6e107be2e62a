#include "native/pc_resources.hpp"
#include "proc/process_facts.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstring>

namespace perfdm::native {

std::string resource_part(const std::string& text) {
  if (text.empty()) return "?";
  std::string out = text;
  for (char& c : out)
    if (c == '/' || c == ',' || std::isspace(static_cast<unsigned char>(c)) ||
        std::iscntrl(static_cast<unsigned char>(c)))
      c = '_';
  return out;
}

std::string function_name(const std::string& function) {
  std::string f = function;
  // Drop a trailing parameter list (and what follows it: `const`, `&&`), found by matching
  // the parentheses from the end, so that `operator()(int)` keeps `operator()`. A ')' with
  // more of the name after it closes no parameter list: Go's method
  // `crypto/sha256.(*digest).Write`.
  auto qualifiers_only = [](std::string rest) {
    for (const char* q : {"const", "volatile", "noexcept", "&"})
      for (auto at = rest.find(q); at != std::string::npos; at = rest.find(q))
        rest.erase(at, std::strlen(q));
    return rest.find_first_not_of(' ') == std::string::npos;
  };
  if (!f.empty()) {
    auto close = f.rfind(')');
    if (close != std::string::npos && qualifiers_only(f.substr(close + 1))) {
      int depth = 0;
      for (std::size_t i = close + 1; i-- > 0;) {
        if (f[i] == ')') ++depth;
        if (f[i] == '(' && --depth == 0) {
          if (i > 0) f.erase(i);
          break;
        }
      }
    }
  }
  const std::string anonymous = "(anonymous namespace)::";
  for (auto at = f.find(anonymous); at != std::string::npos; at = f.find(anonymous))
    f.erase(at, anonymous.size());
  return f.empty() ? "?" : f;
}

std::string function_part(const std::string& function) {
  std::string out;
  for (char c : function_name(function)) {
    auto u = static_cast<unsigned char>(c);
    if (c == '/' || c == ',' || c == '%' || std::isspace(u) || std::iscntrl(u)) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", u);
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

std::string module_part(const std::string& module) {
  auto slash = module.rfind('/');
  return resource_part(slash == std::string::npos ? module : module.substr(slash + 1));
}

std::string code_resource(const stack_frame& frame) {
  return std::string(code_root) + "/" + module_part(frame.module) + "/" +
         function_part(frame.function);
}

std::string process_resource(const std::string& host, const std::string& process, int pid) {
  return std::string(machine_root) + "/" + resource_part(host) + "/" + resource_part(process) +
         "{" + std::to_string(pid) + "}";
}

std::string thread_resource(const std::string& host, const std::string& process, int pid,
                            const std::string& thread, int tid) {
  return process_resource(host, process, pid) + "/" + resource_part(thread) + "{" +
         std::to_string(tid) + "}";
}

std::string sync_object_resource(const std::string& kind, const std::string& object) {
  auto out = std::string(sync_object_root) + "/" + resource_part(kind);
  return object.empty() ? out : out + "/" + resource_part(object);
}

std::string file_resource(const std::string& target) {
  if (target.empty()) return {};
  std::string out = file_root;
  if (target.front() != '/') return out + "/" + resource_part(target);
  for (std::size_t at = 1; at <= target.size();) {
    auto slash = target.find('/', at);
    if (slash == std::string::npos) slash = target.size();
    if (slash > at) out += "/" + resource_part(target.substr(at, slash - at));
    at = slash + 1;
  }
  return out == file_root ? out + "/_" : out;  // "/" itself
}

std::string host_part() { return resource_part(proc::host_name()); }

}  // namespace perfdm::native
