// The agent's reply bodies (messages/agent_*.hpp, messages/dypatch_replies.hpp): each prints
// the exact bytes the agent sends, and parsing what it printed gives the struct back.
#include <catch2/catch.hpp>

#include "messages/agent_classes_reply.hpp"
#include "messages/agent_classmodel_reply.hpp"
#include "messages/agent_list_reply.hpp"
#include "messages/agent_report_sections.hpp"
#include "messages/agent_settings_replies.hpp"
#include "messages/agent_threads_reply.hpp"
#include "messages/agent_whoru_reply.hpp"
#include "messages/dypatch_replies.hpp"

using namespace perfdm;

TEST_CASE("dyper agent replies: SET's and GET's SETTINGS print and read back",
          "[dyper][agent_replies]") {
  // The reply to the first SET of DyPer's controller: the names a native process knows are
  // applied, the others listed as ignored.
  const agent_settings_reply set{
      {{"MONITOR", "true"}, {"REPORTTIME", "10000"}, {"CHECKTIME", "100"}},
      {"CONTENTIONCHECK", "AGENTS"}};
  const auto text = print_agent_settings_reply(set);
  CHECK(text ==
        "<SETTINGS><VAR NAME='MONITOR' VALUE='true'/><VAR NAME='REPORTTIME' VALUE='10000'/>"
        "<VAR NAME='CHECKTIME' VALUE='100'/></SETTINGS><IGNORED><VAR NAME='CONTENTIONCHECK'/>"
        "<VAR NAME='AGENTS'/></IGNORED>");
  auto back = parse_agent_settings_reply(text);
  REQUIRE(back);
  CHECK(*back == set);

  const agent_settings_reply get{{{"CHECKTIME", "25"}}, {}};
  CHECK(print_agent_settings_reply(get) ==
        "<SETTINGS><VAR NAME='CHECKTIME' VALUE='25'/></SETTINGS>");
  CHECK(parse_agent_settings_reply(print_agent_settings_reply(get)) == get);
  CHECK(print_agent_settings_reply({}) == "<SETTINGS></SETTINGS>");
  CHECK(parse_agent_settings_reply("<SETTINGS></SETTINGS>") == agent_settings_reply{});

  const agent_variable one{"THREAD_DEFAULT", "a'b<c"};
  CHECK(print_agent_variable(one) == "<VAR NAME='THREAD_DEFAULT' VALUE='a&apos;b&lt;c'/>");
  CHECK(parse_agent_variable(print_agent_variable(one)) == one);

  CHECK(parse_agent_settings_reply("<SETTINGS><VAR NAME='X'/></SETTINGS>") == std::nullopt);
  CHECK(parse_agent_settings_reply("<SETTINGS></SETTINGS><IGNORED></IGNORED>") == std::nullopt);
  CHECK(parse_agent_settings_reply("<SETTINGS><DETAIL ITEM='x'/></SETTINGS>") == std::nullopt);
  CHECK(parse_agent_settings_reply("<SETTINGS>") == std::nullopt);
  CHECK(parse_agent_variable("<VAR NAME='X'/>") == std::nullopt);
}

TEST_CASE("dyper agent replies: SETDETAIL's SETTINGS print and read back",
          "[dyper][agent_replies]") {
  const agent_details_reply x{{{"work", "", true}, {"latency_us", "CPU", false}}};
  const auto text = print_agent_details_reply(x);
  CHECK(text ==
        "<SETTINGS><DETAIL ITEM='work' VALUE='true' AGENT=''/>"
        "<DETAIL ITEM='latency_us' VALUE='false' AGENT='CPU'/></SETTINGS>");
  CHECK(parse_agent_details_reply(text) == x);
  CHECK(parse_agent_details_reply("<SETTINGS><DETAIL ITEM='w' VALUE='maybe' AGENT=''/></SETTINGS>") ==
        std::nullopt);
  CHECK(parse_agent_details_reply("<SETTINGS><VAR NAME='w' VALUE='1'/></SETTINGS>") == std::nullopt);
}

