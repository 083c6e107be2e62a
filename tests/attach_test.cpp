// Attach to and detach from a running program (shm/attach; docs/FRAMES.md §5): a real
// process (the C target of tests/attach/, PIE and fixed-address) sees its handles change;
// the segments are real Boost.Interprocess shared-memory objects in /dev/shm.
#include "shm/attach.hpp"
#include "shm/segment_format.hpp"
#include "shm/segment.hpp"

#include <algorithm>
#include <boost/interprocess/shared_memory_object.hpp>
#include <catch2/catch.hpp>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "shm/process_memory.hpp"
#include "tests/attach/attach_layouts.h"
#include "tests/attach_test_process.hpp"
#include "proc/process_facts.hpp"
#include "tests/skip_test.hpp"

using namespace perfdm::shm;
using attach_test::child_process;
namespace bip = boost::interprocess;

namespace {

std::string hex16(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016lx", static_cast<unsigned long>(v));
  return buf;
}

struct target_program {
  child_process process;
  std::uint64_t demo_at = 0, ticks_at = 0;  // where the program says its handles are

  explicit target_program(const char* path) : process({path}) {
    const auto line = process.read_line();
    REQUIRE(line);
    REQUIRE(std::sscanf(line->c_str(), "ready %lx %lx", &demo_at, &ticks_at) == 2);
  }
  int pid() const { return process.pid(); }
  std::uint64_t handle(std::uint64_t at) const {
    std::uint64_t v = 0;
    read_memory(process.pid(), at, &v, sizeof v);
    return v;
  }
};

// The segment callback of the tests: a real shared-memory object, as perfdm makes one.
std::string create_real_segment(int pid, const std::string&, const std::string& descriptor,
                                std::uint64_t handle, std::uint32_t) {
  const std::string name = format::segment_name(pid, handle);
  bip::shared_memory_object shm(bip::create_only, name.c_str(), bip::read_write);
  shm.truncate(static_cast<bip::offset_t>(4096 + descriptor.size()));
  return name;
}

attach_options real_segments() {
  attach_options o;
  o.create_segment = create_real_segment;
  return o;
}

attach_errc attach_error_code(int pid, const attach_options& o, std::string* message = nullptr) {
  try {
    attach(pid, o);
  } catch (const attach_error& e) {
    if (message) *message = e.what();
    return e.code;
  }
  FAIL("attach did not fail");
  return attach_errc::not_attached;
}

attach_errc detach_error_code(int pid, std::string* message = nullptr) {
  try {
    detach(pid);
  } catch (const attach_error& e) {
    if (message) *message = e.what();
    return e.code;
  }
  FAIL("detach did not fail");
  return attach_errc::not_attached;
}

int gone_pid() {
  child_process c({"/bin/true"});
  c.wait();
  return c.pid();
}

const attached_frame& frame_of(const attachment& a, const std::string& struct_name) {
  for (const auto& f : a.frames)
    if (f.struct_name == struct_name) return f;
  FAIL("no frame " << struct_name);
  throw;
}

}  // namespace

TEST_CASE("attach: the program sees its handles, detach sets them back to 0", "[attach]") {
  for (const char* path : {PERFDM_ATTACH_TARGET_PIE, PERFDM_ATTACH_TARGET_NOPIE}) {
    INFO(path);
    target_program target(path);
    const int pid = target.pid();

    const attachment a = attach(pid, real_segments());
    CHECK(a.pid == pid);
    char resolved[PATH_MAX];
    REQUIRE(::realpath(path, resolved));
    CHECK(a.executable == resolved);
    const std::string file_name = a.executable.substr(a.executable.rfind('/') + 1);
    CHECK(a.name == file_name.substr(0, 15));  // the kernel keeps 15 characters of the name
    REQUIRE(a.frames.size() == 2);
    const auto& demo = frame_of(a, "demo");
    const auto& ticks = frame_of(a, "ticks");
    CHECK(demo.descriptor == ATTACH_DEMO_LAYOUT);
    CHECK(ticks.descriptor == ATTACH_TICKS_LAYOUT);
    CHECK(demo.handle != 0);
    CHECK(ticks.handle != 0);
    CHECK(demo.handle != ticks.handle);
    CHECK(demo.segment == format::segment_name(pid, demo.handle));

    CHECK(target.process.wait_for_line("demo " + hex16(demo.handle)));
    CHECK(target.handle(target.ticks_at) == ticks.handle);
    std::vector<std::string> expected_segments{demo.segment, ticks.segment};
    std::sort(expected_segments.begin(), expected_segments.end());
    CHECK(process_segments(pid) == expected_segments);

    detach(pid);
    CHECK(target.process.wait_for_line("demo " + hex16(0)));
    CHECK(target.handle(target.demo_at) == 0);
    CHECK(target.handle(target.ticks_at) == 0);
    CHECK(process_segments(pid).empty());

    // Nothing left to undo.
    CHECK(detach_error_code(pid) == attach_errc::not_attached);
  }
}

