#include "proc/system_modules.hpp"

#include <initializer_list>

namespace perfdm::proc {

namespace {

std::string_view file_name(std::string_view module) {
  auto slash = module.rfind('/');
  return slash == std::string_view::npos ? module : module.substr(slash + 1);
}

bool starts_with_any(std::string_view module, std::initializer_list<std::string_view> prefixes) {
  auto name = file_name(module);
  for (auto prefix : prefixes)
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

}  // namespace

bool c_library_module(std::string_view module) {
  return starts_with_any(module, {"libc.so", "libc-", "libpthread"});
}

bool loader_module(std::string_view module) {
  return starts_with_any(module, {"ld-linux", "ld-", "[vdso"});
}

bool system_module(std::string_view module) {
  return c_library_module(module) || loader_module(module) ||
         starts_with_any(module, {"libstdc++", "libm.so", "libgcc_s", "libperfdm-io"});
}

}  // namespace perfdm::proc
