#include "native/data_io.hpp"

#include <algorithm>
#include <string_view>

#include "native/runtime_waits.hpp"
#include "proc/system_modules.hpp"

namespace perfdm::native {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// `file` is `folder` or below it.
bool under(std::string_view file, std::string_view folder) {
  return starts_with(file, folder) && (file.size() == folder.size() || file[folder.size()] == '/');
}

}  // namespace

bool pseudo_file(const std::string& file) {
  return under(file, "/File/proc") || under(file, "/File/sys") || under(file, "/File/dev/shm") ||
         starts_with(file, "/File/anon_inode:");
}

bool startup_discovery(const std::vector<stack_frame>& frames) {
  return std::any_of(frames.begin(), frames.end(), [](const stack_frame& f) {
    auto n = rule_name(f.function);
    return starts_with(n, "hwloc_topology_load") || starts_with(n, "hwloc_topology_init") ||
           starts_with(n, "hwloc_linux_") || n == "MPI_Init" || n == "PMPI_Init" ||
           n == "MPI_Init_thread" || n == "PMPI_Init_thread" || n == "opal_init" ||
           n == "ompi_mpi_init";
  });
}

bool sync_call(const std::vector<stack_frame>& frames) {
  for (auto& f : frames) {
    auto n = rule_name(f.function);
    if (n == "fsync" || n == "fdatasync" || n == "sync_file_range" || n == "syncfs" ||
        n == "sync" || n == "msync" || n == "__libc_fsync" || n == "__libc_fdatasync")
      return true;
    // The innermost frame of the program's own (or a library's above the C library) ends
    // the search: a sync call is the C library's.
    if (!proc::c_library_module(f.module) && !proc::loader_module(f.module)) return false;
  }
  return false;
}

}  // namespace perfdm::native
