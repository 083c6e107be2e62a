// FLAMEGRAPH and TIMELINE on the workloads of examples/pc/, live (docs/FLAME.md): WATCH a real
// program, let the stack sampler run for a second or two, and check the flame graph against
// the bottleneck each workload is built around; then the same call paths after the process
// exited, in the log, and as folded stacks and pprof read by real readers.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/profile_export.hpp"
#include "profile/profile_files.hpp"
#include "tests/live_engine_test_support.hpp"
#include "tests/pc_workload_process.hpp"

using namespace perfdm;
using pc_test::workload_process;

namespace {

struct path {
  std::vector<std::string> frames;
  std::string state;
  std::uint64_t count = 0;
};

struct flame {
  std::string xml;
  std::uint64_t samples = 0, total = 0;
  std::vector<path> paths;
};

std::string unescape(std::string s) {
  for (auto [from, to] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&apos;", "'"},
                          {"&quot;", "\""}, {"&amp;", "&"}}) {
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + 1))
      s.replace(at, std::string(from).size(), to);
  }
  return s;
}

std::uint64_t attribute(const std::string& xml, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(xml, m, std::regex(" " + name + "='([0-9]+)'"))) return 0;
  return std::stoull(m[1].str());
}

flame parse_flame(const std::string& xml) {
  flame f;
  f.xml = xml;
  f.samples = attribute(xml, "SAMPLES");
  f.total = attribute(xml, "TOTAL");
  std::regex re("<PATH COUNT='([0-9]+)' STATE='([a-z]+)'>([^<]*)</PATH>");
  for (auto i = std::sregex_iterator(xml.begin(), xml.end(), re); i != std::sregex_iterator(); ++i) {
    path p;
    p.count = std::stoull((*i)[1].str());
    p.state = (*i)[2].str();
    std::istringstream text(unescape((*i)[3].str()));
    for (std::string frame; std::getline(text, frame, ';');) p.frames.push_back(frame);
    f.paths.push_back(std::move(p));
  }
  return f;
}

struct engine : test::live_engine {
  std::string process(int pid, const std::string& command, const std::string& arg = "") {
    return reply("<DYPER PID='" + std::to_string(pid) + "' COMMAND='" + command + "'>" + arg +
                 "</DYPER>");
  }
  void watch(int pid) {
    REQUIRE_THAT(reply("<DYPER PID='DM' COMMAND='WATCH'><PROCESS PID='" + std::to_string(pid) +
                       "'/></DYPER>"),
                 Catch::Contains("WATCHED='true'"));
  }
  flame flamegraph(int pid, const std::string& attrs) {
    return parse_flame(process(pid, "FLAMEGRAPH", "<FLAMEGRAPH " + attrs + "/>"));
  }
  // Waits until the view holds at least `n` samples.
  flame flamegraph_with(int pid, const std::string& attrs, std::uint64_t n) {
    flame f;
    REQUIRE(test::eventually([&] {
      f = flamegraph(pid, attrs);
      return f.samples >= n;
    }));
    return f;
  }
};

// Inclusive counts: the children of the node `prefix` with the samples under each.
std::map<std::string, std::uint64_t> children(const flame& f, const std::vector<std::string>& prefix) {
  std::map<std::string, std::uint64_t> out;
  for (auto& p : f.paths)
    if (p.frames.size() > prefix.size() &&
        std::equal(prefix.begin(), prefix.end(), p.frames.begin()))
      out[p.frames[prefix.size()]] += p.count;
  return out;
}

std::string widest(const std::map<std::string, std::uint64_t>& xs) {
  std::string best;
  std::uint64_t n = 0;
  for (auto& [k, v] : xs)
    if (v > n) best = k, n = v;
  return best;
}

// The frames from the root down to `main`, or none.
std::vector<std::string> to_main(const flame& f) {
  for (auto& p : f.paths)
    for (std::size_t i = 0; i < p.frames.size(); ++i)
      if (p.frames[i].rfind("main (", 0) == 0)
        return std::vector<std::string>(p.frames.begin(), p.frames.begin() + i + 1);
  return {};
}

}  // namespace

