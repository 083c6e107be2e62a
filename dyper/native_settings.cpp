#include "dyper/native_settings.hpp"

#include <charconv>

namespace perfdm {

namespace {

bool is_system(const std::string& type) {
  return type == "SYSTEM" || type == "SYSTEM_IO";
}

// The variables hold canonical text (dyper/process_variables.cpp checked it when it was SET).
std::int64_t integer(const process_command_state& st, const char* name, std::int64_t fallback) {
  auto i = st.variables.find(name);
  if (i == st.variables.end()) return fallback;
  std::int64_t x = fallback;
  std::from_chars(i->second.data(), i->second.data() + i->second.size(), x);
  return x;
}
bool flag(const process_command_state& st, const char* name, bool fallback) {
  auto i = st.variables.find(name);
  return i == st.variables.end() ? fallback : i->second == "true";
}

}  // namespace

bool native_settings::uses(std::int32_t tid) const {
  auto i = threads.find(tid);
  return i == threads.end() ? thread_default : i->second;
}

native_settings native_settings_of(const process_command_state& st) {
  native_settings out;
  out.monitor = flag(st, "MONITOR", true);
  out.cputime = flag(st, "CPUTIME", true);
  out.checktime_ns = integer(st, "CHECKTIME", 10) * 1'000'000;
  out.max_depth = static_cast<std::uint32_t>(integer(st, "MAXDEPTH", 128));
  out.thread_default = flag(st, "THREAD_DEFAULT", true);
  for (auto& [id, used] : st.threads) {
    std::int32_t tid = 0;
    auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), tid);
    if (ec == std::errc{} && p == id.data() + id.size()) out.threads[tid] = used;
  }
  out.classes = st.classes;
  return out;
}

std::string code_type(const std::vector<code_class>& classes, const std::string& module,
                      const std::string& function) {
  auto m = classify(classes, module), f = classify(classes, function);
  bool system = is_system(m) || is_system(f), io = is_io_type(m) || is_io_type(f);
  return system && io ? "SYSTEM_IO" : system ? "SYSTEM" : io ? "IO" : "NORMAL";
}

bool is_io_type(const std::string& type) {
  return type == "IO" || type == "SYSTEM_IO";
}

}  // namespace perfdm
