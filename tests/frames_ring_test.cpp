// The frames ring in one process: the generated writer (tests/frames/test.frames) writes
// into a real segment, frame_reader reads it (docs/FRAMES.md §3, §4).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "shm/frame_clock.hpp"
#include "shm/frame_reader.hpp"
#include "shm/schema.hpp"
#include "shm/segment.hpp"
#include "shm/segment_format.hpp"
#include "shm/shm_error.hpp"
#include "test_frames.h"
#include "tests/frames_test_values.hpp"

using namespace perfdm::shm;

namespace {

const std::vector<frame_layout>& test_layouts() {
  static const auto l = parse_schema_file(PERFDM_SOURCE_DIR "/tests/frames/test.frames");
  return l;
}
const frame_layout& sample_layout() {
  return test_layouts()[0];
}
const frame_layout& pair_layout() {
  return test_layouts()[1];
}

// A segment for this process, removed at the end of the test.
struct own_segment {
  explicit own_segment(segment_options o = {}, const frame_layout& l = sample_layout())
      : s(segment::create(::getpid(), segment::new_handle(), l, o)) {}
  ~own_segment() { s.remove(); }
  segment s;
};

// What perfdm does from outside: writes the handle; the next write acts on it.
void observe(std::uint64_t handle) {
  perfdm_handle_sample = handle;
}

// Handle 0 and one write: the writer releases its mapping (end-observe).
void stop_observing() {
  perfdm_handle_sample = 0;
  perfdm_sample_frame f{};
  perfdm_write_sample(&f);
}

void write_frames(int thread, std::uint64_t first, std::uint64_t n) {
  for (std::uint64_t i = first; i < first + n; ++i) {
    perfdm_sample_frame f;
    frames_test::fill(f, thread, i);
    perfdm_write_sample(&f);
  }
}

using frames_test::as_sample;

// A read-write mapping of a segment, to play writer or vandal by hand.
struct raw_mapping {
  explicit raw_mapping(const std::string& name) {
    const int fd = ::shm_open(("/" + name).c_str(), O_RDWR, 0);
    REQUIRE(fd >= 0);
    size = static_cast<std::size_t>(::lseek(fd, 0, SEEK_END));
    base =
        static_cast<std::byte*>(::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    ::close(fd);
    REQUIRE(base != MAP_FAILED);
  }
  ~raw_mapping() { ::munmap(base, size); }
  format::header& header() { return *reinterpret_cast<format::header*>(base); }
  std::byte* lane(std::uint32_t i) {
    const auto& h = header();
    return base + h.header_size + i * format::lane_stride(h.frame_size, h.lane_capacity);
  }
  std::uint64_t& word(std::byte* p) { return *reinterpret_cast<std::uint64_t*>(p); }
  std::byte* base = nullptr;
  std::size_t size = 0;
};

}  // namespace

TEST_CASE("frames ring: one thread's frames arrive once, in order, with their values and times") {
  own_segment seg;
  frame_reader reader(seg.s.name());
  CHECK(reader.writer_state() == format::writer_waiting);
  CHECK(reader.layout().struct_name == "sample");
  const auto before = monotonic_now_ns();
  observe(seg.s.handle());
  write_frames(0, 0, 1000);
  const auto after = monotonic_now_ns();
  CHECK(reader.writer_state() == format::writer_attached);
  CHECK(reader.writer_pid() == ::getpid());
  std::uint64_t expected_seq = 1;
  std::int64_t last_ns = 0;
  bool all_consistent = true, in_order = true, in_time = true;
  const auto n = reader.poll([&](const std::byte* p, std::int64_t ns) {
    const auto f = as_sample(p);
    all_consistent = all_consistent && frames_test::consistent(f) && f.thread == 0;
    in_order = in_order && f.perfdm_seq == expected_seq && f.index == expected_seq - 1;
    ++expected_seq;
    // The TSC calibration is good to well within a millisecond here.
    in_time = in_time && ns >= before - 2'000'000 && ns <= after + 2'000'000 && ns >= last_ns;
    last_ns = ns;
  });
  CHECK(n == 1000);
  CHECK(all_consistent);
  CHECK(in_order);
  CHECK(in_time);
  CHECK(reader.poll([](const std::byte*, std::int64_t) {}) == 0);  // never twice
  const auto c = reader.counters();
  CHECK(c.read == 1000);
  CHECK(c.lost == 0);
  CHECK(reader.committed() == 1000);
  stop_observing();
  CHECK(reader.writer_state() == format::writer_released);
  reader.writer_gone();
  CHECK(reader.counters().torn == 0);
}

TEST_CASE("frames ring: several threads write the same frame type, each frame read once") {
  // A thread that ends gives its lane to the next: one lane may carry every frame.
  own_segment seg({8, 1u << 16});
  frame_reader reader(seg.s.name());
  observe(seg.s.handle());
  constexpr int threads = 6;
  constexpr std::uint64_t per_thread = 4000;
  frames_test::frame_check check;
  auto take = [&](const std::byte* p, std::int64_t t) { check(p, t); };
  std::atomic<bool> done{false};
  std::thread concurrent_reader([&] {
    while (!done) reader.poll(take);
  });
  std::vector<std::thread> ts;
  // No thread waits for the one that opens the segment: frames written meanwhile are
  // dropped and counted (transition_drops).
  for (int t = 0; t < threads; ++t) ts.emplace_back(write_frames, t, 0, per_thread);
  for (auto& t : ts) t.join();
  done = true;
  concurrent_reader.join();
  reader.poll(take);
  const auto c = reader.counters();
  CHECK(c.read + c.transition_drops == threads * per_thread);
  CHECK(c.lost == 0);  // 2^16 slots per lane: nothing can be overwritten
  CHECK(check.duplicates == 0);
  CHECK(check.consistent);
  CHECK(check.total() == c.read);
  CHECK(c.no_lane_drops == 0);

  // Once the segment is open, every thread's every frame arrives.
  check.seen.clear();
  const auto before = reader.counters();
  ts.clear();
  for (int t = 0; t < threads; ++t) ts.emplace_back(write_frames, t, per_thread, per_thread);
  for (auto& t : ts) t.join();
  reader.poll(take);
  const auto after = reader.counters();
  CHECK(after.read - before.read == threads * per_thread);
  CHECK(after.transition_drops == before.transition_drops);
  for (int t = 0; t < threads; ++t) CHECK(check.seen[t].size() == per_thread);
  CHECK(check.duplicates == 0);
  CHECK(check.consistent);
  stop_observing();
}

TEST_CASE("frames ring: threads beyond the lanes drop their frames and count them") {
  own_segment seg({3, 1024});
  frame_reader reader(seg.s.name());
  observe(seg.s.handle());
  write_frames(100, 0, 1);  // the main thread opens the segment and keeps a lane
  constexpr int threads = 5;
  // Every thread writes its first frame before any thread ends: only two get a lane.
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      write_frames(t, 0, 1);
      std::unique_lock<std::mutex> lock(m);
      if (++arrived == threads) cv.notify_all();
      cv.wait(lock, [&] { return arrived == threads; });
      lock.unlock();
      write_frames(t, 1, 99);
    });
  }
  for (auto& t : ts) t.join();
  reader.poll([](const std::byte*, std::int64_t) {});
  const auto c = reader.counters();
  CHECK(c.read + c.no_lane_drops == 1 + threads * 100);
  CHECK(c.no_lane_drops >= 3);  // at least the first frames of three threads
  CHECK(c.lost == 0);
  CHECK(c.transition_drops == 0);
  // The lanes were given back when their threads ended: a new thread gets one.
  std::thread late(write_frames, 9, 0, 10);
  late.join();
  CHECK(reader.poll([](const std::byte*, std::int64_t) {}) == 10);
  stop_observing();
}