TEST_CASE("FLAMEGRAPH live: pc_cpu's widest path under main leads to tokenize",
          "[flame][live]") {
  workload_process w("pc_cpu");
  engine e;
  e.watch(w.pid);
  auto f = e.flamegraph_with(w.pid, "VIEW='cpu'", 30);
  INFO(f.xml.substr(0, 2000));
  CHECK(f.total > f.samples);  // TOTAL counts every state: the housekeeper sleeps
  auto all = e.flamegraph(w.pid, "VIEW='all'");
  CHECK(all.samples == all.total);
  auto prefix = to_main(f);
  REQUIRE(!prefix.empty());
  // Follow the widest child from main down: run, parse, tokenize.
  std::vector<std::string> chain;
  for (int depth = 0; depth < 3; ++depth) {
    auto next = widest(children(f, prefix));
    REQUIRE(!next.empty());
    prefix.push_back(next);
    chain.push_back(next);
  }
  CHECK(chain == std::vector<std::string>{"run (pc_cpu)", "parse (pc_cpu)", "tokenize (pc_cpu)"});
  // tokenize takes most of the on-CPU samples.
  std::uint64_t in_tokenize = 0;
  for (auto& p : f.paths)
    if (std::find(p.frames.begin(), p.frames.end(), "tokenize (pc_cpu)") != p.frames.end())
      in_tokenize += p.count;
  CHECK(in_tokenize > f.samples * 6 / 10);
  for (auto& p : f.paths) CHECK(p.state == "running");

  // The housekeeper thread is asleep: its flame graph is off-CPU, in a sleep.
  auto tl = e.process(w.pid, "TIMELINE");
  INFO(tl.substr(0, 2000));
  CHECK_THAT(tl, Catch::Contains("<THREAD TID='" + std::to_string(w.pid) + "'"));
  CHECK_THAT(tl, Catch::Contains("NAME='housekeeper'"));
  CHECK_THAT(tl, Catch::Contains("STATE='running' FUNCTION='tokenize (pc_cpu)'"));
  CHECK(std::regex_search(tl, std::regex("STATE='sleep' FUNCTION='[^']*nanosleep")));
  auto sleep = e.flamegraph(w.pid, "VIEW='sleep'");
  CHECK(sleep.samples > 0);
  auto main_only = e.flamegraph(w.pid, "VIEW='sleep' THREAD='" + std::to_string(w.pid) + "'");
  CHECK(main_only.samples == 0);
}

