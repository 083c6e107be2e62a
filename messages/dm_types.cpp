#include "messages/dm_types.hpp"

namespace perfdm {

const char* to_string(metric_style x) { return x == metric_style::counter ? "COUNTER" : "SAMPLED"; }

const char* to_string(phase_type x) { return x == phase_type::global ? "GLOBAL" : "CURRENT"; }

const char* to_string(mi_state x) {
  switch (x) {
    case mi_state::active: return "ACTIVE";
    case mi_state::inactive: return "INACTIVE";
    case mi_state::deleted: return "DELETED";
  }
  return "?";
}

}  // namespace perfdm
