// The descendants of a launched program, to be watched as they appear. A new process is
// ready once two looks in a row find the same executable: a fork about to exec would
// otherwise be named after its parent. Each process is ready once.
#pragma once

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace perfdm::proc {

class descendant_watch {
 public:
  // Of `descendants` (the program's now), those ready to be watched since the last look.
  std::vector<pid_t> look(const std::vector<pid_t>& descendants);

 private:
  std::set<pid_t> ready_;
  std::map<pid_t, std::string> last_;  // seen once: pid, its executable then
};

}  // namespace perfdm::proc
