#include "native/native_error.hpp"

#include <cerrno>
#include <cstring>

namespace perfdm::native {

const char* to_string(native_errc code) {
  switch (code) {
    case native_errc::no_such_process: return "no_such_process";
    case native_errc::not_permitted: return "not_permitted";
    case native_errc::bad_data: return "bad_data";
    case native_errc::unwind_failed: return "unwind_failed";
  }
  return "unknown";
}

native_error process_failure(int pid, const std::string& action, int errno_value) {
  auto code = (errno_value == ENOENT || errno_value == ESRCH) ? native_errc::no_such_process
              : (errno_value == EPERM || errno_value == EACCES) ? native_errc::not_permitted
                                                                 : native_errc::bad_data;
  std::string what = "process " + std::to_string(pid) + ": cannot " + action + ": ";
  if (code == native_errc::no_such_process)
    what += "no such process (it exited)";
  else if (code == native_errc::not_permitted)
    what += std::string("not permitted (") + std::strerror(errno_value) +
            "; another user's process needs root or CAP_SYS_PTRACE)";
  else
    what += std::strerror(errno_value);
  return native_error(code, what);
}

}  // namespace perfdm::native