TEST_CASE("frames ring: a slow reader counts overwritten frames exactly") {
  own_segment seg({1, 64});
  frame_reader reader(seg.s.name());
  observe(seg.s.handle());
  write_frames(0, 0, 1000);
  std::vector<std::uint64_t> indices;
  auto take = [&](const std::byte* p, std::int64_t) { indices.push_back(as_sample(p).index); };
  CHECK(reader.poll(take) == 64);
  auto c = reader.counters();
  CHECK(c.read == 64);
  CHECK(c.lost == 936);
  REQUIRE(indices.size() == 64);
  CHECK(indices.front() == 936);
  CHECK(indices.back() == 999);
  write_frames(0, 1000, 10);
  indices.clear();
  CHECK(reader.poll(take) == 10);
  CHECK(indices.front() == 1000);
  c = reader.counters();
  CHECK(c.read + c.lost == 1010);
  CHECK(c.read + c.lost == reader.committed());
  stop_observing();
}

TEST_CASE("frames ring: end-observe, then start-observe again with a new handle") {
  own_segment first;
  frame_reader r1(first.s.name());
  observe(first.s.handle());
  write_frames(0, 0, 10);
  stop_observing();
  CHECK(r1.writer_state() == format::writer_released);
  CHECK(r1.poll([](const std::byte*, std::int64_t) {}) == 10);
  write_frames(0, 10, 5);  // not observing: nothing goes anywhere
  CHECK(r1.poll([](const std::byte*, std::int64_t) {}) == 0);
  r1.writer_gone();
  CHECK(r1.counters().torn == 0);

  own_segment second;
  frame_reader r2(second.s.name());
  observe(second.s.handle());
  write_frames(0, 100, 5);
  std::vector<std::uint64_t> seqs;
  CHECK(r2.poll([&](const std::byte* p, std::int64_t) {
    seqs.push_back(as_sample(p).perfdm_seq);
  }) == 5);
  CHECK(seqs == std::vector<std::uint64_t>{1, 2, 3, 4, 5});

  // A new handle without 0 in between: release the old mapping, map the new one.
  own_segment third;
  frame_reader r3(third.s.name());
  observe(third.s.handle());
  write_frames(0, 200, 3);
  CHECK(r2.writer_state() == format::writer_released);
  CHECK(r3.writer_state() == format::writer_attached);
  CHECK(r3.poll([](const std::byte*, std::int64_t) {}) == 3);
  CHECK(r2.poll([](const std::byte*, std::int64_t) {}) == 0);
  stop_observing();
}

