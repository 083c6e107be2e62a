// Reads what one DyPer REPORT of a native process is made of (dyper/dyper_report.hpp): /proc
// for the threads (with their start times), memory and I/O, beside the sampler's profile.
#pragma once

#include <cstdint>

#include "dyper/dyper_report.hpp"

namespace perfdm {

// A process that is gone or unreadable gives readings with have_proc false (and the profile).
dyper_report_readings read_dyper_readings(std::int32_t pid, const cpu_profile_report* profile);

// This thread's CPU time so far in ns (what building a report costs, measured).
std::int64_t thread_cpu_ns();

}  // namespace perfdm
