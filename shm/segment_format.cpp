#include "shm/segment_format.hpp"

#include <cstdio>

namespace perfdm::shm::format {

std::string segment_name(int pid, std::uint64_t handle) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "perfdm.%d.%016llx", pid, static_cast<unsigned long long>(handle));
  return buf;
}

}  // namespace perfdm::shm::format