TEST_CASE("frames ring: a segment made for another layout is refused by the writer") {
  own_segment wrong({4, 64}, pair_layout());
  frame_reader reader(wrong.s.name());
  observe(wrong.s.handle());
  write_frames(0, 0, 20);
  CHECK(reader.writer_state() == format::writer_mismatch);
  CHECK(reader.writer_pid() == ::getpid());
  CHECK(reader.poll([](const std::byte*, std::int64_t) {}) == 0);
  CHECK(reader.committed() == 0);
  // The other frame type of the same program is unaffected.
  own_segment pairs({4, 64}, pair_layout());
  frame_reader pair_reader(pairs.s.name());
  perfdm_handle_pair = pairs.s.handle();
  perfdm_pair_frame p{};
  PERFDM_pair_SET_first(&p, 7);
  perfdm_write_pair(&p);
  CHECK(pair_reader.poll([](const std::byte*, std::int64_t) {}) == 1);
  perfdm_handle_pair = 0;
  perfdm_write_pair(&p);
  CHECK(pair_reader.writer_state() == format::writer_released);
  stop_observing();
}

TEST_CASE("frames ring: the reader counts a frame begun but never committed as torn, once") {
  own_segment seg({2, 8});
  frame_reader reader(seg.s.name());
  raw_mapping raw(seg.s.name());
  const std::uint32_t fs = sample_layout().size;
  // Lane 0: three frames committed, the fourth begun (WRITING mark) when the writer died.
  std::byte* l0 = raw.lane(0) + format::lane_slots;
  for (std::uint64_t i = 0; i < 3; ++i) raw.word(l0 + i * fs) = i + 1;
  raw.word(l0 + 3 * fs) = format::writing_bit | 4;
  raw.word(raw.lane(0) + format::lane_head) = 3;
  // Lane 1: the second frame written but its head never published.
  std::byte* l1 = raw.lane(1) + format::lane_slots;
  raw.word(l1) = 1;
  raw.word(l1 + fs) = 2;
  raw.word(raw.lane(1) + format::lane_head) = 1;
  CHECK(reader.poll([](const std::byte*, std::int64_t) {}) == 4);
  reader.writer_gone();
  reader.writer_gone();
  const auto c = reader.counters();
  CHECK(c.read == 4);
  CHECK(c.lost == 0);
  CHECK(c.torn == 2);
}

