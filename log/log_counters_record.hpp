// A builder for the generic counters records that modules without a format of their own
// write (log/log_counters.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "log/log_core.hpp"
#include "log/log_counter_list.hpp"
#include "log/log_counters.hpp"

namespace perfdm {

// Builds one counters record of a module: its name (the printed row's last column) and its
// counters by name, then adds it to the core (which marks the module partial when full).
class log_counters_record {
 public:
  log_counters_record(log_core& core, std::uint32_t module_id, const std::string& name)
      : core_(core), module_id_(module_id), id_(core.lookup_id(name)) {}
  log_counters_record& integer(const std::string& counter, std::int64_t v) {
    counters_.push_back(log_counter::of(core_.lookup_id(counter), v));
    return *this;
  }
  log_counters_record& real(const std::string& counter, double v) {
    counters_.push_back(log_counter::of(core_.lookup_id(counter), v));
    return *this;
  }
  // A counter of the module's list (log/log_counter_list.hpp).
  log_counters_record& integer(const log_counter_def& counter, std::int64_t v) {
    return integer(counter.name, v);
  }
  log_counters_record& real(const log_counter_def& counter, double v) {
    return real(counter.name, v);
  }
  bool add() { return core_.add_counters(module_id_, id_, counters_); }

 private:
  log_core& core_;
  std::uint32_t module_id_;
  std::uint64_t id_;
  std::vector<log_counter> counters_;
};

}  // namespace perfdm
