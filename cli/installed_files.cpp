#include "cli/installed_files.hpp"

#include <filesystem>
#include <system_error>

namespace perfdm {

std::string installed_data_file(const std::string& built_in, const std::string& executable) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(built_in, ec)) return built_in;
  const fs::path exe =
      executable.empty() ? fs::read_symlink("/proc/self/exe", ec) : fs::path(executable);
  if (ec) return built_in;
  const auto installed =
      exe.parent_path().parent_path() / "share" / "perfdm" / fs::path(built_in).filename();
  return fs::exists(installed, ec) ? installed.string() : built_in;
}

}  // namespace perfdm
