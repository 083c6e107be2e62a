// Files that come with perfdm (cli/installed_files.hpp): the source tree's when it is there,
// else the installed copy under <prefix>/share/perfdm (cmake --install, the Debian package).
#include "cli/installed_files.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

TEST_CASE(
    "installed files: the source tree's file, else <prefix>/share/perfdm's, else the "
    "source path") {
  const fs::path root =
      fs::temp_directory_path() / ("perfdm_installed_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "src" / "examples");
  fs::create_directories(root / "prefix" / "bin");
  fs::create_directories(root / "prefix" / "share" / "perfdm");
  const auto source = (root / "src" / "examples" / "demo.replay").string();
  const auto installed = (root / "prefix" / "share" / "perfdm" / "demo.replay").string();
  const auto exe = (root / "prefix" / "bin" / "perfdm").string();
  std::ofstream(installed) << "# installed\n";
  CHECK(perfdm::installed_data_file(source, exe) == installed);  // no source tree
  std::ofstream(source) << "# source\n";
  CHECK(perfdm::installed_data_file(source, exe) == source);  // a build: the source tree's
  fs::remove(source);
  fs::remove(installed);
  CHECK(perfdm::installed_data_file(source, exe) == source);  // neither: the error names it
  fs::remove_all(root);
}
