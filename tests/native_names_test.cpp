// Names a person can act on, on binaries the test builds: a function without a
// symbol is named by its module and the start of its .eh_frame entry (native/cfi_functions.*);
// a stripped binary whose debug information was split off (objcopy --only-keep-debug,
// --add-gnu-debuglink, as Debian's -dbgsym packages do) gets its names and lines back.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "native/cfi_functions.hpp"
#include "native/stack_sampler.hpp"
#include "tests/real_program_process.hpp"
#include "tests/sampled_stack.hpp"

using namespace perfdm::native;

namespace {

struct elf_file {
  explicit elf_file(const std::string& path) {
    elf_version(EV_CURRENT);
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    elf = elf_begin(fd, ELF_C_READ, nullptr);
    REQUIRE(elf != nullptr);
  }
  ~elf_file() {
    elf_end(elf);
    close(fd);
  }
  // (value, size) of a function symbol of .symtab.
  std::pair<std::uint64_t, std::uint64_t> symbol(const std::string& name) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr shdr;
      gelf_getshdr(scn, &shdr);
      if (shdr.sh_type != SHT_SYMTAB) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      for (std::size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; ++i) {
        GElf_Sym sym;
        gelf_getsym(data, static_cast<int>(i), &sym);
        if (name == elf_strptr(elf, shdr.sh_link, sym.st_name)) return {sym.st_value, sym.st_size};
      }
    }
    FAIL("no symbol " << name);
    return {};
  }
  int fd = -1;
  Elf* elf = nullptr;
};

// The main thread's stack once its innermost frame is in the spin program's own module
// (crunch most of the time).
std::vector<stack_frame> spinning_stack(int pid, const std::string& module_suffix) {
  return sampled_stack::stack_until(pid, [&](const std::vector<stack_frame>& frames) {
    auto& m = frames.front().module;
    return frames.size() >= 3 && m.size() >= module_suffix.size() &&
           m.compare(m.size() - module_suffix.size(), module_suffix.size(), module_suffix) == 0;
  });
}

}  // namespace

TEST_CASE("cfi_function_table: every function's .eh_frame entry starts at its symbol",
          "[native][names]") {
  real_program::temp_dir dir;
  auto spin = real_program::build_spin(dir);
  REQUIRE(real_program::shell("strip -o " + dir / "stripped" + " " + spin));
  elf_file with_symbols(spin);
  elf_file stripped(dir / "stripped");
  cfi_function_table table(stripped.elf);  // the stripped file: .eh_frame is all it has
  CHECK(table.size() >= 3);
  for (auto name : {"_Z6crunchm", "_Z12spin_foreverv", "main"}) {
    INFO(name);
    auto [start, size] = with_symbols.symbol(name);
    REQUIRE(size > 0);
    CHECK(table.function_start(start) == start);
    CHECK(table.function_start(start + size / 2) == start);
    CHECK(table.function_start(start + size - 1) == start);
    CHECK(table.function_start(start + size) != start);
  }
  CHECK_FALSE(table.function_start(0));
  CHECK(cfi_function_table(nullptr).size() == 0);
}

TEST_CASE("a stripped executable's functions are named by module and start address, each apart",
          "[native][names][stack]") {
  real_program::temp_dir dir;
  auto spin = real_program::build_spin(dir);
  auto crunch = real_program::symbol_address(spin, "_Z6crunchm");
  auto spin_forever = real_program::symbol_address(spin, "_Z12spin_foreverv");
  REQUIRE(real_program::shell("strip -o " + dir / "spin_stripped" + " " + spin));
  real_program::process p({dir / "spin_stripped"});
  auto frames = spinning_stack(p.pid, "/spin_stripped");
  std::vector<std::string> own;
  for (auto& f : frames)
    if (f.module == dir / "spin_stripped") {
      CHECK_FALSE(f.function.empty());
      own.push_back(f.function);
    }
  INFO(own.size() << " frames of its own");
  CHECK(std::find(own.begin(), own.end(), "spin_stripped+" + spin_forever) != own.end());
  // crunch is innermost unless the sample caught spin_forever between two calls
  CHECK((own.front() == "spin_stripped+" + crunch || own.front() == "spin_stripped+" + spin_forever));
  // main, spin_forever, (crunch), _start: distinct names
  auto distinct = own;
  std::sort(distinct.begin(), distinct.end());
  CHECK(std::unique(distinct.begin(), distinct.end()) == distinct.end());
}

TEST_CASE("a stripped executable's split debug file (.gnu_debuglink) gives its names and lines",
          "[native][names][stack]") {
  real_program::temp_dir dir;
  auto spin = real_program::build_spin(dir, "-g");
  // As Debian's -dbgsym packages: the debug information apart, the binary stripped, linked
  // by name (the debug file next to it; /usr/lib/debug/<its folder> is looked in too).
  REQUIRE(real_program::shell("objcopy --only-keep-debug " + spin + " " + dir / "split.debug"));
  REQUIRE(real_program::shell("cd " + dir.path + " && objcopy --strip-all --add-gnu-debuglink=split.debug spin split"));
  REQUIRE_FALSE(real_program::shell("nm " + dir / "split" + " 2>/dev/null | grep -q crunch"));
  real_program::process p({dir / "split"});
  auto frames = spinning_stack(p.pid, "/split");
  bool named = false;
  for (auto& f : frames)
    if (f.function == "spin_forever()") {
      named = true;
      CHECK_THAT(f.file, Catch::EndsWith("spin.cpp"));
      CHECK(f.line > 0);
    }
  CHECK(named);
}
