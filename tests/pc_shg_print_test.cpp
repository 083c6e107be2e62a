// perfdm search's output: the SHG as a tree (true nodes first) and as the JSON
// object, and the status line of each conclusion.
#include <catch2/catch.hpp>
#include <optional>

#include "cli/shg_print.hpp"

using namespace perfdm;

namespace {

shg_node_info node(std::uint64_t id, std::optional<std::uint64_t> parent, std::string code,
                   std::string state, double value, double since = -1) {
  shg_node_info n;
  n.id = id;
  n.has_parent = parent.has_value();
  n.parent = parent.value_or(0);
  n.hypothesis = "CPUbound";
  n.code = std::move(code);
  n.machine = "/Machine";
  n.syncobject = "/SyncObject";
  n.state = std::move(state);
  n.value = value;
  n.threshold = 0.3;
  n.since = since;
  return n;
}

}  // namespace

TEST_CASE("pc print: the SHG tree lists true nodes first, with value, threshold and since",
          "[pc]") {
  std::vector<shg_node_info> g{node(0, std::nullopt, "/Code", "true", 0.93, 4.2),
                               node(1, 0, "/Code/app/idle", "false", 0.01),
                               node(2, 0, "/Code/app/hot", "true", 0.9, 7.5),
                               node(3, 0, "/Code/app/new", "never", 0)};
  CHECK(
      shg_tree(g) ==
      "CPUbound </Code, /Machine, /SyncObject>  true  value 0.93 threshold 0.3  true since 4.2 s\n"
      "  CPUbound </Code/app/hot, /Machine, /SyncObject>  true  value 0.9 threshold 0.3  true "
      "since 7.5 s\n"
      "  CPUbound </Code/app/idle, /Machine, /SyncObject>  false  value 0.01 threshold 0.3\n"
      "  CPUbound </Code/app/new, /Machine, /SyncObject>  never\n");
}

TEST_CASE("pc print: --json prints the issue's object", "[pc]") {
  std::vector<shg_node_info> g{node(0, std::nullopt, "/Code", "true", 0.93, 4.2),
                               node(1, 0, "/Code/a\"b", "unknown", 0.1)};
  CHECK(report_dump(shg_json(g)) ==
        "{\"nodes\":[{\"id\":0,\"parent\":null,\"hypothesis\":\"CPUbound\",\"focus\":{\"code\":"
        "\"/Code\",\"machine\":\"/Machine\",\"syncobject\":\"/SyncObject\",\"file\":\"/File\"},"
        "\"state\":\"true\","
        "\"value\":0.93,\"threshold\":0.3,\"since\":4.2,\"score\":null,\"threads\":null,"
        "\"blamed\":0,\"idle\":0},{\"id\":1,\"parent\":0,\"hypothesis\":"
        "\"CPUbound\",\"focus\":{\"code\":\"/Code/a\\\"b\",\"machine\":\"/Machine\","
        "\"syncobject\":\"/SyncObject\",\"file\":\"/"
        "File\"},\"state\":\"unknown\",\"value\":0.1,\"threshold\":0.3,"
        "\"since\":null,\"score\":null,\"threads\":null,\"blamed\":0,\"idle\":0}]}");
}

TEST_CASE("pc print: one status line per conclusion, as Paradyn's PC wrote them", "[pc]") {
  auto n = node(2, 0, "/Code/app/hot", "true", 0.9, 7.5);
  CHECK(shg_conclusion_line("unknown", n) ==
        "CPUbound tested true for </Code/app/hot, /Machine, /SyncObject>");
  CHECK(shg_conclusion_line("true", n).empty());
  n.state = "false";
  CHECK(shg_conclusion_line("true", n) ==
        "CPUbound became false for </Code/app/hot, /Machine, /SyncObject>");
  n.state = "unknown";
  CHECK(shg_conclusion_line("never", n).empty());
}

TEST_CASE("pc print: a focus names its /File part only when it is a file", "[pc]") {
  auto n = node(2, 0, "/Code", "true", 0.5, 1);
  n.hypothesis = "ExcessiveIOBlockingTime";
  CHECK(shg_focus_text(n) == "</Code, /Machine, /SyncObject>");
  n.file = "/File";
  CHECK(shg_focus_text(n) == "</Code, /Machine, /SyncObject>");
  n.file = "/File/var/db/test.db";
  CHECK(shg_focus_text(n) == "</Code, /Machine, /SyncObject, /File/var/db/test.db>");
  CHECK(report_dump(shg_json({n})).find("\"file\":\"/File/var/db/test.db\"}") != std::string::npos);
}
