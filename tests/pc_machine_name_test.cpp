// The one reader of /Machine names (pc/machine_name.hpp): host, process and thread with their
// ids, what a name does not reach left empty, and nothing read from a name outside /Machine.
#include <catch2/catch.hpp>

#include "pc/machine_name.hpp"

using namespace perfdm::pc;

TEST_CASE("pc machine name: host, process and thread with their ids", "[pc]") {
  machine_name m;
  REQUIRE(parse_machine_name("/Machine/node3/cluster_job{4242}/worker{4243}", m));
  CHECK(m.depth == 3);
  CHECK(m.host == "node3");
  CHECK(m.process == "cluster_job{4242}");
  CHECK(m.pid == 4242);
  CHECK(m.thread == "worker{4243}");
  CHECK(m.tid == 4243);

  REQUIRE(parse_machine_name("/Machine/node3/cluster_job{1}", m));
  CHECK(m.depth == 2);
  CHECK(m.pid == 1);
  CHECK(m.thread.empty());
  CHECK(m.tid == 0);

  REQUIRE(parse_machine_name("/Machine/node3", m));
  CHECK(m.depth == 1);
  CHECK(m.host == "node3");
  CHECK(m.process.empty());
  CHECK(m.pid == 0);

  REQUIRE(parse_machine_name("/Machine", m));
  CHECK(m.depth == 0);
  CHECK(m.host.empty());
}

TEST_CASE("pc machine name: not /Machine, or ids that are not numbers", "[pc]") {
  machine_name m;
  m.pid = 7;
  CHECK_FALSE(parse_machine_name("/Code/job/relax", m));
  CHECK_FALSE(parse_machine_name("/Machinery/h", m));
  CHECK_FALSE(parse_machine_name("Machine/h/p{1}", m));
  CHECK_FALSE(parse_machine_name("", m));
  CHECK_FALSE(parse_machine_name("/", m));
  CHECK(m.pid == 7);  // untouched where nothing was read

  REQUIRE(parse_machine_name("/Machine/h/job", m));  // a process named without its id
  CHECK(m.depth == 2);
  CHECK(m.process == "job");
  CHECK(m.pid == 0);
  CHECK(id_in_braces("job{12x}") == 0);
  CHECK(id_in_braces("job{}") == 0);
  CHECK(id_in_braces("job{-3}") == 0);
  CHECK(id_in_braces("job{99999999999}") == 0);  // beyond an int
  CHECK(id_in_braces("a{b}{42}") == 42);         // the last braces
  CHECK(id_in_braces("") == 0);
}

TEST_CASE("pc machine name: components, labels and process keys", "[pc]") {
  CHECK(resource_components("/Machine/h/p{1}/t{2}") ==
        std::vector<std::string>{"Machine", "h", "p{1}", "t{2}"});
  CHECK(resource_components("/SyncObject/Mutex/0x10") ==
        std::vector<std::string>{"SyncObject", "Mutex", "0x10"});
  CHECK(resource_components("/").empty());
  CHECK(resource_components("").empty());
  CHECK(with_host("node4", "job{22927}", true) == "node4:job{22927}");
  CHECK(with_host("node4", "job{22927}", false) == "job{22927}");
  CHECK(with_host("", "job{22927}", true) == "job{22927}");
  // The same pid on two hosts: two processes.
  process_key a{"hA", 1}, b{"hB", 1};
  CHECK(a != b);
  CHECK((a < b) != (b < a));
  CHECK(a == process_key{"hA", 1});
}
