// Small value types shared by requests, replies and events of the Data Manager.
#pragma once

#include <cstdint>
#include <string>

#include <caf/meta/type_name.hpp>

namespace perfdm {

// COUNTER: a sample is an amount over [start, end). SAMPLED: a level held over it (rule B3).
enum class metric_style : std::uint8_t { counter, sampled };

// Which histogram of a metric instance: the global one or the current phase's.
enum class phase_type : std::uint8_t { global, current };

enum class mi_state : std::uint8_t { active, inactive, deleted };

const char* to_string(metric_style x);
const char* to_string(phase_type x);
const char* to_string(mi_state x);

// The persistence flags of a metric instance (rules P1-P3). In a flags request the same
// struct names which flags the request addresses.
struct persistence {
  bool data = false;
  bool collection = false;
  bool phase_data = false;

  persistence& operator|=(const persistence& o) {
    data |= o.data;
    collection |= o.collection;
    phase_data |= o.phase_data;
    return *this;
  }
  friend bool operator==(const persistence& a, const persistence& b) {
    return a.data == b.data && a.collection == b.collection && a.phase_data == b.phase_data;
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, persistence& x) {
  return f(caf::meta::type_name("persistence"), x.data, x.collection, x.phase_data);
}

}  // namespace perfdm
