#include "shm/codegen.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "shm/codegen_templates.hpp"
#include "shm/schema.hpp"
#include "shm/segment_format.hpp"

namespace perfdm::shm {

using namespace codegen_text;

namespace {

// Replaces every @KEY@ of `text` by its value.
std::string fill(std::string text, const std::vector<std::pair<std::string, std::string>>& keys) {
  for (const auto& [key, value] : keys) {
    const std::string marker = "@" + key + "@";
    for (auto at = text.find(marker); at != std::string::npos;
         at = text.find(marker, at + value.size()))
      text.replace(at, marker.size(), value);
  }
  return text;
}

const char* c_type(field_type t) {
  switch (t) {
    case field_type::i8:
      return "int8_t";
    case field_type::i16:
      return "int16_t";
    case field_type::i32:
      return "int32_t";
    case field_type::i64:
      return "int64_t";
    case field_type::u8:
      return "uint8_t";
    case field_type::u16:
      return "uint16_t";
    case field_type::u32:
      return "uint32_t";
    case field_type::u64:
      return "uint64_t";
    case field_type::f32:
      return "float";
    case field_type::f64:
      return "double";
    case field_type::boolean:
      return "bool";
    case field_type::text:
      return "char";
  }
  return "?";
}

std::string hex64(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llxull", static_cast<unsigned long long>(v));
  return buf;
}

// The descriptor as C string literals, one per line.
std::string c_string_lines(const std::string& text, const std::string& indent) {
  std::string out;
  std::string line = "\"";
  for (const char c : text) {
    if (c == '\n') {
      out += indent + line + "\\n\"\n";
      line = "\"";
    } else if (c == '"' || c == '\\') {
      line += '\\';
      line += c;
    } else {
      line += c;
    }
  }
  if (line != "\"") out += indent + line + "\"\n";
  if (!out.empty()) out.pop_back();
  return out;
}

std::string guard_of(const std::string& stem) {
  std::string g = "PERFDM_";
  for (const char c : stem) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    g += ok ? static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c) : '_';
  }
  return g + "_FRAMES_H";
}

// The generated writer's copy of format::header, from the same field list: each field is
// declared with the type it has here and asserted at the offset and size it has here, so the
// two sides cannot drift apart (a change to the list changes both).
std::string segment_header_code() {
  struct field {
    const char* type;
    const char* name;
    const char* extent;
    std::size_t offset, size;
  };
  static constexpr field fields[] = {
#define PERFDM_HEADER_FIELD(type, name, extent) \
  {#type, #name, #extent, offsetof(format::header, name), sizeof(format::header::name)},
      PERFDM_SEGMENT_HEADER_FIELDS(PERFDM_HEADER_FIELD)
#undef PERFDM_HEADER_FIELD
  };
  std::string out = "struct perfdm_segment_header {\n";
  for (const auto& f : fields)
    out += std::string("  ") + f.type + " " + f.name + f.extent + ";\n";
  out += "};\nstatic_assert(sizeof(perfdm_segment_header) == " +
         std::to_string(sizeof(format::header)) + ", \"segment header\");\n";
  for (const auto& f : fields)
    out += std::string("static_assert(offsetof(perfdm_segment_header, ") + f.name + ") == " +
           std::to_string(f.offset) + " &&\n              sizeof(perfdm_segment_header::" +
           f.name + ") == " + std::to_string(f.size) + ", \"segment header: " + f.name +
           "\");\n";
  return out;
}

}  // namespace

std::optional<writer_clock> parse_writer_clock(std::string_view name) {
  if (name == "tsc") return writer_clock::tsc;
  if (name == "reader") return writer_clock::reader;
  return std::nullopt;
}

namespace {

// The header's check of the ABI the schema was read with: each C type it spelled has its
// x86-64 LP64 size, and a plain char used as a number is signed.
std::string lp64_asserts(const std::vector<std::string>& c_types) {
  if (c_types.empty()) return "";
  std::string out =
      "\n/* The schema's C types as perfdm read them: x86-64, LP64 (docs/FRAMES.md §1). */\n";
  for (const auto& t : c_types) {
    const auto size = lp64_size_of(t);
    out += "PERFDM_FRAMES_ASSERT(sizeof(" + t + ") == " + std::to_string(size) +
           ", \"perfdm schema: " + t + " is " + std::to_string(size) +
           (size == 1 ? " byte" : " bytes") + " (x86-64 LP64)\");\n";
    if (t == "char")
      out += "PERFDM_FRAMES_ASSERT((char)-1 < 0, \"perfdm schema: char is signed (x86-64)\");\n";
  }
  return out;
}

}  // namespace

