// Schemas as C is written (docs/FRAMES.md §1): every C scalar spelling is checked against the
// C compiler's own sizeof, offsetof and signedness (a probe compiled here from the schema,
// which is also a C header), and frames of every spelling, written by a component that
// `perfdm gen` generated and the C compiler built here, are read back exactly by
// `perfdm attach` and `perfdm read`. The seed's struct Foo goes the same way, end to end.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "shm/attach.hpp"
#include "shm/codegen.hpp"
#include "shm/schema.hpp"
#include "shm/segment.hpp"
#include "tests/frames_test_process.hpp"

using namespace perfdm::shm;
namespace fs = std::filesystem;

namespace {

// A directory of its own, removed with everything in it at the end of the test.
struct work_dir {
  fs::path path;
  explicit work_dir(const std::string& name)
      : path(fs::temp_directory_path() /
             ("perfdm_c_schema_" + std::to_string(::getpid()) + "_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~work_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a shell command, its output into `log`; returns its exit status.
int run(const std::string& command, const std::string& log) {
  const int status = std::system((command + " >" + log + " 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs a command that must succeed; on failure the test stops showing its output.
void require_ok(const std::string& command, const std::string& log) {
  const int rc = run(command, log);
  INFO(command << "\n" << slurp(log));
  REQUIRE(rc == 0);
}

char kind_letter(field_type t) {
  switch (t) {
    case field_type::boolean:
      return 'b';
    case field_type::f32:
    case field_type::f64:
      return 'f';
    case field_type::u8:
    case field_type::u16:
    case field_type::u32:
    case field_type::u64:
      return 'u';
    default:
      return 'i';
  }
}

// The probe: for each field as declared, the C compiler's kind (i, u, f, b; t for text),
// element size, size and offset in the schema's own struct, then size and offset in the
// generated perfdm_<S>_frame; and the struct's size.
std::string probe_source(const parsed_schema& schema, const std::string& schema_path,
                         const std::string& header) {
  std::string s = "#include <stdio.h>\n#include <stddef.h>\n#include \"" + schema_path +
                  "\"\n#include \"" + header +
                  "\"\n#define KIND(x) _Generic((x), _Bool: 'b', float: 'f', double: 'f', "
                  "long double: 'F', default: ((__typeof__(x))-1 < 0 ? 'i' : 'u'))\n"
                  "int main(void) {\n";
  for (const auto& st : schema.structs) {
    const std::string t = st.c_type, g = "perfdm_" + st.name + "_frame";
    s += "  printf(\"struct %zu\\n\", sizeof(" + t + "));\n";
    for (const auto& f : st.fields) {
      const std::string m = "((" + t + "*)0)->" + f.name;
      const std::string e = f.length ? m + "[0]" : m;
      const std::string kind = f.type == field_type::text ? "'t'" : "KIND(" + e + ")";
      s += "  printf(\"" + f.name + " %c %zu %zu %zu %zu %zu\\n\", " + kind + ", sizeof(" + e +
           "), sizeof(" + m + "), offsetof(" + t + ", " + f.name + "), sizeof(((" + g + "*)0)->" +
           f.name + "), offsetof(" + g + ", " + f.name + "));\n";
    }
  }
  return s + "  return 0;\n}\n";
}

// What the probe must print if perfdm reads each spelling as the C compiler does.
std::string probe_expected(const parsed_schema& schema) {
  std::string out;
  for (std::size_t n = 0; n < schema.structs.size(); ++n) {
    const auto& st = schema.structs[n];
    // In declaration order, as the C compiler lays the schema's struct out (perfdm's two
    // 8-byte fields first move every offset by 16, which every alignment divides).
    const auto in_order = layout_in_order(st.name, st.fields);
    out += "struct " + std::to_string(in_order.size - 16) + "\n";
    for (std::size_t i = 0; i < st.fields.size(); ++i) {
      const auto& f = st.fields[i];
      const auto& declared = in_order.fields[i + 2];
      const field_layout* generated = nullptr;
      for (const auto& g : schema.layouts[n].fields)
        if (g.name == f.name) generated = &g;
      REQUIRE(generated);
      const char kind = f.type == field_type::text ? 't' : kind_letter(f.type);
      out += f.name + " " + kind + " " + std::to_string(type_size(f.type)) + " " +
             std::to_string(declared.size) + " " + std::to_string(declared.offset - 16) + " " +
             std::to_string(generated->size) + " " + std::to_string(generated->offset) + "\n";
    }
  }
  return out;
}

template <class T>
std::string shortest(T v) {
  char buf[64];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// A value for frame k (0: the type's minimum, 1: its maximum, 2: varies by field) of a
// numeric element: the C literal the writer stores and the text perfdm read must print.
std::pair<std::string, std::string> value_of(field_type t, int k, int g) {
  auto integer = [&](long long lo, unsigned long long hi, const char* lo_literal,
                     const char* hi_literal) -> std::pair<std::string, std::string> {
    if (k == 0) return {lo_literal, std::to_string(lo)};
    if (k == 1) return {hi_literal, std::to_string(hi)};
    const long long v = lo < 0 ? g % 100 - 50 : g % 100;
    return {std::to_string(v), std::to_string(v)};
  };
  switch (t) {
    case field_type::i8:
      return integer(-128, 127, "-128", "127");
    case field_type::u8:
      return integer(0, 255, "0", "255");
    case field_type::i16:
      return integer(-32768, 32767, "-32768", "32767");
    case field_type::u16:
      return integer(0, 65535, "0", "65535");
    case field_type::i32:
      return integer(std::numeric_limits<std::int32_t>::min(), 2147483647, "(-2147483647 - 1)",
                     "2147483647");
    case field_type::u32:
      return integer(0, 4294967295u, "0", "4294967295u");
    case field_type::i64:
      return integer(std::numeric_limits<std::int64_t>::min(), 9223372036854775807ull,
                     "(-9223372036854775807LL - 1)", "9223372036854775807LL");
    case field_type::u64:
      return integer(0, 18446744073709551615ull, "0", "18446744073709551615ULL");
    case field_type::boolean: {
      const std::string v = k == 2 ? std::to_string(g % 2) : std::to_string(k);
      return {v, v};
    }
    case field_type::f32: {
      const float v = k == 0 ? -1.5f : k == 1 ? std::numeric_limits<float>::max() : g + 0.25f;
      std::string literal = shortest(v);
      if (literal.find_first_of(".e") == std::string::npos) literal += ".0";
      return {literal + "f", shortest(v)};
    }
    case field_type::f64: {
      const double v = k == 0 ? -2.5e-300 : k == 1 ? std::numeric_limits<double>::max() : g + 0.125;
      std::string literal = shortest(v);
      if (literal.find_first_of(".e") == std::string::npos) literal += ".0";
      return {literal, shortest(v)};
    }
    case field_type::text:
      break;
  }
  return {"0", "0"};
}

constexpr int frames_per_type = 3;

// A C99 writer of every frame type: waits until perfdm attached (every handle non-zero),
// writes frames_per_type frames of each with the values of value_of through the generated
// PERFDM_<S>_SET_<field> macros, and exits. `expected[S][k]` gets the text of each column.
std::string writer_source(
    const parsed_schema& schema, const std::string& header,
    std::map<std::string, std::vector<std::map<std::string, std::string>>>& expected) {
  std::string s = "#define _DEFAULT_SOURCE\n#include <string.h>\n#include <unistd.h>\n#include \"" +
                  header + "\"\nint main(void) {\n  int waited = 0;\n  while (";
  for (std::size_t n = 0; n < schema.structs.size(); ++n)
    s += (n ? " || " : "") + std::string("perfdm_handle_") + schema.structs[n].name + " == 0";
  s += ") {\n    if (++waited > 20000) return 3;\n    usleep(1000);\n  }\n";
  int g = 0;
  for (const auto& st : schema.structs) {
    auto& rows = expected[st.name];
    rows.resize(frames_per_type);
    for (int k = 0; k < frames_per_type; ++k) {
      const std::string frame = "f_" + st.name + "_" + std::to_string(k);
      s += "  {\n    perfdm_" + st.name + "_frame " + frame + ";\n    memset(&" + frame +
           ", 0, sizeof " + frame + ");\n";
      for (const auto& f : st.fields) {
        const std::string set = "    PERFDM_" + st.name + "_SET_" + f.name + "(&" + frame + ", ";
        ++g;
        if (f.type == field_type::text) {
          const std::string text =
              ("k" + std::to_string(k) + "g" + std::to_string(g) + "-tail").substr(0, f.length - 1);
          s += set + "\"" + text + "\");\n";
          rows[k][st.name + "." + f.name] = text;
        } else if (f.length == 0) {
          const auto [literal, shown] = value_of(f.type, k, g);
          s += set + literal + ");\n";
          rows[k][st.name + "." + f.name] = shown;
        } else {
          for (std::uint32_t e = 0; e < f.length; ++e, ++g) {
            const auto [literal, shown] = value_of(f.type, k, g);
            s += set + std::to_string(e) + ", " + literal + ");\n";
            rows[k][st.name + "." + f.name + "[" + std::to_string(e) + "]"] = shown;
          }
        }
      }
      s += "    perfdm_write_" + st.name + "(&" + frame + ");\n  }\n";
    }
  }
  return s + "  return 0;\n}\n";
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, by)) out.push_back(item);
  return out;
}

const std::string perfdm_bin = PERFDM_BINARY;

// gen, probe, build, attach, read: everything the header of this file says, for one schema.
void check_schema_end_to_end(const std::string& schema_path, const std::string& name) {
  work_dir dir(name);
  const auto schema = read_schema_file(schema_path);
  const std::string stem = schema_stem(schema_path);
  const std::string gen = dir / "gen", header = gen + "/" + stem + "_frames.h";
  INFO("work directory " << dir.path.string());

  require_ok(perfdm_bin + " gen " + schema_path + " -o " + gen, dir / "gen.log");
  // Every #include of the schema was skipped with a note naming its line.
  const auto gen_log = slurp(dir / "gen.log");
  for (const auto& note : schema.notes) CHECK(gen_log.find(note) != std::string::npos);

  // The C compiler's view of every field against perfdm's.
  {
    std::ofstream(dir / "probe.c") << probe_source(schema, schema_path, header);
    require_ok(std::string(PERFDM_C_COMPILER) +
                   " -std=gnu11 -Wall -Wextra -Werror -Wno-type-limits -o " + dir / "probe" + " " +
                   dir / "probe.c",
               dir / "probe.log");
    require_ok(dir / "probe", dir / "probe.out");
    CHECK(slurp(dir / "probe.out") == probe_expected(schema));
  }

  // A C99 writer built with the generated component; perfdm attaches and reads it back.
  std::map<std::string, std::vector<std::map<std::string, std::string>>> expected;
  std::ofstream(dir / "writer.c") << writer_source(schema, header, expected);
  const std::string cc = PERFDM_C_COMPILER, cxx = PERFDM_CXX_COMPILER;
  require_ok(cc + " -std=c99 -pedantic -Wall -Wextra -Werror -c -o " + dir / "writer.o" + " " +
                 dir / "writer.c",
             dir / "writer_cc.log");
  require_ok(cxx + " -std=c++17 -O1 -pedantic -Wall -Wextra -Werror -c -o " + dir / "gen.o" + " " +
                 gen + "/" + stem + "_frames.cpp",
             dir / "gen_cxx.log");
  require_ok(cxx + " -pthread -o " + dir / "writer" + " " + dir / "writer.o" + " " + dir / "gen.o",
             dir / "link.log");

  frames_test::child writer({dir / "writer"}, dir / "writer.out", dir / "writer.err");
  require_ok(perfdm_bin + " attach " + std::to_string(writer.pid()), dir / "attach.out");
  std::map<std::string, std::string> segments;  // struct -> segment
  for (const auto& line : split(slurp(dir / "attach.out"), '\n')) {
    const auto cols = split(line, '\t');
    if (cols.size() == 2) segments[cols[0]] = cols[1];
  }
  REQUIRE(segments.size() == schema.structs.size());
  for (const auto& st : schema.structs) {
    INFO("struct " << st.name);
    const auto out = dir / (st.name + ".read");
    // Standard output: the frames; standard error (the log): the counts.
    require_ok("{ " + perfdm_bin + " read " + segments[st.name] + " --pid " +
                   std::to_string(writer.pid()) + " 2>" + dir / (st.name + ".read.err") + " >" +
                   out + "; }",
               dir / "read.log");
    const auto lines = split(slurp(out), '\n');
    REQUIRE(lines.size() == 1 + frames_per_type);
    const auto columns = split(lines[0], '\t');
    std::size_t compared = 0;
    for (int k = 0; k < frames_per_type; ++k) {
      const auto row = split(lines[1 + k], '\t');
      REQUIRE(row.size() == columns.size());
      CHECK(row[0] == std::to_string(k + 1));  // perfdm_seq
      std::map<std::string, std::string> got;
      for (std::size_t c = 3; c < columns.size(); ++c) got[columns[c]] = row[c];
      CHECK(got == expected[st.name][k]);
      compared += got.size();
    }
    CHECK(compared > 0);
    CHECK(slurp(dir / (st.name + ".read.err")).find("frames read 3, lost 0, torn 0") !=
          std::string::npos);
  }
  CHECK(writer.wait(20) == 0);
  for (const auto& seg : process_segments(writer.pid())) segment::remove(seg);
}

}  // namespace

TEST_CASE(
    "frames C schema: every C scalar spelling is read as the C compiler lays it out, and "
    "its frames read back exactly") {
  check_schema_end_to_end(PERFDM_SOURCE_DIR "/tests/frames/spellings.frames", "spellings");
}

TEST_CASE(
    "frames C schema: the design notes' struct Foo, end to end (gen, build, attach, "
    "read)") {
  check_schema_end_to_end(PERFDM_SOURCE_DIR "/tests/frames/foo.frames", "foo");
}

TEST_CASE(
    "frames C schema: spellings, declarators, typedef struct, comments and preprocessor "
    "lines") {
  const auto s = parse_schema_text(R"(#include <stdint.h>
  # define X 1 \
     continued
/* a */ struct /* b */ a /* c */ { /* d */ unsigned /* e */ long /* f */ x /* g */, y[2] /* h */;
  char c; char t[3]; }; typedef struct tag { long long int q; } b;
)",
                                   "s.frames");
  REQUIRE(s.structs.size() == 2);
  CHECK(s.structs[0].c_type == "struct a");
  CHECK(s.structs[1].name == "b");
  CHECK(s.structs[1].c_type == "b");
  REQUIRE(s.notes.size() == 2);
  CHECK(s.notes[0].rfind("s.frames:1:1: note: preprocessor line skipped", 0) == 0);
  CHECK(s.notes[0].find("#include <stdint.h>") != std::string::npos);
  CHECK(s.notes[1].rfind("s.frames:2:3: note:", 0) == 0);
  CHECK(s.notes[1].find("# define X 1       continued") != std::string::npos);
  const auto& f = s.structs[0].fields;
  REQUIRE(f.size() == 4);
  CHECK(f[0].type == field_type::u64);
  CHECK(f[1].type == field_type::u64);
  CHECK(f[1].length == 2);
  CHECK(f[2].type == field_type::i8);  // plain char: a signed small integer
  CHECK(f[3].type == field_type::text);
  CHECK(s.c_types == std::vector<std::string>{"unsigned long", "char", "long long"});
  // Arrays are T[N] in the descriptor; the generated header checks the LP64 sizes.
  CHECK(layout_descriptor(s.layouts[0]).find("field y u64[2] 24 16 sampled\n") !=
        std::string::npos);
  const auto g = generate_frames_code(s.layouts, "s", "s.frames", writer_clock::tsc, s.c_types);
  CHECK(g.header.find("PERFDM_FRAMES_ASSERT(sizeof(unsigned long) == 8,") != std::string::npos);
  CHECK(g.header.find("PERFDM_FRAMES_ASSERT(sizeof(long long) == 8,") != std::string::npos);
  CHECK(g.header.find("PERFDM_FRAMES_ASSERT((char)-1 < 0,") != std::string::npos);
  CHECK(g.header.find("  uint64_t y[2];") != std::string::npos);
}

TEST_CASE("frames C schema: the generated header refuses an ABI other than the schema's") {
  // The schema's plain char is a signed small integer (x86-64): built with unsigned chars,
  // the header stops the build instead of letting the values change meaning.
  work_dir dir("abi");
  std::ofstream(dir / "c.frames") << "struct c { char small; };\n";
  require_ok(perfdm_bin + " gen " + dir / "c.frames" + " -o " + dir / "gen", dir / "gen.log");
  std::ofstream(dir / "use.c") << "#include \"gen/c_frames.h\"\nint main(void) { return 0; }\n";
  const std::string cc = std::string(PERFDM_C_COMPILER) + " -std=c11 -fsyntax-only ";
  CHECK(run(cc + dir / "use.c", dir / "signed.log") == 0);
  CHECK(run(cc + "-funsigned-char " + dir / "use.c", dir / "unsigned.log") != 0);
  CHECK(slurp(dir / "unsigned.log").find("perfdm schema: char is signed (x86-64)") !=
        std::string::npos);
}

TEST_CASE("frames C schema: a numeric array is T[N] in the layout descriptor, parsed strictly") {
  const auto l = parse_schema("struct a { short v[3]; char t[2]; };", "s.frames")[0];
  const auto d = layout_descriptor(l);
  CHECK(d.find("field v i16[3] 16 6 sampled\n") != std::string::npos);
  CHECK(layout_descriptor(parse_layout_descriptor(d)) == d);
  CHECK(field_text(l.fields[2], std::vector<std::byte>(l.size).data()) == "0,0,0");
  const auto elements = element_fields(l);
  REQUIRE(elements.size() == 2 + 3 + 1);
  CHECK(elements[4].name == "v[2]");
  CHECK(elements[4].offset == 20);
  CHECK(elements[4].size == 2);
  for (const char* bad : {"i16[0] 16 0", "i16[03] 16 6", "i16[3] 16 4", "text[2] 16 2",
                          "i16[] 16 2", "i16[3 16 6", "i16[-1] 16 2"}) {
    std::string b = d;
    b.replace(b.find("i16[3] 16 6"), 11, bad);
    INFO(b);
    CHECK_THROWS_AS(parse_layout_descriptor(b), schema_error);
  }
}
