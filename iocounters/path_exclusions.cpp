#include "iocounters/path_exclusions.hpp"

#include <cstdio>
#include <cstring>
#include <string>

namespace perfdm::io {

namespace {

constexpr std::string_view default_exclusions[] = {"/etc/",  "/dev/",  "/usr/", "/bin/",
                                                   "/boot/", "/lib/",  "/opt/", "/sbin/",
                                                   "/sys/",  "/proc/", "/var/"};
constexpr std::string_view default_inclusion = "/var/opt/cray/dws/mounts/";

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool default_excluded(std::string_view name) {
  if (starts_with(name, default_inclusion)) return false;
  for (const auto p : default_exclusions)
    if (starts_with(name, p)) return true;
  return false;
}

path_exclusions::~path_exclusions() {
  for (int i = 0; i < exclude_count_; ++i) regfree(&exclude_[i]);
  for (int i = 0; i < include_count_; ++i) regfree(&include_[i]);
}

bool path_exclusions::add(regex_t* list, int& count, std::string_view expression, char* error,
                          std::size_t error_size) {
  if (expression.empty()) return true;
  const std::string e(expression);
  if (count == max_expressions) {
    std::snprintf(error, error_size, "more than %d expressions: '%s' and after are ignored",
                  max_expressions, e.c_str());
    return false;
  }
  const int rc = regcomp(&list[count], e.c_str(), REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char why[128];
    regerror(rc, &list[count], why, sizeof why);
    std::snprintf(error, error_size, "'%s' is not a valid regular expression: %s", e.c_str(), why);
    return false;
  }
  ++count;
  return true;
}

bool path_exclusions::configure(std::string_view exclude, std::string_view include,
                                bool default_prefixes, char* error, std::size_t error_size) {
  default_prefixes_ = default_prefixes;
  for (int pass = 0; pass < 2; ++pass) {
    std::string_view rest = pass == 0 ? exclude : include;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string_view e = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      const bool ok = pass == 0 ? add(exclude_, exclude_count_, e, error, error_size)
                                : add(include_, include_count_, e, error, error_size);
      if (!ok) return false;
    }
  }
  return true;
}

bool path_exclusions::excluded(const char* name) const {
  if (name[0] == '<') return false;
  bool out = default_prefixes_ && default_excluded(name);
  for (int i = 0; !out && i < exclude_count_; ++i)
    out = regexec(&exclude_[i], name, 0, nullptr, 0) == 0;
  for (int i = 0; out && i < include_count_; ++i)
    if (regexec(&include_[i], name, 0, nullptr, 0) == 0) out = false;
  return out;
}

}  // namespace perfdm::io
