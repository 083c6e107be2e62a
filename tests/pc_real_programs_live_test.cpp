// The Performance Consultant on programs nobody here wrote: Debian's xz, sqlite3
// and python3, and a stripped executable the test builds. `perfdm search --pid P --json`
// deciding on the evidence, each bounded to a few seconds; the finding is asserted, and so are the
// names: functions without symbols by address, futex waits by address, files by path.
#include <catch2/catch.hpp>
#include <cstdio>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "native/pc_resources.hpp"
#include "tests/real_program_process.hpp"

namespace {

struct json_node {
  std::string hypothesis, code, machine, syncobject, file, state;
};

// `perfdm search --pid … --json` for `seconds`: the nodes of the JSON object it prints at the end.
// Its exit status and what it said on stderr explain a search that found nothing. The process
// searched is `name` (the program's, not the test's own copy before exec).
std::vector<json_node> search(int pid, int seconds, const std::string& name) {
  real_program::temp_dir dir;
  std::string command = std::string(PERFDM_BINARY) + " search --pid " + std::to_string(pid) +
                        " --seconds " + std::to_string(seconds) + " --json 2>" + dir / "err";
  std::string out;
  int status = -1;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    status = pclose(p);
  }
  INFO("perfdm search: status " << status << ", stderr: " << real_program::read_file(dir / "err"));
  static const std::regex node_re(
      "\\{\"id\":[0-9]+,\"parent\":(null|[0-9]+),\"hypothesis\":\"([^\"]*)\",\"focus\":\\{"
      "\"code\":\"([^\"]*)\",\"machine\":\"([^\"]*)\",\"syncobject\":\"([^\"]*)\""
      "(?:,\"file\":\"([^\"]*)\")?\\},\"state\":\"([^\"]*)\"");
  std::vector<json_node> nodes;
  for (std::sregex_iterator i(out.begin(), out.end(), node_re), end; i != end; ++i)
    nodes.push_back({(*i)[2], (*i)[3], (*i)[4], (*i)[5], (*i)[6], (*i)[7]});
  INFO(out.substr(0, 3000));
  CHECK(out.find("\"processes\":[{\"pid\":" + std::to_string(pid) + ",\"name\":\"" + name +
                 "\"}]") != std::string::npos);
  REQUIRE_FALSE(nodes.empty());
  return nodes;
}

// The true nodes, for the failure message.
std::string true_nodes(const std::vector<json_node>& nodes) {
  std::string out;
  for (auto& n : nodes)
    if (n.state == "true")
      out += n.hypothesis + " <" + n.code + ", " + n.machine + ", " + n.syncobject + ", " +
             n.file + ">\n";
  return out;
}

template <typename F>
bool any_true(const std::vector<json_node>& nodes, F&& f) {
  for (auto& n : nodes)
    if (n.state == "true" && f(n)) return true;
  return false;
}

// Where a test may write files that fsync really waits for: next to the perfdm binary (the
// build tree), not /tmp, which may be a tmpfs.
std::string disk_folder() {
  std::string binary = PERFDM_BINARY;
  return binary.substr(0, binary.rfind('/'));
}

}  // namespace

TEST_CASE("pc live, real programs: xz -6 -T1 is CPUbound in liblzma, its own code named by address",
          "[pc][pc-live][real-programs]") {
  real_program::temp_dir dir;
  // 24 MB of words in a random order: text that compresses, so xz works for a while.
  {
    std::FILE* f = std::fopen((dir / "input.txt").c_str(), "w");
    REQUIRE(f != nullptr);
    std::mt19937 random(24);
    const char* words[] = {"performance", "consultant", "hypothesis", "focus", "resource",
                           "metric",      "instance",   "sample",     "stack", "thread",
                           "mutex",       "file",       "lzma",       "xz",    "search"};
    std::string line;
    for (std::size_t bytes = 0; bytes < 24u << 20;) {
      line.clear();
      for (int w = 0; w < 12; ++w) line += std::string(words[random() % 15]) + " " +
                                           std::to_string(random() % 1000) + " ";
      line += "\n";
      std::fputs(line.c_str(), f);
      bytes += line.size();
    }
    std::fclose(f);
  }
  real_program::process xz({"xz", "-6", "-T1", "-c", dir / "input.txt"}, "", "/dev/null");
  auto nodes = search(xz.pid, 5, "xz");
  INFO(true_nodes(nodes));
  CHECK(any_true(nodes, [](const json_node& n) {
    return n.hypothesis == "CPUbound" && n.code.rfind("/Code/liblzma.so.5", 0) == 0;
  }));
  // xz is stripped: its functions are named by address, never `?`.
  for (auto& n : nodes) CHECK(n.code.find("/?") == std::string::npos);
  CHECK(any_true(nodes, [](const json_node& n) {
    return std::regex_match(n.code, std::regex("/Code/xz/xz\\+0x[0-9a-f]+"));
  }));
}

