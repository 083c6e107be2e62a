// The generated component (docs/FRAMES.md §3): a header for C and C++ and a C++17 source
// that an observed program compiles and links. Pure text generation, no I/O but in
// write_generated.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shm/layout.hpp"

namespace perfdm::shm {

struct generated_files {
  std::string header_name;  // <stem>_frames.h
  std::string header;
  std::string source_name;  // <stem>_frames.cpp
  std::string source;
};

// Where a generated write takes perfdm_time from (`perfdm gen --clock`, docs/FRAMES.md §3):
// tsc reads the time stamp counter per frame (CLOCK_MONOTONIC where there is none); reader
// copies the time the reader last stored in the segment header (clock_reader), which
// costs no clock read and is accurate to the reader's polling period.
enum class writer_clock { tsc, reader };

// "tsc" or "reader"; nullopt for anything else.
std::optional<writer_clock> parse_writer_clock(std::string_view name);

// `schema_name` only appears in the files' first comment. `c_types` are the C scalar types
// the schema spelled (parsed_schema::c_types): the header checks their x86-64 LP64 sizes.
generated_files generate_frames_code(const std::vector<frame_layout>& layouts,
                                     const std::string& stem, const std::string& schema_name,
                                     writer_clock clock = writer_clock::tsc,
                                     const std::vector<std::string>& c_types = {});

// The stem of a schema path: its file name without the extension ("a/demo.frames" -> "demo").
std::string schema_stem(const std::string& schema_path);

// Parses the schema and writes both files into out_dir (created if missing); returns their
// paths. Throws schema_error for the schema, std::runtime_error for the files. The schema's
// notes (preprocessor lines skipped) go to `notes` when given.
std::vector<std::string> write_frames_code(const std::string& schema_path,
                                           const std::string& out_dir,
                                           writer_clock clock = writer_clock::tsc,
                                           std::vector<std::string>* notes = nullptr);

}  // namespace perfdm::shm
