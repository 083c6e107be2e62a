// The errors of the frames part (schema, segment, attach). Each says what went wrong in
// words a performance engineer can act on; the code lets callers and tests tell them apart.
#pragma once

#include <stdexcept>
#include <string>

namespace perfdm::shm {

// A schema or layout descriptor that cannot be used; the message starts with file:line:col.
struct schema_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A shared-memory segment that cannot be created, opened or read.
struct shm_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class attach_errc {
  no_such_process,
  not_permitted,
  no_symbol,        // the executable has no generated perfdm_handle_<struct>
  schema_mismatch,  // the executable's layout differs from the schema asked for
  segment_failed,
  not_attached,
  already_attached,  // the process's handle is already non-zero: another attach owns it
  memory_access,     // the process's memory could not be read or written at that address
};

const char* to_string(attach_errc code);

// Attaching to or detaching from a running process failed.
struct attach_error : std::runtime_error {
  attach_error(attach_errc c, const std::string& what) : std::runtime_error(what), code(c) {}
  attach_errc code;
};

}  // namespace perfdm::shm
