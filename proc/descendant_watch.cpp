#include "proc/descendant_watch.hpp"

#include "proc/mpi_job.hpp"
#include "proc/process_facts.hpp"

namespace perfdm::proc {

std::vector<pid_t> descendant_watch::look(const std::vector<pid_t>& descendants) {
  std::map<pid_t, std::string> now;
  std::vector<pid_t> ready;
  for (auto pid : descendants) {
    if (ready_.count(pid)) continue;
    auto exe = executable_of(pid);
    if (exe.empty()) continue;
    auto i = last_.find(pid);
    if (i != last_.end() && i->second == exe) {
      ready_.insert(pid);
      // An MPI launcher's daemon (orted, prted, hydra_pmi_proxy) is infrastructure: its
      // ranks are watched, never it (proc/mpi_job.hpp).
      if (!mpi_launcher(exe)) ready.push_back(pid);
    } else {
      now[pid] = exe;
    }
  }
  last_ = std::move(now);
  return ready;
}

}  // namespace perfdm::proc
