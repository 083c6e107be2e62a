// `perfdm search --daemons N` (cli/search_command.cpp): without --publish it is
// refused with a clear error; with fewer daemons than N joining within --daemons-wait it says
// how many joined and searches the processes of those.
#include <catch2/catch.hpp>
#include <string>

#include "tests/remote_test_support.hpp"

using namespace perfdm;
using remote_test::eventually;
using remote_test::process;

TEST_CASE("search: --daemons without --publish is refused with a clear error, status 1",
          "[search][cli]") {
  process search({PERFDM_BINARY, "search", "--daemons", "2"}, "", "search_no_publish");
  CHECK(search.wait() == 1);
  INFO(search.err());
  CHECK(search.err() == "perfdm search: --daemons needs --publish [HOST:]PORT, where the daemons "
                        "join\n");
  CHECK(search.out().empty());
}

TEST_CASE("search: when fewer daemons than --daemons join it says how many and searches those",
          "[relay][remote][pc-cluster]") {
  process job({std::string(PERFDM_PC_WORKLOADS) + "/pc_cpu", "30"}, "", "search_one_job");
  process search({PERFDM_BINARY, "search", "--publish", "127.0.0.1:0", "--daemons", "2",
                  "--daemons-wait", "4", "--seconds", "1", "--json"},
                 "", "search_one_daemon");
  int port = 0;
  REQUIRE(eventually([&] { return (port = remote_test::published_port(search)) != 0; }));
  const std::string upstream = "127.0.0.1:" + std::to_string(port);
  process daemon({PERFDM_BINARY, "daemon", "--upstream", upstream, "--name", "node-s1", "--pid",
                  std::to_string(job.pid())},
                 "", "search_daemon");
  CHECK(search.wait() == 0);
  INFO(search.err());
  INFO(search.out());
  CHECK(search.err().find("perfdm search: 1 of 2 daemons joined (searching with those)\n") !=
        std::string::npos);
  // The one daemon's process was searched, named by its /Machine resource.
  CHECK(search.out().find("{\"pid\":" + std::to_string(job.pid()) + ",\"machine\":\"/Machine/") !=
        std::string::npos);
}
