// One search over a job of four processes (examples/cluster/cluster_job), one of which
// misbehaves: the findings fold the three alike into one, "in 3 of 4 processes", and name
// the fourth as the outlier (pc/finding_folding.hpp). Bounded: a 6 s search.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <regex>
#include <string>

namespace {

std::string run(const std::string& command, int& status) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int s = pclose(p);
    status = WIFEXITED(s) ? WEXITSTATUS(s) : 128 + WTERMSIG(s);
  }
  return out;
}

}  // namespace

TEST_CASE("pc folding live: cluster_job 4 folds CPUbound in relax in 3 of 4 processes, the outlier apart",
          "[pc][pc-live]") {
  int status = -1;
  auto out = run(std::string(PERFDM_BINARY) + " search --json --seconds 6 -- " + PERFDM_PC_WORKLOADS +
                     "/cluster_job 4 2>/dev/null",
                 status);
  INFO(out);
  CHECK(status == 0);
  // The job's own lines come first: which pid is the outlier.
  std::smatch m;
  REQUIRE(std::regex_search(out, m, std::regex("worker 3 of 4, pid (\\d+) \\(the outlier\\)")));
  auto outlier = m[1].str();
  auto folded_at = out.find("\"folded\":[");
  REQUIRE(folded_at != std::string::npos);
  auto folded = out.substr(folded_at, out.find("\"inconclusive\":", folded_at) - folded_at);
  // The CPU-bound workers, once: three processes of four, the outlier listed with what it showed.
  REQUIRE(std::regex_search(
      folded, m,
      std::regex("\\{\"rank\":\\d+,\"hypothesis\":\"CPUbound\",\"focus\":\\{\"code\":\"/Code/cluster_job/relax\""
                 "[^{}]*\\}[^\\[]*\"processes\":3,\"of\":4,\"pids\":\\[[0-9,]+\\],\"outliers\":\\[\\{\"pid\":(\\d+)")));
  CHECK(m[1].str() == outlier);
  CHECK(folded.find("in 3 of 4 processes") != std::string::npos);
  CHECK(folded.find("; process cluster_job{" + outlier + "}: ") != std::string::npos);
  // The outlier's own trouble is found too: its threads wait for the lock.
  CHECK(std::regex_search(folded, std::regex("\"text\":\"ExcessiveSyncWaitingTime [^\"]* from hold_and_wait")));
}