TEST_CASE("dyper agent replies: CLASSES print and read back", "[dyper][agent_replies]") {
  const agent_classes_reply x{{{true, "libstdc++.so", "SYSTEM"}, {false, "my_read", "IO"}}};
  const auto text = print_agent_classes_reply(x);
  CHECK(text ==
        "<CLASSES><PACKAGE NAME='libstdc++.so' TYPE='SYSTEM'/>"
        "<CLASS NAME='my_read' TYPE='IO'/></CLASSES>");
  CHECK(parse_agent_classes_reply(text) == x);
  CHECK(print_agent_classes_reply({}) == "<CLASSES></CLASSES>");
  CHECK(parse_agent_classes_reply("<CLASSES></CLASSES>") == agent_classes_reply{});
  CHECK(parse_agent_classes_reply("<CLASSES><METHOD NAME='a' TYPE='IO'/></CLASSES>") ==
        std::nullopt);
  CHECK(parse_agent_classes_reply("<CLASSES><CLASS NAME='a'/></CLASSES>") == std::nullopt);
}

TEST_CASE("dyper agent replies: USETHREAD's THREADS print and read back",
          "[dyper][agent_replies]") {
  const agent_threads_reply x{true, {{"4242", true}, {"4243", false}}};
  const auto text = print_agent_threads_reply(x);
  CHECK(text ==
        "<THREADS DEFAULT='true'><THREAD ID='4242' USE='true'/>"
        "<THREAD ID='4243' USE='false'/></THREADS>");
  CHECK(parse_agent_threads_reply(text) == x);
  const agent_threads_reply none{false, {}};
  CHECK(print_agent_threads_reply(none) == "<THREADS DEFAULT='false'></THREADS>");
  CHECK(parse_agent_threads_reply(print_agent_threads_reply(none)) == none);
  CHECK(parse_agent_threads_reply("<THREADS><THREAD ID='1' USE='true'/></THREADS>") ==
        std::nullopt);
}

TEST_CASE("dyper agent replies: DYPATCH's MODEL, DIRECTORY and PATCH MODEL= print and read back",
          "[dyper][agent_replies]") {
  const dypatch_model_reply model{"demo", {"tick", "tock"}};
  CHECK(print_dypatch_model_reply(model) ==
        "<MODEL NAME='demo'><FRAME NAME='tick'/><FRAME NAME='tock'/></MODEL>");
  CHECK(parse_dypatch_model_reply(print_dypatch_model_reply(model)) == model);

  const dypatch_directory_reply dir{"/tmp/gen dir"};
  CHECK(print_dypatch_directory_reply(dir) == "<DIRECTORY NAME='/tmp/gen dir'/>");
  CHECK(parse_dypatch_directory_reply(print_dypatch_directory_reply(dir)) == dir);

  const dypatch_patch_reply patch{"demo", {"/tmp/g/demo_frames.h", "/tmp/g/demo_frames.c"}};
  CHECK(print_dypatch_patch_reply(patch) ==
        "<PATCH MODEL='demo'><FILE NAME='/tmp/g/demo_frames.h'/>"
        "<FILE NAME='/tmp/g/demo_frames.c'/></PATCH>");
  CHECK(parse_dypatch_patch_reply(print_dypatch_patch_reply(patch)) == patch);

  // INSTRUMENT's <PATCH TIME/> is not PATCH MODEL='…'s reply.
  CHECK(parse_dypatch_patch_reply("<PATCH TIME='12'/>") == std::nullopt);
  CHECK(parse_dypatch_model_reply("<MODEL NAME='m'><FILE NAME='x'/></MODEL>") == std::nullopt);
  CHECK(parse_dypatch_directory_reply("<DIRECTORY/>") == std::nullopt);
}

