#include "native/jit_code.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "native/native_error.hpp"
#include "native/proc_stats.hpp"
#include "proc/process_facts.hpp"

namespace perfdm::native {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// "123" → 123; nullopt for anything else.
std::optional<int> whole_number(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// V8's location "path:line:column" (or "path:line"): the path and the line.
bool v8_location(std::string_view location, std::string& file, int& line) {
  auto last = location.rfind(':');
  if (last == std::string_view::npos) return false;
  auto number = whole_number(location.substr(last + 1));
  if (!number) return false;
  auto before = location.substr(0, last);
  auto second = before.rfind(':');
  if (second != std::string_view::npos) {
    if (auto l = whole_number(before.substr(second + 1))) {
      file = std::string(before.substr(0, second));
      line = *l;
      return !file.empty();
    }
  }
  file = std::string(before);
  line = *number;
  return !file.empty();
}

// The perf map the process writes, as this process reaches it: its own pid (in its pid
// namespace) under its own root.
std::string perf_map_path(int pid) {
  int own_pid = pid;
  try {
    auto status = parse_status(read_proc_file(pid, "/proc/" + std::to_string(pid) + "/status"));
    if (status.namespace_pid > 0) own_pid = status.namespace_pid;
  } catch (const native_error&) {
  }
  return "/proc/" + std::to_string(pid) + "/root/tmp/perf-" + std::to_string(own_pid) + ".map";
}

// When `pid` started, in seconds since the epoch; 0 when not known (the map is never stale).
double start_time(int pid) {
  auto stat = proc::read_stat(pid);
  return stat ? static_cast<double>(proc::start_time_ns(stat->start_ticks)) * 1e-9 : 0;
}

}  // namespace

std::vector<std::pair<std::uint64_t, std::uint64_t>> jit_code_ranges(std::string_view maps) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  while (!maps.empty()) {
    auto nl = maps.find('\n');
    std::string line(maps.substr(0, nl));
    maps.remove_prefix(nl == std::string_view::npos ? maps.size() : nl + 1);
    // start-end perms offset dev inode [path]
    unsigned long long start = 0, end = 0, offset = 0, inode = 0;
    char perms[8] = {}, device[16] = {};
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %15s %llu %n", &start, &end, perms, &offset,
                    device, &inode, &path_at) < 6 ||
        std::string_view(perms).size() < 3 || perms[2] != 'x' || end <= start)
      continue;
    std::string_view path;
    if (path_at > 0 && static_cast<std::size_t>(path_at) <= line.size())
      path = std::string_view(line).substr(static_cast<std::size_t>(path_at));
    if (path.empty() || starts_with(path, "[anon") || starts_with(path, "/memfd:"))
      out.emplace_back(start, end);
  }
  std::sort(out.begin(), out.end());
  return out;
}

jit_frame_name jit_frame_name_of(const std::string& map_name) {
  std::string_view n = map_name;
  jit_frame_name out;
  for (std::string_view prefix : {"JS:", "LazyCompile:", "Function:", "Script:"}) {
    if (!starts_with(n, prefix)) continue;
    auto rest = n.substr(prefix.size());
    if (!rest.empty() && (rest[0] == '~' || rest[0] == '^' || rest[0] == '+' || rest[0] == '*'))
      rest.remove_prefix(1);
    auto space = rest.find(' ');
    auto function = rest.substr(0, space);
    if (space == std::string_view::npos ||
        !v8_location(rest.substr(space + 1), out.file, out.line)) {
      out.file.clear();
      out.line = 0;
      out.function = std::string(rest.empty() ? n : rest);
      return out;
    }
    out.function = function.empty() ? "(top level)" : std::string(function);
    return out;
  }
  if (starts_with(n, "py::")) {
    auto rest = n.substr(4);
    auto colon = rest.find(':');
    if (colon != std::string_view::npos && colon > 0 && colon + 1 < rest.size()) {
      out.function = std::string(rest.substr(0, colon));
      out.file = std::string(rest.substr(colon + 1));
      return out;
    }
  }
  out.function = map_name;
  return out;
}

std::string unnamed_jit_function(const std::string& runtime) {
  return "[jit " + (runtime.empty() ? std::string("?") : runtime) + "]";
}

jit_code::jit_code(int pid)
    : executable_(proc::executable_of(pid)), map_(perf_map_path(pid), start_time(pid)) {
  auto slash = executable_.rfind('/');
  runtime_ = slash == std::string::npos ? executable_ : executable_.substr(slash + 1);
  const std::string deleted = " (deleted)";
  if (runtime_.size() > deleted.size() &&
      runtime_.compare(runtime_.size() - deleted.size(), deleted.size(), deleted) == 0)
    runtime_.resize(runtime_.size() - deleted.size());
}

void jit_code::update(std::string_view maps) {
  ranges_ = jit_code_ranges(maps);
}

void jit_code::refresh() {
  map_.refresh();
}

std::optional<stack_frame> jit_code::frame(std::uint64_t pc) {
  auto i = std::upper_bound(ranges_.begin(), ranges_.end(),
                            std::make_pair(pc, ~std::uint64_t{0}));
  if (i == ranges_.begin() || pc >= std::prev(i)->second) return std::nullopt;
  stack_frame f;
  f.pc = pc;
  f.module = executable_;
  if (auto name = map_.name(pc)) {
    auto n = jit_frame_name_of(*name);
    f.function = std::move(n.function);
    f.file = std::move(n.file);
    f.line = n.line;
    if (!f.file.empty()) f.module = f.file;
  } else {
    f.function = unnamed_jit_function(runtime_);
  }
  return f;
}

}  // namespace perfdm::native
