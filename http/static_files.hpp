// Which file a dashboard URL names (perfdm engine --http): the page's own files from the web
// folder, its chart libraries (npm's Chart.js, d3, d3-flame-graph) from web/node_modules in a
// build and from the web folder's lib/ once installed. Pure path logic, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace perfdm {

struct static_roots {
  std::string web;  // the dashboard's files (web/ in the source tree, or installed)
  // In a build: web/node_modules (scripts/setup.sh's `npm ci`), "/lib/P/X" is its P/dist/X.
  // Empty once installed: `cmake --install` put those files in the web folder's lib/P/.
  std::string npm;
};

// The file for URL path `target` (query string ignored): "/" is index.html; "/lib/P/X" is
// npm's P/dist/X when `npm` is set; anything else is under the web folder (so "/lib/P/X" is
// its lib/P/X once installed). Nothing for a path that could
// leave its root (`..`, a backslash, a NUL, percent-encoding) or does not start with '/'.
std::optional<std::string> static_file_for(const static_roots& roots, std::string_view target);

// The Content-Type of a file by its extension (text/plain for the unknown).
std::string content_type_for(std::string_view path);

}  // namespace perfdm
