// The frames schema (docs/FRAMES.md §1): C struct declarations, as C is written, with
// annotations in the comment after each field. Anything the schema does not allow is a
// schema_error whose message starts with file:line:col.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "shm/layout.hpp"

namespace perfdm::shm {

// One struct as the schema declares it, its fields in declaration order.
struct schema_struct {
  std::string name;    // the frame type: the struct tag, or the typedef name
  std::string c_type;  // how C code names the type: "struct work" or, for a typedef, "work"
  std::vector<field_declaration> fields;
};

struct parsed_schema {
  std::vector<schema_struct> structs;
  std::vector<frame_layout> layouts;  // lay_out of each struct (§2), in the same order
  // The C scalar types the schema spelled, in a canonical spelling ("unsigned long",
  // "size_t", "char" only for a plain char used as a small integer), in order of first use:
  // the generated header checks their x86-64 LP64 sizes.
  std::vector<std::string> c_types;
  // "file:line:col: note: …": the preprocessor lines that were skipped.
  std::vector<std::string> notes;
};

// Parses every struct of `text` and lays each out (§2). `file` is only used in messages.
parsed_schema parse_schema_text(const std::string& text, const std::string& file);

// Reads and parses a schema file; an unreadable file is a schema_error too.
parsed_schema read_schema_file(const std::string& path);

// The layouts alone.
std::vector<frame_layout> parse_schema(const std::string& text, const std::string& file);
std::vector<frame_layout> parse_schema_file(const std::string& path);

// The layout descriptors of a schema file's structs, by struct name: what an attach with
// that schema expects each frame type of the program to be exactly.
std::map<std::string, std::string> schema_descriptors(const std::string& path);

// The size in bytes of a C scalar type (a c_types spelling) on x86-64 (LP64).
std::uint32_t lp64_size_of(const std::string& c_type);

}  // namespace perfdm::shm