TEST_CASE("frames ring: a corrupt segment header is refused with a reason, never read") {
  struct corruption {
    const char* what;
    void (*apply)(raw_mapping&);
    const char* reason;
  };
  const corruption cases[] = {
      {"magic", [](raw_mapping& r) { r.header().magic[0] = 'X'; }, "wrong magic"},
      {"version", [](raw_mapping& r) { r.header().version = 9; }, "format version 9"},
      {"header size 0", [](raw_mapping& r) { r.header().header_size = 0; }, "header size 0"},
      {"header size odd", [](raw_mapping& r) { r.header().header_size = 4097; }, "header size"},
      {"header size huge", [](raw_mapping& r) { r.header().header_size = 1u << 31; },
       "header size"},
      {"descriptor size", [](raw_mapping& r) { r.header().descriptor_size = 1u << 30; },
       "descriptor size"},
      {"descriptor NUL", [](raw_mapping& r) { r.header().descriptor_size -= 1; }, "NUL"},
      {"descriptor text",
       [](raw_mapping& r) { reinterpret_cast<char*>(r.base)[format::descriptor_offset + 3] = '#'; },
       "layout descriptor:1:1"},
      {"hash", [](raw_mapping& r) { r.header().layout_hash ^= 1; }, "hash"},
      {"frame size", [](raw_mapping& r) { r.header().frame_size = 8; }, "frame size 8"},
      {"lanes 0", [](raw_mapping& r) { r.header().lane_count = 0; }, "lane count 0"},
      {"lanes many", [](raw_mapping& r) { r.header().lane_count = 100000; }, "lane count"},
      {"lanes past the end", [](raw_mapping& r) { r.header().lane_count = 1000; }, "lanes need"},
      {"capacity", [](raw_mapping& r) { r.header().lane_capacity = 3; }, "power of two"},
      {"capacity past the end", [](raw_mapping& r) { r.header().lane_capacity = 1u << 20; },
       "lanes need"},
      {"clock", [](raw_mapping& r) { r.header().clock = 7; }, "unknown clock"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    own_segment seg({2, 16});
    {
      raw_mapping raw(seg.s.name());
      c.apply(raw);
    }
    try {
      frame_reader reader(seg.s.name());
      FAIL("accepted");
    } catch (const shm_error& e) {
      CHECK_THAT(e.what(),
                 Catch::Contains("not a valid frames segment") && Catch::Contains(c.reason));
    }
  }
  // The writer refuses it too, and says so in the header when it can.
  own_segment seg({2, 16});
  {
    raw_mapping raw(seg.s.name());
    raw.header().lane_count = 1000;
  }
  observe(seg.s.handle());
  write_frames(0, 0, 3);
  {
    raw_mapping raw(seg.s.name());
    CHECK(raw.header().writer_state == format::writer_mismatch);
  }
  stop_observing();
  CHECK_THROWS_WITH(frame_reader("perfdm.0.none"), Catch::Contains("no such segment"));
  CHECK_THROWS_AS(frame_reader("../etc/passwd"), shm_error);
  CHECK_THROWS_AS(frame_reader(""), shm_error);
}

TEST_CASE("frames segment: creation checks its arguments and refuses an existing name") {
  CHECK_THROWS_AS(segment::create(::getpid(), 0, sample_layout()), shm_error);
  CHECK_THROWS_AS(segment::create(::getpid(), 5, sample_layout(), {0, 16}), shm_error);
  CHECK_THROWS_AS(segment::create(::getpid(), 5, sample_layout(), {4, 12}), shm_error);
  CHECK_THROWS_WITH(segment::create(::getpid(), 5, sample_layout(), {1024, 1u << 24}),
                    Catch::Contains("more than"));
  own_segment seg;
  CHECK(seg.s.name() == format::segment_name(::getpid(), seg.s.handle()));
  CHECK_THROWS_WITH(segment::create(::getpid(), seg.s.handle(), sample_layout()),
                    Catch::Contains("cannot create the segment"));
  frame_reader first(seg.s.name());
  std::vector<frame_reader> readers;
  readers.push_back(std::move(first));  // readers move (an engine keeps one per segment)
  frame_reader reader = std::move(readers.back());
  readers.clear();
  CHECK(reader.lane_count() == 16);
  CHECK(reader.lane_capacity() == 4096);
  CHECK(reader.target_pid() == ::getpid());
}

TEST_CASE("frames ring: random damage to a segment header is refused or read safely") {
  std::mt19937 rng(7);
  int refused = 0, opened = 0;
  for (int round = 0; round < 150; ++round) {
    own_segment seg({2, 16});
    {
      raw_mapping raw(seg.s.name());
      // A few random bytes of the header or of the lanes' control words.
      const int damage = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < damage; ++i) {
        const std::size_t at = rng() % 2 == 0 ? rng() % 512 : format::page + rng() % 256;
        raw.base[at] = static_cast<std::byte>(rng());
      }
    }
    try {
      frame_reader reader(seg.s.name());
      ++opened;
      reader.poll([](const std::byte*, std::int64_t) {});
      reader.writer_gone();
      const auto c = reader.counters();
      CHECK(c.read <= 2 * 16);
    } catch (const shm_error& e) {
      ++refused;
      CHECK_THAT(e.what(), Catch::Contains("not a valid frames segment"));
    }
  }
  CHECK(refused > 0);
  CHECK(opened > 0);
}
