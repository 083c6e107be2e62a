// The call-path store (profile/call_path_store.hpp): counts per path, thread and state; phases
// and time ranges; the bounds and what they count.
#include <catch2/catch.hpp>

#include "profile/call_path_store.hpp"

using namespace perfdm::profile;

namespace {

using frames = std::vector<std::string>;

const flame_path* find(const flame_result& r, const frames& f, sample_state s) {
  for (auto& p : r.paths)
    if (p.frames == f && p.state == s) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("profile store: paths are counted per state and thread", "[profile]") {
  call_path_store st;
  for (int i = 0; i < 10; ++i) {
    double t = i * 0.1;
    st.add(t, 1, "main", sample_state::running, {"main (a)", "hot (a)"});
    st.add(t, 2, "worker", sample_state::lock, {"start (a)", "take (a)", "pthread_mutex_lock (libc)"});
    if (i % 2 == 0) st.add(t, 1, "main", sample_state::running, {"main (a)", "cold (a)"});
  }
  flame_query cpu;
  auto r = st.flamegraph(cpu);
  REQUIRE(r.phase_known);
  CHECK(r.total == 25);
  CHECK(r.samples == 15);
  REQUIRE(r.paths.size() == 2);
  CHECK(r.paths[0].frames == frames{"main (a)", "hot (a)"});  // the widest first
  CHECK(r.paths[0].count == 10);
  CHECK(find(r, {"main (a)", "cold (a)"}, sample_state::running)->count == 5);

  flame_query off;
  off.states = *view_mask("offcpu");
  auto o = st.flamegraph(off);
  REQUIRE(o.paths.size() == 1);
  CHECK(o.paths[0].state == sample_state::lock);
  CHECK(o.paths[0].frames.back() == "pthread_mutex_lock (libc)");
  CHECK(st.flamegraph(flame_query{*view_mask("io"), 0, {}, {}, {}, 20000}).samples == 0);

  flame_query one = off;
  one.tid = 1;
  auto t1 = st.flamegraph(one);
  CHECK(t1.samples == 0);
  CHECK(t1.total == 15);
  one.tid = 99;  // a thread never seen
  CHECK(st.flamegraph(one).total == 0);
}

TEST_CASE("profile store: views name the states", "[profile]") {
  CHECK(*view_mask("cpu") == 1);
  CHECK(*view_mask("offcpu") == 0x1e);
  CHECK(*view_mask("all") == 0x1f);
  CHECK(*view_mask("sleep") == 1 << 3);
  CHECK(!view_mask("running"));
  CHECK(!view_mask("CPU"));
  CHECK(*parse_state("io") == sample_state::io);
}

TEST_CASE("profile store: phases and time ranges", "[profile]") {
  call_path_store st;
  // Phase 0: 0-4 s hot; phase 1: from 4 s, the first two seconds lock, then hot again.
  for (int i = 0; i < 80; ++i) {
    double t = i * 0.1;
    if (i == 40) st.start_phase(1, 4.0);
    bool lock = t >= 4.0 && t < 6.0;
    st.add(t, 7, "w", lock ? sample_state::lock : sample_state::running,
           lock ? frames{"main (a)", "pthread_mutex_lock (libc)"} : frames{"main (a)", "hot (a)"});
  }
  CHECK(st.current_phase() == 1);
  flame_query all;
  all.states = *view_mask("all");
  all.phase = 0;
  auto p0 = st.flamegraph(all);
  CHECK(p0.total == 40);
  CHECK(p0.from == 0);
  CHECK(p0.to == 4);
  CHECK(find(p0, {"main (a)", "hot (a)"}, sample_state::running)->count == 40);
  all.phase.reset();  // the current phase
  auto p1 = st.flamegraph(all);
  CHECK(p1.phase == 1);
  CHECK(p1.total == 40);
  CHECK(find(p1, {"main (a)", "pthread_mutex_lock (libc)"}, sample_state::lock)->count == 20);

  // Ranges inside phase 1: [4, 6) all lock, [6, 8) all running; whole slices only.
  all.from = 4.0;
  all.to = 6.0;
  auto a = st.flamegraph(all);
  CHECK(a.samples == 20);
  CHECK(a.paths.size() == 1);
  CHECK(a.paths[0].state == sample_state::lock);
  CHECK(a.from == 4);
  CHECK(a.to == 6);
  all.from = 6.0;
  all.to = 9.0;
  auto b = st.flamegraph(all);
  CHECK(b.samples == 20);
  CHECK(b.paths[0].state == sample_state::running);
  all.phase = 0;  // a range of phase 0 inside phase 1's times holds nothing
  CHECK(st.flamegraph(all).samples == 0);
  all.phase = 5;  // no such phase
  CHECK(!st.flamegraph(all).phase_known);

  auto exported = st.export_phases();
  REQUIRE(exported.size() == 2);
  CHECK(exported[0].phase == 0);
  CHECK(exported[1].end == -1);
}

TEST_CASE("profile store: the timeline merges a thread's samples of one state", "[profile]") {
  call_path_store st;
  for (int i = 0; i < 30; ++i) {
    double t = i * 0.1;
    auto s = i < 10 ? sample_state::running : i < 20 ? sample_state::sleep : sample_state::running;
    st.add(t, 3, "t3", s, {"main (a)", i < 10 ? "hot (a)" : i < 20 ? "nanosleep (libc)" : "warm (a)"});
    st.add(t, 4, "t4", sample_state::io, {"main (a)", "read (libc)"});
  }
  auto tl = st.timeline({}, {});
  REQUIRE(tl.size() == 2);
  CHECK(tl[0].tid == 3);
  REQUIRE(tl[0].runs.size() == 3);
  CHECK(tl[0].runs[0].state == sample_state::running);
  CHECK(tl[0].runs[0].function == "hot (a)");
  CHECK(tl[0].runs[0].to == Approx(1.0));  // until the sample that found it asleep
  CHECK(tl[0].runs[1].state == sample_state::sleep);
  CHECK(tl[0].runs[1].function == "nanosleep (libc)");
  CHECK(tl[0].runs[1].samples == 10);
  CHECK(tl[1].runs.size() == 1);
  CHECK(tl[1].runs[0].from == 0);
  CHECK(tl[1].runs[0].to == Approx(2.9));
  auto late = st.timeline(2.5, {});
  REQUIRE(late.size() == 2);
  CHECK(late[0].runs.size() == 1);
  CHECK(late[0].runs[0].function == "warm (a)");
}

TEST_CASE("profile store: the node bound merges new leaves into their parent", "[profile]") {
  store_limits lim;
  lim.max_nodes = 4;  // the root and three frames
  call_path_store st(lim);
  st.add(0, 1, "t", sample_state::running, {"a", "b", "c"});
  st.add(0, 1, "t", sample_state::running, {"a", "b", "d"});  // no room for d: counts at a;b
  st.add(0, 1, "t", sample_state::running, {"x"});            // no room: counts at the root
  CHECK(st.nodes() == 4);
  CHECK(st.counters().truncated_stacks == 2);
  auto r = st.flamegraph({});
  CHECK(r.samples == 3);
  CHECK(find(r, {"a", "b"}, sample_state::running)->count == 1);
  CHECK(find(r, {}, sample_state::running)->count == 1);
}

TEST_CASE("profile store: a reply over max_paths merges the rarest into their parents",
          "[profile]") {
  call_path_store st;
  for (int i = 0; i < 50; ++i)
    for (int k = 0; k <= i % 5; ++k)
      st.add(0, 1, "t", sample_state::running, {"main", "f" + std::to_string(i)});
  flame_query q;
  auto full = st.flamegraph(q);
  CHECK(full.paths.size() == 50);
  q.max_paths = 10;
  auto r = st.flamegraph(q);
  CHECK(r.paths.size() <= 10);
  CHECK(r.truncated >= 40);
  CHECK(r.samples == full.samples);  // nothing lost: merged into `main`
  CHECK(find(r, {"main"}, sample_state::running) != nullptr);
}

TEST_CASE("profile store: the window and the byte bound fold slices, then drop phases",
          "[profile]") {
  store_limits lim;
  lim.window_seconds = 5;
  call_path_store st(lim);
  for (int i = 0; i < 100; ++i) st.add(i * 0.1, 1, "t", sample_state::running, {"main", "hot"});
  // Slices older than 5 s folded into phase 0: the phase still counts them, ranges do not.
  auto range = st.sliced_range();
  CHECK(range.first >= 4.0);
  CHECK(st.flamegraph({}).samples == 100);
  flame_query q;
  q.from = 0;
  q.to = 3;
  CHECK(st.flamegraph(q).samples == 0);
  CHECK(st.counters().folded_slices == 0);  // the window is not the byte bound
  auto tl = st.timeline({}, {});
  REQUIRE(tl.size() == 1);
  CHECK(tl[0].runs.size() == 1);  // one run, still open: kept

  store_limits tight;
  tight.max_bytes = 60 * 1024;
  call_path_store small(tight);
  for (int p = 0; p < 20; ++p) {
    small.start_phase(static_cast<std::uint64_t>(p + 1), p);
    for (int i = 0; i < 100; ++i)
      small.add(p + i * 0.01, 1, "t", sample_state::running,
                {"main", "f" + std::to_string(i)});
  }
  CHECK(small.bytes() <= tight.max_bytes);
  CHECK(small.counters().dropped_phases > 0);
  CHECK(small.counters().dropped_samples > 0);
  std::uint64_t kept = 0;
  for (auto& ph : small.export_phases())
    for (auto& p : ph.paths) kept += p.count;
  CHECK(kept + small.counters().dropped_samples == 2000);
  flame_query cur;
  CHECK(small.flamegraph(cur).samples == 100);  // the current phase is never dropped
}

TEST_CASE("profile store: folded path text", "[profile]") {
  CHECK(folded_path({"a", "b c", "d"}) == "a;b c;d");
  CHECK(folded_path({}) == "");
}
