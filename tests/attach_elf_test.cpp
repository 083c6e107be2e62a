// Reading an executable's symbols with libelf, and another process's executable, load base
// and memory (shm/elf_symbols, shm/process_memory; docs/FRAMES.md §5). Real files, real
// processes: the C target of tests/attach/ built as PIE and fixed-address.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "shm/attach.hpp"
#include "shm/segment_format.hpp"
#include "shm/segment.hpp"
#include "shm/elf_symbols.hpp"
#include "shm/process_memory.hpp"
#include "tests/attach/attach_layouts.h"
#include "tests/attach_test_process.hpp"
#include "proc/process_facts.hpp"

using namespace perfdm::shm;
using attach_test::child_process;

namespace {

const elf_symbol* find(const elf_executable& exe, const std::string& name) {
  for (const auto& s : exe.symbols)
    if (s.name == name) return &s;
  return nullptr;
}

std::string elf_error_of(const std::string& path) {
  try {
    read_elf_symbols(path, "perfdm_");
  } catch (const elf_error& e) {
    return e.what();
  }
  return "(no error)";
}

// The addresses the target prints on its first line: "ready <demo> <ticks>".
std::pair<std::uint64_t, std::uint64_t> ready_addresses(child_process& target) {
  const auto line = target.read_line();
  REQUIRE(line);
  REQUIRE(line->rfind("ready ", 0) == 0);
  std::uint64_t demo = 0, ticks = 0;
  REQUIRE(std::sscanf(line->c_str(), "ready %lx %lx", &demo, &ticks) == 2);
  return {demo, ticks};
}

std::string hex16(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016lx", v);
  return buf;
}

// The pid of a process that has exited and been reaped.
int gone_pid() {
  child_process c({"/bin/true"});
  c.wait();
  return c.pid();
}

}  // namespace

TEST_CASE("elf symbols: a PIE target's handles, descriptors and load address", "[attach][elf]") {
  const auto exe = read_elf_symbols(PERFDM_ATTACH_TARGET_PIE, "perfdm_");
  CHECK(exe.position_independent);
  CHECK(exe.lowest_load_address == 0);
  CHECK(exe.symbol_table == ".symtab");
  for (const auto& s : exe.symbols) CHECK(s.name.rfind("perfdm_", 0) == 0);

  const auto* handle = find(exe, "perfdm_handle_demo");
  REQUIRE(handle);
  CHECK(handle->size == 8);
  CHECK(handle->value != 0);
  CHECK_FALSE(handle->data);  // zero-initialised: .bss, no bytes in the file

  const auto* layout = find(exe, "perfdm_layout_demo");
  REQUIRE(layout);
  REQUIRE(layout->data);
  CHECK(*layout->data == std::string(ATTACH_DEMO_LAYOUT, sizeof(ATTACH_DEMO_LAYOUT)));

  const auto* hash = find(exe, "perfdm_layout_hash_ticks");
  REQUIRE(hash);
  REQUIRE(hash->data);
  std::uint64_t value = 0;
  std::memcpy(&value, hash->data->data(), 8);
  CHECK(value == 0x0c93d1a7e45b2f86u);

  // Only the prefix asked for.
  const auto main_only = read_elf_symbols(PERFDM_ATTACH_TARGET_PIE, "main");
  REQUIRE(main_only.symbols.size() == 1);
  CHECK(main_only.symbols[0].name == "main");
}

TEST_CASE("elf symbols: a fixed-address target", "[attach][elf]") {
  const auto exe = read_elf_symbols(PERFDM_ATTACH_TARGET_NOPIE, "perfdm_");
  CHECK_FALSE(exe.position_independent);
  CHECK(exe.lowest_load_address > 0);
  const auto* handle = find(exe, "perfdm_handle_ticks");
  REQUIRE(handle);
  CHECK(handle->value > exe.lowest_load_address);
}

TEST_CASE("elf symbols: bad files are refused with clear messages", "[attach][elf]") {
  CHECK_THAT(elf_error_of("/nonexistent/program"),
             Catch::Contains("/nonexistent/program") && Catch::Contains("cannot open"));
  CHECK_THAT(elf_error_of("/tmp"), Catch::Contains("not a regular file"));
  CHECK_THAT(elf_error_of(PERFDM_SOURCE_DIR "/README.md"), Catch::Contains("not an ELF file"));
  CHECK_THAT(elf_error_of(PERFDM_ATTACH_NO_SYMTAB), Catch::Contains("no symbol table"));
  // A stripped system program still has .dynsym, just none of our symbols.
  const auto sleep = read_elf_symbols("/bin/sleep", "perfdm_");
  CHECK(sleep.symbol_table == ".dynsym");
  CHECK(sleep.symbols.empty());
}

