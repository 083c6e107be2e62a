// Files perfdm reads that come with it: in the source tree when run from a build, under
// <prefix>/share/perfdm when installed (cmake --install, the Debian package).
#pragma once

#include <string>

namespace perfdm {

// `built_in` (a path in the source tree) when it exists, else <prefix>/share/perfdm/<its
// file name> next to the running executable (<prefix>/bin/perfdm), else `built_in`, so the
// error names the path that was tried first.
// `executable` is the running perfdm's path (read from /proc/self/exe when empty).
std::string installed_data_file(const std::string& built_in, const std::string& executable = "");

}  // namespace perfdm
