#include "shm/shm_error.hpp"

namespace perfdm::shm {

const char* to_string(attach_errc code) {
  switch (code) {
    case attach_errc::no_such_process: return "no such process";
    case attach_errc::not_permitted: return "not permitted";
    case attach_errc::no_symbol: return "no generated symbol";
    case attach_errc::schema_mismatch: return "schema mismatch";
    case attach_errc::segment_failed: return "segment failed";
    case attach_errc::not_attached: return "not attached";
    case attach_errc::already_attached: return "already attached";
    case attach_errc::memory_access: return "memory access failed";
  }
  return "unknown";
}

}  // namespace perfdm::shm