TEST_CASE("frame symbols: handle and layout pairs of an executable", "[attach][elf]") {
  for (const char* path : {PERFDM_ATTACH_TARGET_PIE, PERFDM_ATTACH_TARGET_NOPIE}) {
    const auto frames = find_frame_symbols(path);
    REQUIRE(frames.size() == 2);
    CHECK(frames[0].struct_name == "demo");
    CHECK(frames[0].descriptor == ATTACH_DEMO_LAYOUT);
    CHECK(frames[1].struct_name == "ticks");
    CHECK(frames[1].descriptor == ATTACH_TICKS_LAYOUT);
    CHECK(frames[0].handle_address != frames[1].handle_address);
  }
  try {
    find_frame_symbols("/bin/sleep");
    FAIL("no error for /bin/sleep");
  } catch (const attach_error& e) {
    CHECK(e.code == attach_errc::no_symbol);
    CHECK_THAT(e.what(), Catch::Contains("/bin/sleep") && Catch::Contains("perfdm_handle_"));
  }
  try {
    find_frame_symbols(PERFDM_SOURCE_DIR "/README.md");
    FAIL("no error for a text file");
  } catch (const attach_error& e) {
    CHECK(e.code == attach_errc::no_symbol);
    CHECK_THAT(e.what(), Catch::Contains("not an ELF file"));
  }
}

TEST_CASE("segment names: perfdm.<pid>.<16 hex digits>", "[attach]") {
  CHECK(format::segment_name(1234, 0xabcULL) == "perfdm.1234.0000000000000abc");
  CHECK(format::segment_name(7, 0xfedcba9876543210ULL) == "perfdm.7.fedcba9876543210");
  for (int i = 0; i < 100; ++i) CHECK(segment::new_handle() != 0);
  CHECK(segment::new_handle() != segment::new_handle());
}

TEST_CASE("process memory: the load base gives the handles' run-time addresses",
          "[attach][process]") {
  for (const char* path : {PERFDM_ATTACH_TARGET_PIE, PERFDM_ATTACH_TARGET_NOPIE}) {
    INFO(path);
    child_process target({path});
    const auto [demo_at, ticks_at] = ready_addresses(target);
    const int pid = target.pid();
    CHECK(perfdm::proc::process_alive(pid));
    char resolved[PATH_MAX];
    REQUIRE(::realpath(path, resolved));
    CHECK(process_executable(pid) == resolved);
    const std::string base_name =
        std::string(resolved).substr(std::string(resolved).rfind('/') + 1);
    CHECK(process_name(pid) == base_name.substr(0, 15));  // comm holds 15 characters

    const auto exe = read_elf_symbols(process_executable_file(pid), "perfdm_handle_");
    const std::uint64_t base = executable_load_base(pid);
    if (!exe.position_independent) CHECK(base == exe.lowest_load_address);
    CHECK(runtime_address(find(exe, "perfdm_handle_demo")->value, exe.position_independent,
                          exe.lowest_load_address, base) == demo_at);
    CHECK(runtime_address(find(exe, "perfdm_handle_ticks")->value, exe.position_independent,
                          exe.lowest_load_address, base) == ticks_at);
  }
}

TEST_CASE("process memory: write and read a handle, both ways", "[attach][process]") {
  child_process target({PERFDM_ATTACH_TARGET_PIE});
  const auto [demo_at, ticks_at] = ready_addresses(target);
  const int pid = target.pid();

  const std::uint64_t first = 0x1122334455667788ULL;
  write_memory(pid, demo_at, &first, sizeof first);
  CHECK(target.wait_for_line("demo " + hex16(first)));
  std::uint64_t back = 0;
  read_memory(pid, demo_at, &back, sizeof back);
  CHECK(back == first);

  const std::uint64_t second = 0x99aabbccddeeff01ULL;
  write_memory(pid, ticks_at, &second, sizeof second, memory_method::proc_mem);
  CHECK(target.wait_for_line("ticks " + hex16(second)));
  back = 0;
  read_memory(pid, ticks_at, &back, sizeof back, memory_method::proc_mem);
  CHECK(back == second);
}

TEST_CASE("process memory: errors name the pid and the action", "[attach][process]") {
  const int gone = gone_pid();
  CHECK_FALSE(perfdm::proc::process_alive(gone));
  CHECK_FALSE(perfdm::proc::process_alive(0));
  CHECK_FALSE(perfdm::proc::process_alive(-5));
  std::uint64_t v = 0;
  for (auto method : {memory_method::automatic, memory_method::proc_mem}) {
    try {
      read_memory(gone, 0x1000, &v, sizeof v, method);
      FAIL("no error");
    } catch (const attach_error& e) {
      CHECK(e.code == attach_errc::no_such_process);
      CHECK_THAT(e.what(),
                 Catch::Contains(std::to_string(gone)) && Catch::Contains("read 8 bytes"));
    }
  }
  try {
    process_executable(gone);
    FAIL("no error");
  } catch (const attach_error& e) {
    CHECK(e.code == attach_errc::no_such_process);
  }

  child_process target({PERFDM_ATTACH_TARGET_PIE});
  ready_addresses(target);
  for (auto method : {memory_method::automatic, memory_method::proc_mem}) {
    try {  // page 0 is never mapped
      write_memory(target.pid(), 8, &v, sizeof v, method);
      FAIL("no error");
    } catch (const attach_error& e) {
      CHECK(e.code == attach_errc::memory_access);
      CHECK_THAT(e.what(), Catch::Contains("write 8 bytes at 0x8"));
    }
  }
}