TEST_CASE("pc live, real programs: sqlite3 with an fsync per insert blocks in I/O: at its files, "
          "or at the sync of every commit",
          "[pc][pc-live][real-programs]") {
  real_program::temp_dir dir;
  std::string script = "PRAGMA synchronous=FULL;\nCREATE TABLE t(x INTEGER, y TEXT);\n";
  for (int i = 0; i < 40000; ++i)
    script += "INSERT INTO t VALUES(" + std::to_string(i) + ", 'row " + std::to_string(i) + "');\n";
  // On disk (fsync waits), not in /tmp.
  std::string folder = disk_folder() + "/sqlite-live-" + std::to_string(getpid());
  REQUIRE(real_program::shell("mkdir -p '" + folder + "'"));
  real_program::write_file(dir / "inserts.sql", script);
  std::string db = folder + "/test.db";
  {
    real_program::process sqlite({"sqlite3", db}, dir / "inserts.sql");
    auto nodes = search(sqlite.pid, 6, "sqlite3");
    INFO(true_nodes(nodes));
    // The search refines code before files: on a loaded machine its seconds may end at the
    // sync call (fdatasync) or the pager that calls it, before the files below them.
    auto db_file = perfdm::native::file_resource(db);
    CHECK(any_true(nodes, [&](const json_node& n) {
      return (n.hypothesis == "ExcessiveIOBlockingTime" || n.hypothesis == "TooManySmallIOOps") &&
             (n.file == db_file || n.file == db_file + "-journal" ||
              n.code == "/Code/libc.so.6/fdatasync" ||
              n.code.find("/sqlite3PagerCommitPhaseOne") != std::string::npos);
    }));
    // A sync call moves no bytes: never "too many small I/O operations" there.
    for (auto& n : nodes)
      if (n.hypothesis == "TooManySmallIOOps" && n.state == "true")
        CHECK(n.code.find("fdatasync") == std::string::npos);
  }
  real_program::shell("rm -rf '" + folder + "'");
}

TEST_CASE("pc live, real programs: python3's four CPU-bound threads wait for the GIL, a CondVar "
          "by address",
          "[pc][pc-live][real-programs]") {
  // Debian's interpreter (the GIL is a pthread condition variable in 3.11). The search starts
  // once the four threads run: on a loaded machine the interpreter's own start-up (reading its
  // modules) can take a good part of the search's seconds.
  real_program::temp_dir dir;
  real_program::process python(
      {"/usr/bin/python3", "-c",
       "import threading\n"
       "def work():\n"
       "    while True:\n"
       "        sum(i * i for i in range(1000))\n"
       "for _ in range(4):\n"
       "    threading.Thread(target=work).start()\n"
       "print('running', flush=True)\n"},
      "", dir / "out");
  REQUIRE(real_program::wait_for_text(dir / "out", "running\n"));
  auto nodes = search(python.pid, 5, "python3");
  INFO(true_nodes(nodes));
  CHECK(any_true(nodes, [](const json_node& n) {
    return n.hypothesis == "ExcessiveSyncWaitingTime" &&
           std::regex_match(n.syncobject, std::regex("/SyncObject/CondVar/0x[0-9a-f]+"));
  }));
  // No function name as a sync object: only kinds and addresses.
  static const std::regex sync_name(
      "/SyncObject(/(Mutex|CondVar|RWLock|Semaphore|Barrier|Join|Futex|Spinlock|FileLock|Child|"
      "Signal)(/0x[0-9a-f]+)?)?");
  for (auto& n : nodes) {
    INFO(n.syncobject);
    CHECK(std::regex_match(n.syncobject, sync_name));
  }
}

TEST_CASE("pc live, real programs: a stripped executable is CPUbound in a function named by its "
          "address",
          "[pc][pc-live][real-programs]") {
  real_program::temp_dir dir;
  auto spin = real_program::build_spin(dir);
  auto crunch = real_program::symbol_address(spin, "_Z6crunchm");
  REQUIRE_FALSE(crunch.empty());
  REQUIRE(real_program::shell("strip -o " + dir / "spin_stripped" + " " + spin));
  real_program::process stripped({dir / "spin_stripped"});
  auto nodes = search(stripped.pid, 4, "spin_stripped");
  INFO(true_nodes(nodes));
  INFO("crunch is at " << crunch);
  CHECK(any_true(nodes, [&](const json_node& n) {
    return n.hypothesis == "CPUbound" && n.code == "/Code/spin_stripped/spin_stripped+" + crunch;
  }));
  for (auto& n : nodes) CHECK(n.code.find("/?") == std::string::npos);
}
