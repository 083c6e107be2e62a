// The native module of the self-describing log: per watched process (docs/NATIVE.md), the
// sampler's counts and costs, the CPU profile (every function and detailed line, TOTAL/BASE
// and code class) and each thread's states over the samples; and, across the processes of
// the log, one profile record per function. Records of the same name from several engines
// (`perfdm` logs merged with log_core::merge) reduce into one: counts sum, the pid, the last
// sample time, CHECKTIME and the flags take the maximum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "log/log_core.hpp"
#include "messages/native_messages.hpp"

namespace perfdm {

inline constexpr std::uint32_t native_log_module_id = 18;
inline constexpr std::uint32_t native_log_module_version = 1;
inline constexpr const char* native_log_module_name = "native";

// One watched process: its resource (/Process/NAME{PID}) and its profile (PROFILE's reply,
// with the thread states).
struct native_log_process {
  std::string resource;
  cpu_profile_report profile;
};

// Registers the module and adds the records of `processes`.
void add_native_module(log_core& core, const std::vector<native_log_process>& processes,
                       std::size_t requested_bytes);

// Makes `perfdm log` print the module.
void register_native_log_printer();

}  // namespace perfdm
