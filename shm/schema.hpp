// The frames schema (docs/FRAMES.md §1): C struct declarations with annotations in the
// comment after each field. Anything the schema does not allow is a schema_error whose
// message starts with file:line:col.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "shm/layout.hpp"

namespace perfdm::shm {

// Parses every struct of `text` and lays each out (§2). `file` is only used in messages.
std::vector<frame_layout> parse_schema(const std::string& text, const std::string& file);

// Reads and parses a schema file; an unreadable file is a schema_error too.
std::vector<frame_layout> parse_schema_file(const std::string& path);

// The layout descriptors of a schema file's structs, by struct name: what an attach with
// that schema expects each frame type of the program to be exactly.
std::map<std::string, std::string> schema_descriptors(const std::string& path);

}  // namespace perfdm::shm
