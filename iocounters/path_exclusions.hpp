// Which file names get no record (Darshan's darshan_core_name_is_excluded,
// darshan-runtime/lib/darshan-core.c): by default the system directories' prefixes
// /etc/ /dev/ /usr/ /bin/ /boot/ /lib/ /opt/ /sbin/ /sys/ /proc/ /var/ (a plain string prefix,
// so "/usr" itself and "/" are kept), except /var/opt/cray/dws/mounts/. perfdm adds, from its
// options: regular expressions (POSIX extended) of names to leave out, regular expressions of
// names to keep even when a default prefix or an exclusion matches, and the choice to drop the
// default prefixes. Names starting with '<' (<STDIN>, heatmaps) are never paths.
//
// Configured once at start-up (regcomp allocates); `excluded()` allocates nothing when no
// expression was given.
#pragma once

#include <regex.h>

#include <string_view>

namespace perfdm::io {

class path_exclusions {
 public:
  path_exclusions() = default;
  ~path_exclusions();
  path_exclusions(const path_exclusions&) = delete;
  path_exclusions& operator=(const path_exclusions&) = delete;

  // `exclude`, `include`: comma-separated expressions (empty: none). Returns false and says
  // why in `error` (at most `error_size` bytes) for an expression that does not compile;
  // the expressions before it are kept.
  bool configure(std::string_view exclude, std::string_view include, bool default_prefixes,
                 char* error, std::size_t error_size);

  bool excluded(const char* name) const;

 private:
  static constexpr int max_expressions = 32;
  bool add(regex_t* list, int& count, std::string_view expression, char* error,
           std::size_t error_size);
  bool default_prefixes_ = true;
  regex_t exclude_[max_expressions];
  regex_t include_[max_expressions];
  int exclude_count_ = 0;
  int include_count_ = 0;
};

// Whether `name` starts with one of Darshan's default excluded prefixes (and not with its
// default included one).
bool default_excluded(std::string_view name);

}  // namespace perfdm::io