generated_files generate_frames_code(const std::vector<frame_layout>& layouts,
                                     const std::string& stem, const std::string& schema_name,
                                     writer_clock clock, const std::vector<std::string>& c_types) {
  generated_files g;
  g.header_name = stem + "_frames.h";
  g.source_name = stem + "_frames.cpp";
  const std::vector<std::pair<std::string, std::string>> common = {
      {"HEADER", g.header_name},
      {"SOURCE", g.source_name},
      {"SCHEMA", schema_name},
      {"GUARD", guard_of(stem)},
      {"MAX_LANES", std::to_string(format::max_lanes)},
      {"MAX_CAPACITY", std::to_string(format::max_capacity)},
      {"VERSION", std::to_string(format::version)},
      {"CLOCK_TSC", std::to_string(format::clock_tsc)},
      {"CLOCK_MONOTONIC", std::to_string(format::clock_monotonic)},
      {"CLOCK_READER", std::to_string(format::clock_reader)},
      {"WRITER_ATTACHED", std::to_string(format::writer_attached)},
      {"WRITER_RELEASED", std::to_string(format::writer_released)},
      {"WRITER_MISMATCH", std::to_string(format::writer_mismatch)},
      {"MAGIC", std::string(format::magic, sizeof format::magic)},
      {"PAGE", std::to_string(format::page)},
      {"LANE_HEAD", std::to_string(format::lane_head)},
      {"LANE_SLOTS", std::to_string(format::lane_slots)},
      {"WRITING_BIT", hex64(format::writing_bit)},
  };
  // ssize_t is POSIX's, from <sys/types.h>; the other types come from the usual headers.
  const bool ssize = std::find(c_types.begin(), c_types.end(), "ssize_t") != c_types.end();
  g.header = fill(fill(header_top, {{"EXTRA_INCLUDES", ssize ? "#include <sys/types.h>\n" : ""}}),
                  common) +
             lp64_asserts(c_types);
  g.source = fill(
      fill(source_top,
           {{"SEGMENT_HEADER", segment_header_code()},
            {"CLOCK_CODE", clock == writer_clock::reader ? clock_reader_code : clock_tsc_code}}),
      common);
  for (const auto& l : layouts) {
    const std::string& s = l.struct_name;
    const std::string descriptor = layout_descriptor(l);
    std::string fields, setters, asserts, copies;
    for (const auto& f : l.fields) {
      std::string comment;
      if (f.kind == field_kind::counter || f.kind == field_kind::sampled) {
        comment = std::string(" /* metric ") + s + "." + f.name + ", " + to_string(f.kind);
        if (!f.units.empty()) comment += ", " + f.units;
        // Units may hold "*/": keep the comment closed however they read.
        for (auto at = comment.find("*/"); at != std::string::npos; at = comment.find("*/"))
          comment.replace(at, 2, "* /");
        comment += " */";
      }
      const std::string extent = f.type == field_type::text ? "[" + std::to_string(f.size) + "]"
                                 : f.array_length != 0 ? "[" + std::to_string(f.array_length) + "]"
                                                       : "";
      fields += "  " + std::string(c_type(f.type)) + " " + f.name + extent + ";" + comment + "\n";
      asserts += "static_assert(offsetof(perfdm_" + s + "_frame, " + f.name +
                 ") == " + std::to_string(f.offset) + ", \"perfdm_" + s + "_frame: layout\");\n";
      if (f.kind == field_kind::seq || f.kind == field_kind::time) continue;
      copies += "  std::memcpy(slot + " + std::to_string(f.offset) + ", &f->" + f.name +
                ", sizeof f->" + f.name + ");\n";
      if (f.type == field_type::text)
        setters += "#define PERFDM_" + s + "_SET_" + f.name +
                   "(frame_ptr, value) \\\n  perfdm_frames_copy_text((frame_ptr)->" + f.name +
                   ", sizeof((frame_ptr)->" + f.name + "), (value))\n";
      else if (f.array_length != 0)
        setters += "#define PERFDM_" + s + "_SET_" + f.name +
                   "(frame_ptr, index, value) ((void)((frame_ptr)->" + f.name + "[index] = (" +
                   c_type(f.type) + ")(value)))\n";
      else
        setters += "#define PERFDM_" + s + "_SET_" + f.name +
                   "(frame_ptr, value) ((void)((frame_ptr)->" + f.name + " = (" + c_type(f.type) +
                   ")(value)))\n";
    }
    const std::vector<std::pair<std::string, std::string>> keys = {
        {"S", s},
        {"SIZE", std::to_string(l.size)},
        {"HASH", hex64(layout_hash(descriptor))},
        {"OFFSET_ASSERTS", asserts},
        {"FIELD_COPIES", copies},
        {"DESCRIPTOR", c_string_lines(descriptor, "    ")},  // last: units may hold @
    };
    g.header += fill(
        "\n/* struct @S@: @SIZE@ bytes; perfdm_seq and perfdm_time are stamped by "
        "perfdm_write_@S@. */\n"
        "typedef struct perfdm_@S@_frame {\n",
        keys);
    g.header += fields + "} perfdm_" + s + "_frame;\n";
    g.header += fill(
        "PERFDM_FRAMES_ASSERT(sizeof(perfdm_@S@_frame) == @SIZE@, \"perfdm_@S@_frame: "
        "layout\");\n\n",
        keys);
    g.header += setters;
    g.header += fill(header_struct_end, keys);
    g.source += fill(source_struct, keys);
  }
  std::string fork_calls;
  for (const auto& l : layouts)
    fork_calls += "  perfdm_forget_after_fork(perfdm_writer_" + l.struct_name + ");\n";
  g.source += fill(source_bottom, {{"FORK_CALLS", fork_calls}});
  g.header += fill(header_bottom, common);
  return g;
}

std::string schema_stem(const std::string& schema_path) {
  return std::filesystem::path(schema_path).stem().string();
}

std::vector<std::string> write_frames_code(const std::string& schema_path,
                                           const std::string& out_dir, writer_clock clock,
                                           std::vector<std::string>* notes) {
  const auto schema = read_schema_file(schema_path);
  if (notes) *notes = schema.notes;
  const auto g = generate_frames_code(schema.layouts, schema_stem(schema_path),
                                      std::filesystem::path(schema_path).filename().string(), clock,
                                      schema.c_types);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("cannot create the directory " + out_dir + ": " + ec.message());
  std::vector<std::string> written;
  for (const auto& [name, text] :
       {std::pair{g.header_name, g.header}, std::pair{g.source_name, g.source}}) {
    const auto path = (std::filesystem::path(out_dir) / name).string();
    const auto tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << text;
      if (!out.flush()) throw std::runtime_error("cannot write " + tmp);
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw std::runtime_error("cannot write " + path + ": " + ec.message());
    written.push_back(path);
  }
  return written;
}

}  // namespace perfdm::shm