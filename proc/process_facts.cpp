#include "proc/process_facts.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

namespace perfdm::proc {

namespace {

template <class T>
bool parse_int(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

// The fields after the parenthesised name, split at white space.
std::vector<std::string_view> fields_after_name(std::string_view text, std::size_t close) {
  std::vector<std::string_view> f;
  auto rest = text.substr(close + 1);
  for (std::size_t pos = 0; pos < rest.size();) {
    auto b = rest.find_first_not_of(" \n", pos);
    if (b == std::string_view::npos) break;
    auto e = rest.find_first_of(" \n", b);
    if (e == std::string_view::npos) e = rest.size();
    f.push_back(rest.substr(b, e - b));
    pos = e;
  }
  return f;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Parses `text` into `out`, or says why it is not a stat line.
std::optional<std::string> parse_into(std::string_view text, stat_line& out) {
  auto open = text.find('(');
  auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return "no (comm)";
  out.comm = std::string(text.substr(open + 1, close - open - 1));
  auto f = fields_after_name(text, close);
  auto at = [&](std::size_t n) { return f[n - 3]; };  // field n of proc(5)
  if (f.size() < 22 || at(3).size() != 1) return "too few fields";
  out.state = at(3)[0];
  if (!parse_int(at(4), out.ppid) || !parse_int(at(14), out.utime_ticks) ||
      !parse_int(at(15), out.stime_ticks) || !parse_int(at(20), out.num_threads) ||
      !parse_int(at(22), out.start_ticks) || !parse_int(at(24), out.rss_pages))
    return "a field is not a number";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> stat_line_problem(std::string_view text) {
  stat_line ignored;
  return parse_into(text, ignored);
}

std::optional<stat_line> parse_stat_line(std::string_view text) {
  stat_line out;
  if (parse_into(text, out)) return std::nullopt;
  return out;
}

std::optional<stat_line> read_stat(pid_t pid, pid_t tid) {
  if (pid <= 0) return std::nullopt;
  auto path = "/proc/" + std::to_string(pid) +
              (tid > 0 ? "/task/" + std::to_string(tid) : std::string()) + "/stat";
  return parse_stat_line(read_file(path));
}

bool process_alive(pid_t pid) {
  if (pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH)) return false;
  auto s = read_stat(pid);
  if (!s) return ::kill(pid, 0) == 0 || errno == EPERM;  // unreadable, yet there
  return s->state != 'Z' && s->state != 'X';
}

std::vector<std::pair<pid_t, pid_t>> processes_with_parents() {
  std::vector<std::pair<pid_t, pid_t>> out;
  if (DIR* d = opendir("/proc")) {
    while (auto* e = readdir(d)) {
      char* end;
      long p = std::strtol(e->d_name, &end, 10);
      if (*end != 0 || p <= 0) continue;
      auto s = read_stat(static_cast<pid_t>(p));
      out.emplace_back(static_cast<pid_t>(p), s ? s->ppid : -1);
    }
    closedir(d);
  }
  return out;
}

std::vector<pid_t> descendants(pid_t root, pid_t adopted_by) {
  auto all = processes_with_parents();
  std::set<pid_t> below{root};
  std::vector<pid_t> out;
  for (bool grew = true; grew;) {
    grew = false;
    for (auto& [p, pp] : all) {
      if (below.count(p)) continue;
      if (below.count(pp) || (adopted_by > 0 && pp == adopted_by && p != root)) {
        below.insert(p);
        out.push_back(p);
        grew = true;
      }
    }
  }
  return out;
}

std::string executable_of(pid_t pid) {
  char buf[4096];
  auto n = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

std::int64_t boot_time_ns() {
  static const std::int64_t ns = []() -> std::int64_t {
    std::ifstream in("/proc/stat");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("btime ", 0) == 0) return std::stoll(line.substr(6)) * 1'000'000'000;
    return 0;
  }();
  return ns;
}

std::int64_t start_time_ns(std::uint64_t start_ticks) {
  static const long hz = sysconf(_SC_CLK_TCK);
  const auto per_tick = 1'000'000'000 / static_cast<std::uint64_t>(hz > 0 ? hz : 100);
  return boot_time_ns() + static_cast<std::int64_t>(start_ticks * per_tick);
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace perfdm::proc