TEST_CASE("FLAMEGRAPH live: pc_lock's off-CPU view has the lock wait on top", "[flame][live]") {
  workload_process w("pc_lock", {"30", "4"});
  engine e;
  e.watch(w.pid);
  auto f = e.flamegraph_with(w.pid, "VIEW='offcpu'", 40);
  INFO(f.xml.substr(0, 3000));
  // Three of four lockers wait at any time: the widest off-CPU path is a lock wait whose
  // caller is update_shared_table.
  std::map<std::string, std::uint64_t> by_state;
  for (auto& p : f.paths) by_state[p.state] += p.count;
  CHECK(by_state["lock"] > f.samples / 2);
  std::uint64_t through_update = 0;
  for (auto& p : f.paths)
    if (p.state == "lock" &&
        std::find(p.frames.begin(), p.frames.end(), "update_shared_table (pc_lock)") != p.frames.end())
      through_update += p.count;
  CHECK(through_update > by_state["lock"] * 9 / 10);
  REQUIRE(!f.paths.empty());
  auto& top = f.paths.front();  // the widest path comes first
  CHECK(top.state == "lock");
  REQUIRE(!top.frames.empty());
  // Above update_shared_table: the lock's frames (pthread_mutex_lock, __lll_lock_wait).
  auto at = std::find(top.frames.begin(), top.frames.end(), "update_shared_table (pc_lock)");
  REQUIRE(at != top.frames.end());
  bool lock_above = false;
  for (auto i = at + 1; i != top.frames.end(); ++i) lock_above |= i->find("lock") != std::string::npos;
  CHECK(lock_above);
  auto lock_only = e.flamegraph(w.pid, "VIEW='lock'");
  CHECK(lock_only.samples >= by_state["lock"]);  // later: more samples
  // Bad requests are refused clearly.
  CHECK_THAT(e.process(w.pid, "FLAMEGRAPH", "<FLAMEGRAPH VIEW='hot'/>"),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(e.process(w.pid, "FLAMEGRAPH", "<FLAMEGRAPH PHASE='9'/>"),
             Catch::Contains("is not kept"));
  CHECK_THAT(e.process(w.pid, "TIMELINE", "<TIMELINE FROM='5' TO='1'/>"),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
}

TEST_CASE("FLAMEGRAPH live: phases, time ranges, the process's exit, the log, folded and pprof",
          "[flame][live]") {
  auto dir = std::filesystem::temp_directory_path() /
             ("perfdm_flame_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto log = (dir / "run.perfdm").string();
  workload_process w("pc_cpu", {"6"});
  engine e;
  e.watch(w.pid);
  e.flamegraph_with(w.pid, "", 5);
  REQUIRE_THAT(e.reply("<DYPER PID='DM' COMMAND='PHASE'/>"), Catch::Contains("PHASE"));
  auto p1 = e.flamegraph_with(w.pid, "PHASE='CURRENT'", 3);
  CHECK_THAT(p1.xml, Catch::Contains("PHASE='1'"));
  auto p0 = e.flamegraph(w.pid, "PHASE='0'");
  CHECK(p0.samples >= 5);
  // A time range inside phase 1: whole slices, within the phase.
  std::smatch m;
  REQUIRE(std::regex_search(p1.xml, m, std::regex("FROM='([^']+)' TO='([^']+)'")));
  double from = std::stod(m[1].str()), to = std::stod(m[2].str());
  CHECK(to > from);
  auto ranged = e.flamegraph(w.pid, "PHASE='1' FROM='" + m[1].str() + "' TO='" + std::to_string(to + 10) + "'");
  CHECK(ranged.samples > 0);
  CHECK(ranged.samples <= e.flamegraph(w.pid, "PHASE='1'").samples);

  // The process exits (3 s): its call paths stay, ENDED.
  REQUIRE(test::eventually([&] {
    return e.flamegraph(w.pid, "VIEW='all'").xml.find("ENDED='true'") != std::string::npos;
  }));
  auto all0 = e.flamegraph(w.pid, "VIEW='all' PHASE='0'");
  auto all1 = e.flamegraph(w.pid, "VIEW='all' PHASE='1'");
  auto cpu0 = e.flamegraph(w.pid, "VIEW='cpu' PHASE='0'");
  auto cpu1 = e.flamegraph(w.pid, "VIEW='cpu' PHASE='1'");
  CHECK(all0.samples == all0.total);
  CHECK_THAT(e.process(w.pid, "TIMELINE"), Catch::Contains("ENDED='true'"));

  REQUIRE_THAT(e.reply("<DYPER PID='DM' COMMAND='LOG'><LOG FILE='" + log + "'/></DYPER>"),
               Catch::Contains("LOG"));
  auto stacks = log_stacks(log);
  std::uint64_t logged = 0, logged_cpu = 0;
  for (auto& s : stacks) {
    CHECK(s.pid == w.pid);
    logged += s.count;
    if (s.state == "running") logged_cpu += s.count;
  }
  CHECK(logged == all0.samples + all1.samples);
  CHECK(logged_cpu == cpu0.samples + cpu1.samples);

  // Folded: the line grammar, and the sums against the profile's totals.
  profile_export_options o;
  o.folded = (dir / "cpu.folded").string();
  o.pprof = (dir / "cpu.pb.gz").string();
  std::ostringstream said;
  REQUIRE(write_profile_exports(o, stacks, said, "test") == 0);
  std::ifstream folded(o.folded);
  std::uint64_t sum = 0, lines = 0;
  std::regex grammar("^([^;\\n]+)(;[^;\\n]+)* ([0-9]+)$");
  bool tokenize_seen = false;
  for (std::string line; std::getline(folded, line);) {
    ++lines;
    INFO(line);
    REQUIRE(std::regex_match(line, m, grammar));
    sum += std::stoull(m[3].str());
    tokenize_seen |= line.find("main (pc_cpu);run (pc_cpu);parse (pc_cpu);tokenize (pc_cpu)") !=
                     std::string::npos;
  }
  CHECK(lines > 0);
  CHECK(sum == logged_cpu);
  CHECK(tokenize_seen);

  // pprof: decoded by protoc against the published profile.proto.
  auto decoded = (dir / "cpu.txt").string();
  auto cmd = "gzip -dc '" + o.pprof + "' | protoc --decode=perftools.profiles.Profile -I " +
             "/usr/share/gocode/src/github.com/google/pprof/proto profile.proto > '" + decoded +
             "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream text(decoded);
  std::stringstream all;
  all << text.rdbuf();
  auto t = all.str();
  std::uint64_t values = 0;
  std::regex value("\\n  value: ([0-9]+)");
  for (auto i = std::sregex_iterator(t.begin(), t.end(), value); i != std::sregex_iterator(); ++i)
    values += std::stoull((*i)[1].str());
  CHECK(values == logged_cpu);
  CHECK_THAT(t, Catch::Contains("string_table: \"tokenize\""));
  CHECK_THAT(t, Catch::Contains("string_table: \"pc_cpu\""));
  CHECK_THAT(t, Catch::Contains("string_table: \"samples\""));
  std::filesystem::remove_all(dir);
}
