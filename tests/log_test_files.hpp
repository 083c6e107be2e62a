// Files the log tests write: in the temporary directory, named per suite and process, and
// removed (with their .partial) when a test ends; EACH_COMPRESSION.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "log/log_codec.hpp"

// In a Catch2 test: the log compressions, one run of the test per value (GENERATE).
#define EACH_COMPRESSION GENERATE(::perfdm::log_compression::zlib, ::perfdm::log_compression::zstd)

namespace perfdm::log_test {

inline std::string temp_path(const std::string& suite, const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("perfdm_" + suite + "_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

struct removed_on_exit {
  std::vector<std::string> paths;
  ~removed_on_exit() {
    for (const auto& p : paths) {
      std::remove(p.c_str());
      std::remove((p + ".partial").c_str());
    }
  }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Unlinks first: on ext4, truncating a file holding data forces it to disk (auto_da_alloc).
inline void spit(const std::string& path, const std::string& bytes) {
  std::remove(path.c_str());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace perfdm::log_test
