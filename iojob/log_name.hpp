// The default name of a run's I/O log: perfdm-io-<program>-<YYYYMMDD>-<HHMMSS>-<pid>.log
// (local time), in the directory given (perfdm io -o, PERFDM_IO_LOG).
#pragma once

#include <ctime>
#include <string>

namespace perfdm::io {

std::string default_log_name(const std::string& program, int pid, std::time_t when);

// `target` as PERFDM_IO_LOG gives it: an existing directory gets the default name inside it;
// anything else is the log's path.
std::string log_path_for(const std::string& target, const std::string& program, int pid,
                         std::time_t when);

}  // namespace perfdm::io
