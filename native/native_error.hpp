// The errors of the native modules (/proc sampling, stack sampling). Each names the pid and
// what could not be done; the code lets callers and tests tell them apart.
#pragma once

#include <stdexcept>
#include <string>

namespace perfdm::native {

enum class native_errc {
  no_such_process,  // it never existed, or exited (possibly in the middle of a read)
  not_permitted,    // EPERM/EACCES: another user's process, or ptrace is not allowed
  bad_data,         // /proc said something this code cannot read
  unwind_failed,    // libdw could not start on the process
};

const char* to_string(native_errc code);

struct native_error : std::runtime_error {
  native_error(native_errc c, const std::string& what) : std::runtime_error(what), code(c) {}
  native_errc code;
};

// The native_error for a failed system call on `pid`: ENOENT/ESRCH are no_such_process,
// EPERM/EACCES not_permitted, others bad_data; the message names the pid and the action.
native_error process_failure(int pid, const std::string& action, int errno_value);

}  // namespace perfdm::native
