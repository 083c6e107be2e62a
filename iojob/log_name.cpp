#include "iojob/log_name.hpp"

#include <sys/stat.h>

namespace perfdm::io {

std::string default_log_name(const std::string& program, int pid, std::time_t when) {
  std::string base = program.substr(program.rfind('/') + 1);
  for (char& c : base)
    if (c == ' ' || c == '\t' || c == '\n' || static_cast<unsigned char>(c) < 0x20) c = '_';
  if (base.empty()) base = "program";
  std::tm t{};
  localtime_r(&when, &t);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &t);
  return "perfdm-io-" + base + "-" + stamp + "-" + std::to_string(pid) + ".log";
}

std::string log_path_for(const std::string& target, const std::string& program, int pid,
                         std::time_t when) {
  struct stat st;
  if (!target.empty() && ::stat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return target + (target.back() == '/' ? "" : "/") + default_log_name(program, pid, when);
  }
  return target.empty() ? default_log_name(program, pid, when) : target;
}

}  // namespace perfdm::io