TEST_CASE("attach: only the frame types asked for, checked against their layouts", "[attach]") {
  target_program target(PERFDM_ATTACH_TARGET_PIE);
  const int pid = target.pid();

  SECTION("a matching schema attaches just that frame type") {
    attach_options o = real_segments();
    o.expected["demo"] = ATTACH_DEMO_LAYOUT;
    const auto a = attach(pid, o);
    REQUIRE(a.frames.size() == 1);
    CHECK(a.frames[0].struct_name == "demo");
    CHECK(target.process.wait_for_line("demo " + hex16(a.frames[0].handle)));
    CHECK(target.handle(target.ticks_at) == 0);
    CHECK(process_segments(pid) == std::vector<std::string>{a.frames[0].segment});
    detach(pid);
    CHECK(process_segments(pid).empty());
  }
  SECTION("a different layout is a schema mismatch, and nothing is attached") {
    attach_options o = real_segments();
    o.expected["demo"] = ATTACH_DEMO_LAYOUT;
    o.expected["ticks"] = "perfdm-layout 1\nstruct ticks size 16 align 8\n";
    std::string message;
    CHECK(attach_error_code(pid, o, &message) == attach_errc::schema_mismatch);
    CHECK_THAT(message, Catch::Contains(std::to_string(pid)) && Catch::Contains("ticks") &&
                            Catch::Contains("differs from the schema"));
    CHECK(target.handle(target.demo_at) == 0);
    CHECK(target.handle(target.ticks_at) == 0);
    CHECK(process_segments(pid).empty());
  }
  SECTION("a frame type the executable lacks is a missing symbol") {
    attach_options o = real_segments();
    o.expected["other"] = ATTACH_DEMO_LAYOUT;
    std::string message;
    CHECK(attach_error_code(pid, o, &message) == attach_errc::no_symbol);
    CHECK_THAT(message, Catch::Contains("perfdm_handle_other"));
    CHECK(process_segments(pid).empty());
  }
}

TEST_CASE("attach: a process already attached is refused unless forced", "[attach]") {
  target_program target(PERFDM_ATTACH_TARGET_PIE);
  const int pid = target.pid();
  const auto first = attach(pid, real_segments());

  std::string message;
  CHECK(attach_error_code(pid, real_segments(), &message) == attach_errc::already_attached);
  CHECK_THAT(message, Catch::Contains("already attached") &&
                          Catch::Contains(frame_of(first, "demo").segment));
  CHECK(target.handle(target.demo_at) == frame_of(first, "demo").handle);
  CHECK(process_segments(pid).size() == 2);

  attach_options force = real_segments();
  force.force = true;
  const auto second = attach(pid, force);
  const auto& demo = frame_of(second, "demo");
  CHECK(demo.handle != frame_of(first, "demo").handle);
  CHECK(target.process.wait_for_line("demo " + hex16(demo.handle)));
  std::vector<std::string> now{demo.segment, frame_of(second, "ticks").segment};
  std::sort(now.begin(), now.end());
  CHECK(process_segments(pid) == now);  // the first attach's segments are gone
  detach(pid);
  CHECK(process_segments(pid).empty());
}

TEST_CASE("attach: a failure part-way rolls everything back", "[attach]") {
  target_program target(PERFDM_ATTACH_TARGET_NOPIE);
  const int pid = target.pid();

  SECTION("the second segment cannot be made") {
    attach_options o;
    int calls = 0;
    o.create_segment = [&](int p, const std::string& s, const std::string& d, std::uint64_t h,
                           std::uint32_t c) {
      if (++calls == 2) throw std::runtime_error("out of shared memory");
      return create_real_segment(p, s, d, h, c);
    };
    std::string message;
    CHECK(attach_error_code(pid, o, &message) == attach_errc::segment_failed);
    CHECK_THAT(message, Catch::Contains("out of shared memory"));
    CHECK(calls == 2);
  }
  SECTION("the segment is created under another name than the program will open") {
    attach_options o;
    o.create_segment = [&](int p, const std::string& s, const std::string& d, std::uint64_t h,
                           std::uint32_t c) {
      create_real_segment(p, s, d, h, c);
      return std::string("somewhere-else");
    };
    CHECK(attach_error_code(pid, o) == attach_errc::segment_failed);
  }
  SECTION("no way to create segments") {
    CHECK(attach_error_code(pid, attach_options{}) == attach_errc::segment_failed);
  }
  CHECK(target.handle(target.demo_at) == 0);
  CHECK(target.handle(target.ticks_at) == 0);
  CHECK(process_segments(pid).empty());
}

