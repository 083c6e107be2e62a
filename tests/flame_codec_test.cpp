// FLAMEGRAPH and TIMELINE in the command language (docs/FLAME.md §1): their arguments parsed,
// their replies printed from a call-path store, and the folded and pprof writers
// (profile/profile_files.hpp) on known paths.
#include <catch2/catch.hpp>

#include <caf/make_message.hpp>
#include <sstream>

#include "messages/dm_error.hpp"
#include "messages/flame_messages.hpp"
#include "messages/xml_codec.hpp"
#include "profile.pb.h"
#include "profile/profile_files.hpp"
#include "profile/flame_reports.hpp"

using namespace perfdm;

TEST_CASE("FLAMEGRAPH's argument: every attribute, defaults, and refusals", "[flame]") {
  auto p = parse_flame_argument(
      42, "FLAMEGRAPH",
      "<FLAMEGRAPH VIEW='offcpu' THREAD='43' PHASE='2' FROM='1.5' TO='3'/>");
  REQUIRE(!p.error);
  REQUIRE(p.request.match_elements<flamegraph_request>());
  auto r = p.request.get_as<flamegraph_request>(0);
  CHECK(r.pid == 42);
  CHECK(r.view == "offcpu");
  CHECK(r.tid == 43);
  CHECK(r.has_phase);
  CHECK(r.phase == 2);
  CHECK(r.has_from);
  CHECK(r.from == 1.5);
  CHECK(r.to == 3);

  auto d = parse_flame_argument(42, "FLAMEGRAPH", "");
  REQUIRE(d.request.match_elements<flamegraph_request>());
  CHECK(d.request.get_as<flamegraph_request>(0).view == "cpu");
  CHECK(!d.request.get_as<flamegraph_request>(0).has_phase);
  auto cur = parse_flame_argument(42, "FLAMEGRAPH", "<FLAMEGRAPH PHASE='current'/>");
  CHECK(!cur.request.get_as<flamegraph_request>(0).has_phase);

  for (auto* bad : {"<FLAMEGRAPH VIEW='hot'/>", "<FLAMEGRAPH THREAD='x'/>",
                    "<FLAMEGRAPH PHASE='-1'/>", "<FLAMEGRAPH FROM='2' TO='1'/>",
                    "<FLAMEGRAPH COLOR='red'/>", "<TIMELINE/>", "<FLAMEGRAPH"}) {
    INFO(bad);
    auto e = parse_flame_argument(42, "FLAMEGRAPH", bad);
    CHECK(e.error);
    CHECK(e.request.empty());
  }
  auto t = parse_flame_argument(7, "TIMELINE", "<TIMELINE FROM='1'/>");
  REQUIRE(t.request.match_elements<timeline_request>());
  CHECK(t.request.get_as<timeline_request>(0).has_from);
  CHECK(!t.request.get_as<timeline_request>(0).has_to);
}

TEST_CASE("FLAMEGRAPH and TIMELINE replies from a store", "[flame]") {
  profile::call_path_store st;
  for (int i = 0; i < 4; ++i) {
    st.add(i * 0.25, 5, "main", profile::sample_state::running,
           {"main (app)", "std::vector<int>::push_back (app)"});
    st.add(i * 0.25, 6, "w'1", profile::sample_state::lock, {"main (app)", "lock (libc.so.6)"});
  }
  flamegraph_request q;
  q.pid = 5;
  auto r = flamegraph_of(st, q);
  REQUIRE(std::holds_alternative<flamegraph_report>(r));
  auto xml = print_reply_body(caf::make_message(std::get<flamegraph_report>(r)));
  CHECK(xml ==
        "<FLAMEGRAPH PID='5' VIEW='cpu' PHASE='0' FROM='0' TO='0.75' SAMPLES='4' TOTAL='8'>"
        "<PATH COUNT='4' STATE='running'>main (app);std::vector&lt;int&gt;::push_back (app)"
        "</PATH></FLAMEGRAPH>");
  q.has_phase = true;
  q.phase = 3;
  CHECK(std::holds_alternative<std::string>(flamegraph_of(st, q)));

  auto tl = print_reply_body(caf::make_message(timeline_of(st, timeline_request{5})));
  CHECK(tl ==
        "<TIMELINE PID='5' FROM='0' TO='0.75'>"
        "<THREAD TID='5' NAME='main'><RUN FROM='0' TO='0.75' STATE='running' "
        "FUNCTION='std::vector&lt;int&gt;::push_back (app)'/></THREAD>"
        "<THREAD TID='6' NAME='w&apos;1'><RUN FROM='0' TO='0.75' STATE='lock' "
        "FUNCTION='lock (libc.so.6)'/></THREAD></TIMELINE>");
}

TEST_CASE("folded stacks and pprof from counted paths", "[flame]") {
  std::vector<profile::counted_stack> stacks{
      {"main (app);hot (app)", "running", 0, 9, 7},
      {"main (app);hot (app)", "running", 1, 9, 3},
      {"main (app);cold (app)", "running", 0, 9, 2},
      {"", "running", 0, 9, 1},
  };
  std::ostringstream folded;
  CHECK(profile::write_folded(stacks, folded) == 13);
  CHECK(folded.str() == "[unknown] 1\nmain (app);cold (app) 2\nmain (app);hot (app) 10\n");

  perftools::profiles::Profile p;
  REQUIRE(p.ParseFromString(profile::pprof_bytes(stacks)));
  REQUIRE(p.sample_size() == 4);
  std::int64_t sum = 0;
  for (auto& s : p.sample()) sum += s.value(0);
  CHECK(sum == 13);
  CHECK(p.string_table(0).empty());
  // The first sample, leaf first: hot, then main, each with its function's name.
  auto& s0 = p.sample(0);
  REQUIRE(s0.location_id_size() == 2);
  auto name_of = [&](std::uint64_t location) {
    auto& loc = p.location(static_cast<int>(location - 1));
    auto& fn = p.function(static_cast<int>(loc.line(0).function_id() - 1));
    return p.string_table(static_cast<int>(fn.name()));
  };
  CHECK(name_of(s0.location_id(0)) == "hot");
  CHECK(name_of(s0.location_id(1)) == "main");
  CHECK(p.string_table(static_cast<int>(p.mapping(0).filename())) == "app");
  CHECK(p.string_table(static_cast<int>(p.sample_type(0).type())) == "samples");
  CHECK(profile::split_frame("f (libc.so.6)") == std::pair<std::string, std::string>{"f", "libc.so.6"});
  CHECK(profile::split_frame("?") == std::pair<std::string, std::string>{"?", ""});
}
