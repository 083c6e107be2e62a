// Example: a job of N alike processes of which one misbehaves (examples/cluster/README.md).
//
//   cluster_job [processes] [seconds] [outlier]   (default 8 processes, 60 s; ends cleanly on
//   SIGTERM; `cluster_job 1 S outlier`: one process, the outlier)
//
// The first process is worker 0 and forks workers 1 … N-1, as a launcher of ranks would.
// Every worker but the last runs relax() without pause in its main thread: a solver's inner
// loop, all CPU. The last worker (index N-1, when N ≥ 2) is the outlier: its four threads
// "waiter-<k>" take one mutex in turn and each holds it 2 ms while it sleeps (slow I/O under
// a lock), so each waits about 3/4 of the time and none computes. A SIGTERM to worker 0
// (what `perfdm search` sends at --seconds) is passed on to the others; a worker whose
// parent is gone ends too.
//
// The answer the Performance Consultant must give, folded (pc/finding_folding.hpp):
// - CPUbound at /Code/cluster_job/relax in N-1 of N processes, the outlier listed apart;
// - the outlier's own finding: ExcessiveSyncWaitingTime on its Mutex, from hold_and_wait.
#include <sys/prctl.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../pc/pc_workload.hpp"

namespace {

volatile double residual = 0;

// One sweep of a small relaxation: a normal worker's whole time.
__attribute__((noinline)) double relax(std::vector<double>& grid) {
  double change = 0;
  for (std::size_t i = 1; i + 1 < grid.size(); ++i) {
    double next = 0.5 * (grid[i - 1] + grid[i + 1]);
    change += std::fabs(next - grid[i]);
    grid[i] = next;
  }
  return change;
}

__attribute__((noinline)) void solve() {
  std::vector<double> grid(4096, 0.0);
  grid.back() = 1.0;
  while (pc_workload::running()) residual = relax(grid);
}

std::mutex journal_lock;

// The outlier's bug: a write (here a 2 ms sleep) inside the critical section.
__attribute__((noinline)) void hold_and_wait() {
  std::lock_guard<std::mutex> guard(journal_lock);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

__attribute__((noinline)) void waiter(int k) {
  pc_workload::name_this_thread("waiter-" + std::to_string(k));
  while (pc_workload::running()) hold_and_wait();
}

void misbehave() {
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) threads.emplace_back(waiter, k);
  for (auto& t : threads) t.join();
}

// `outlier`: the one instance of a job spread over hosts, one process per host, that
// misbehaves (scripts/cluster.sh --job).
void work(int index, int processes, bool outlier) {
  outlier = outlier || (index == processes - 1 && processes > 1);
  std::printf("cluster_job: worker %d of %d, pid %d%s\n", index, processes,
              static_cast<int>(getpid()), outlier ? " (the outlier)" : "");
  std::fflush(stdout);
  if (outlier)
    misbehave();
  else
    solve();
}

}  // namespace

int main(int argc, char** argv) {
  int processes = argc > 1 ? std::atoi(argv[1]) : 8;
  double seconds = argc > 2 ? std::atof(argv[2]) : 60.0;
  bool outlier = argc > 3 && std::string(argv[3]) == "outlier";
  if (processes < 1 || processes > 1024 || seconds <= 0 || (argc > 3 && !outlier)) {
    std::fprintf(stderr, "usage: cluster_job [processes 1..1024] [seconds > 0] [outlier]\n");
    return 2;
  }
  // pc_workload::start reads its run time from argv[1]: give it ours.
  std::string s = std::to_string(seconds);
  char* args[] = {argv[0], s.data(), nullptr};
  pc_workload::start(2, args, "cluster_job");
  std::vector<pid_t> children;
  pid_t first = getpid();
  for (int i = 1; i < processes; ++i) {
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("cluster_job: fork");
      break;
    }
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);  // worker 0 gone (even by SIGKILL): this one goes
      if (getppid() != first) return 0;  // it went before the prctl
      work(i, processes, false);
      return 0;
    }
    children.push_back(pid);
  }
  work(0, processes, outlier && processes == 1);
  for (auto pid : children) kill(pid, SIGTERM);  // no-op for those already done
  for (auto pid : children) waitpid(pid, nullptr, 0);
  return 0;
}