TEST_CASE("attach: clear errors for a missing process and a program without symbols", "[attach]") {
  const int gone = gone_pid();
  std::string message;
  CHECK(attach_error_code(gone, real_segments(), &message) == attach_errc::no_such_process);
  CHECK_THAT(message, Catch::Contains(std::to_string(gone)) && Catch::Contains("no such process"));
  CHECK(detach_error_code(gone) == attach_errc::no_such_process);
  CHECK(attach_error_code(0, real_segments()) == attach_errc::no_such_process);

  child_process sleeper({"/bin/sleep", "60"});
  CHECK(attach_error_code(sleeper.pid(), real_segments(), &message) == attach_errc::no_symbol);
  CHECK_THAT(message, Catch::Contains("sleep") && Catch::Contains("perfdm_handle_"));
  CHECK(process_segments(sleeper.pid()).empty());
  CHECK(detach_error_code(sleeper.pid()) == attach_errc::no_symbol);
}

TEST_CASE("attach: another user may not attach to root's process", "[attach]") {
  if (::geteuid() != 0)
    return skip_test("not root: the permission test needs to drop from root to uid 65534");
  target_program target(PERFDM_ATTACH_TARGET_PIE);
  child_process probe({PERFDM_ATTACH_PROBE, "65534", std::to_string(target.pid())});
  const auto verdict = probe.read_line();
  const auto message = probe.read_line();
  REQUIRE(verdict);
  CHECK(*verdict == "error not permitted");
  REQUIRE(message);
  CHECK_THAT(*message, Catch::Contains(std::to_string(target.pid())));
  CHECK(WEXITSTATUS(probe.wait()) == 0);
  CHECK(target.handle(target.demo_at) == 0);
  CHECK(process_segments(target.pid()).empty());
}

TEST_CASE("attach: 100 attach/detach cycles leave no segment behind", "[attach]") {
  target_program target(PERFDM_ATTACH_TARGET_PIE);
  const int pid = target.pid();
  for (int i = 0; i < 100; ++i) {
    const auto a = attach(pid, real_segments());
    REQUIRE(process_segments(pid).size() == 2);
    REQUIRE(target.handle(target.demo_at) == frame_of(a, "demo").handle);
    detach(pid);
    REQUIRE(process_segments(pid).empty());
    REQUIRE(target.handle(target.demo_at) == 0);
  }
  // The program kept running throughout and still follows its handle.
  const auto a = attach(pid, real_segments());
  CHECK(target.process.wait_for_line("demo " + hex16(frame_of(a, "demo").handle)));
  detach(pid);
  CHECK(target.process.wait_for_line("demo " + hex16(0)));
  CHECK(process_segments(pid).empty());
}

TEST_CASE("attach: a process that exits while attached leaves no segment", "[attach]") {
  target_program target(PERFDM_ATTACH_TARGET_PIE);
  const int pid = target.pid();
  const auto a = attach(pid, real_segments());
  CHECK(target.process.wait_for_line("demo " + hex16(frame_of(a, "demo").handle)));
  target.process.close_stdin();  // the program exits at end of input
  const int status = target.process.wait();
  CHECK(WIFEXITED(status));
  CHECK_FALSE(perfdm::proc::process_alive(pid));
  // The segments may already be gone: any attach, in this or a concurrent test process,
  // removes the segments of processes that no longer exist. So only the end state counts.
  remove_stale_segments();
  CHECK(process_segments(pid).empty());
  CHECK_FALSE(bip::shared_memory_object::remove(frame_of(a, "demo").segment.c_str()));
}

TEST_CASE("attach: stale segments are those of processes that no longer exist", "[attach]") {
  const int gone = gone_pid();
  const std::string dead = format::segment_name(gone, segment::new_handle());
  const std::string live = format::segment_name(static_cast<int>(::getpid()), segment::new_handle());
  const std::string other = "perfdm." + std::to_string(gone) + ".not-a-handle";
  for (const auto& name : {dead, live, other})
    bip::shared_memory_object(bip::create_only, name.c_str(), bip::read_write);

  remove_stale_segments();
  CHECK(process_segments(gone).empty());
  CHECK(process_segments(static_cast<int>(::getpid())) == std::vector<std::string>{live});
  CHECK_FALSE(bip::shared_memory_object::remove(dead.c_str()));  // already gone
  // Not removed: the process lives, or the name is not one of perfdm's segments.
  CHECK(bip::shared_memory_object::remove(live.c_str()));
  CHECK(bip::shared_memory_object::remove(other.c_str()));
}
