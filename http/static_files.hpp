// Which file a dashboard URL names (perfdm engine --http): the page's own files from the web
// folder, the charting library from where Debian installs it. Pure path logic, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace perfdm {

struct static_roots {
  std::string web;      // the dashboard's files (web/ in the source tree, or installed)
  std::string library;  // the charting library (/usr/share/javascript/chart.js), at /lib/chart.js/
};

// The file for URL path `target` (query string ignored): "/" is index.html; "/lib/chart.js/X"
// is the library's X; anything else is under the web folder. Nothing for a path that could
// leave its root (`..`, a backslash, a NUL, percent-encoding) or does not start with '/'.
std::optional<std::string> static_file_for(const static_roots& roots, std::string_view target);

// The Content-Type of a file by its extension (text/plain for the unknown).
std::string content_type_for(std::string_view path);

}  // namespace perfdm