TEST_CASE("dyper agent replies: REPORT's METRICS and FRAMES print and read back",
          "[dyper][agent_replies]") {
  const agent_report_sections x{
      {{3, "work.latency_us", "/Process/n42/work", true}},
      {{"work", 1200, 0, 1, 7}}};
  const auto text = print_agent_report_sections(x);
  CHECK(text ==
        "<METRICS><MI ID='3' METRIC='work.latency_us' FOCUS='/Process/n42/work' "
        "COLLECTING='true'/></METRICS><FRAMES><FRAMETYPE NAME='work' FRAMES='1200' LOST='0' "
        "TORN='1' LATE='7'/></FRAMES>");
  CHECK(parse_agent_report_sections(text) == x);
  CHECK(print_agent_report_sections({}) == "<METRICS></METRICS><FRAMES></FRAMES>");
  CHECK(parse_agent_report_sections("<METRICS></METRICS><FRAMES></FRAMES>") ==
        agent_report_sections{});
  CHECK(parse_agent_report_sections("<METRICS></METRICS>") == std::nullopt);
  CHECK(parse_agent_report_sections(
            "<METRICS></METRICS><FRAMES><FRAMETYPE NAME='w' FRAMES='-1' LOST='0' TORN='0' "
            "LATE='0'/></FRAMES>") == std::nullopt);
}

TEST_CASE("dyper agent replies: WHORU's process facts print and read back",
          "[dyper][agent_replies]") {
  const agent_whoru_reply x{"/usr/bin/py thon",
                            {"python3", "-c", "print('x')"},
                            {{"TERM", "xterm"}, {"LINES", "a\nb&c"}},
                            1795459678190123456};
  const auto text = print_agent_whoru_reply(x);
  CHECK(text ==
        "<EXECUTABLE>/usr/bin/py thon</EXECUTABLE><START>python3</START><ARG>-c</ARG>"
        "<ARG>print(&apos;x&apos;)</ARG><ENV KEY='TERM'>xterm</ENV>"
        "<ENV KEY='LINES'>a&#10;b&amp;c</ENV>"
        "<TIME MILLIS='1795459678190' NANO='1795459678190123456'/>");
  CHECK(parse_agent_whoru_reply(text) == x);
  const agent_whoru_reply bare{"/bin/x", {}, {}, 5'000'000};
  CHECK(print_agent_whoru_reply(bare) ==
        "<EXECUTABLE>/bin/x</EXECUTABLE><TIME MILLIS='5' NANO='5000000'/>");
  CHECK(parse_agent_whoru_reply(print_agent_whoru_reply(bare)) == bare);
  CHECK(parse_agent_whoru_reply(
            "<EXECUTABLE>/bin/x</EXECUTABLE><TIME MILLIS='6' NANO='5000000'/>") == std::nullopt);
  CHECK(parse_agent_whoru_reply("<EXECUTABLE>/bin/x</EXECUTABLE><ARG>a</ARG>"
                                "<TIME MILLIS='5' NANO='5000000'/>") == std::nullopt);
}

TEST_CASE("dyper agent replies: CLASSMODEL and AGENTS print and read back",
          "[dyper][agent_replies]") {
  const agent_classmodel_reply model{
      "/usr/bin/work",
      {{"/usr/bin/work", 0x55d1c0a00000, "NORMAL"},
       {"/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f3a12000000, "SYSTEM"},
       {"/zero", 0, "NORMAL"}}};
  const auto text = print_agent_classmodel_reply(model);
  CHECK(text ==
        "<CLASSMODEL><EXECUTABLE NAME='/usr/bin/work'/>"
        "<OBJECT NAME='/usr/bin/work' BASE='0x55d1c0a00000' TYPE='NORMAL'/>"
        "<OBJECT NAME='/usr/lib/x86_64-linux-gnu/libc.so.6' BASE='0x7f3a12000000' TYPE='SYSTEM'/>"
        "<OBJECT NAME='/zero' BASE='0x0' TYPE='NORMAL'/></CLASSMODEL>");
  CHECK(parse_agent_classmodel_reply(text) == model);
  CHECK(parse_agent_classmodel_reply("<CLASSMODEL><EXECUTABLE NAME='/x'/><OBJECT NAME='/y' "
                                     "BASE='12' TYPE='IO'/></CLASSMODEL>") == std::nullopt);

  const agent_list_reply agents{{"frames"}};
  CHECK(print_agent_list_reply(agents) == "<AGENTS><AGENT CLASS='frames'/></AGENTS>");
  CHECK(parse_agent_list_reply(print_agent_list_reply(agents)) == agents);
  CHECK(parse_agent_list_reply("<AGENTS><AGENT NAME='frames'/></AGENTS>") == std::nullopt);
}
