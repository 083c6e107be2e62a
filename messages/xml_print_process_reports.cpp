#include "messages/xml_print_process_reports.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "messages/xml_element.hpp"

namespace perfdm::xml {

namespace {

std::string escaped(std::string_view s) {
  return xml_escaped(s);
}

}  // namespace

std::string reply_body(const cpu_profile_report& x) {
  auto item = [](const profile_entry& i) {
    element e("ITEM");
    e.text("NAME", i.name).count("TOTAL", i.total).count("BASE", i.base);
    if (!i.file.empty()) e.text("FILE", i.file);
    if (!i.type.empty()) e.text("TYPE", i.type);
    return e.leaf();
  };
  element counters("COUNTERS");
  counters.count("PID", static_cast<std::uint64_t>(x.pid))
      .number("MONTIME", x.montime)
      .count("SAMPLES", x.samples)
      .count("ACTIVE", x.active)
      .number("LAST", x.last)
      .number("CHECKTIME", x.checktime)
      .number("COST", x.cost);
  if (x.ended) counters.text("ENDED", "true");
  return counters.wrap(element("TOTALS")
                .count("STACKS", x.stacks)
                .count("ACTIVE", x.active)
                .count("DETAILED", x.detailed)
                .leaf() +
            join(x.items, "", item));
}
// DyPer's SHOWSTACK: FUNCTION, FILE, LINE, MODULE (DyPer's CLASS/METHOD are Java's) and the
// pc in hexadecimal.
std::string reply_body(const stacks_report& x) {
  auto frame = [](const stack_entry& f) {
    char pc[24];
    std::snprintf(pc, sizeof pc, "0x%llx", static_cast<unsigned long long>(f.pc));
    return element("STACK")
        .text("FUNCTION", f.function)
        .text("FILE", f.file)
        .count("LINE", static_cast<std::uint64_t>(f.line > 0 ? f.line : 0))
        .text("MODULE", f.module)
        .text("PC", pc)
        .leaf();
  };
  auto thread = [&](const thread_entry& t) {
    return element("THREAD")
        .count("ID", static_cast<std::uint64_t>(t.tid))
        .text("NAME", t.name)
        .text("STATE", t.state)
        .wrap(join(t.stack, "", frame));
  };
  element threads("THREADS");
  threads.count("PID", static_cast<std::uint64_t>(x.pid)).number("TIME", x.time);
  if (x.ended) threads.text("ENDED", "true");
  return threads.wrap(join(x.threads, "", thread));
}
std::string reply_body(const callgraph_report& x) {
  element graph("CALLGRAPH");
  if (x.pid != 0) graph.count("PID", static_cast<std::uint64_t>(x.pid));
  graph.count("STACKS", x.stacks);
  if (x.ended) graph.text("ENDED", "true");
  auto entry = [](const callgraph_entry& e) {
    return element("ENTRY").text("NAME", e.name).count("SAMPLES", e.samples).leaf();
  };
  auto edge = [](const callgraph_edge& e) {
    return element("EDGE")
        .text("CALLER", e.caller)
        .text("CALLEE", e.callee)
        .count("SAMPLES", e.samples)
        .leaf();
  };
  return graph.wrap(join(x.entries, "", entry) + join(x.edges, "", edge));
}
// FLAMEGRAPH: one PATH per distinct (call path, state), its frames as the element's text.
std::string reply_body(const flamegraph_report& x) {
  element graph("FLAMEGRAPH");
  graph.count("PID", static_cast<std::uint64_t>(x.pid))
      .text("VIEW", x.view)
      .count("PHASE", x.phase)
      .number("FROM", x.from)
      .number("TO", x.to)
      .count("SAMPLES", x.samples)
      .count("TOTAL", x.total);
  if (x.truncated != 0) graph.count("TRUNCATED", x.truncated);
  if (x.ended) graph.text("ENDED", "true");
  std::string paths;
  for (auto& p : x.paths)
    paths += element("PATH").count("COUNT", p.count).text("STATE", p.state).wrap(escaped(p.path));
  return graph.wrap(paths);
}
std::string reply_body(const timeline_report& x) {
  auto run = [](const timeline_run_entry& r) {
    return element("RUN")
        .number("FROM", r.from)
        .number("TO", r.to)
        .text("STATE", r.state)
        .text("FUNCTION", r.function)
        .leaf();
  };
  auto thread = [&](const timeline_thread_entry& t) {
    return element("THREAD")
        .count("TID", static_cast<std::uint64_t>(t.tid))
        .text("NAME", t.name)
        .wrap(join(t.runs, "", run));
  };
  element timeline("TIMELINE");
  timeline.count("PID", static_cast<std::uint64_t>(x.pid)).number("FROM", x.from).number("TO", x.to);
  if (x.ended) timeline.text("ENDED", "true");
  return timeline.wrap(join(x.threads, "", thread));
}
// Printed with its own envelope by print_reply; listed for the gateway's reply handlers.

}  // namespace perfdm::xml
