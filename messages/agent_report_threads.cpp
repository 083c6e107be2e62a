// See agent_report_threads.hpp.
#include "messages/agent_report_threads.hpp"

#include "messages/xml_element.hpp"

namespace perfdm {

namespace {

std::string print_thread(const report_thread& t) {
  xml::element e("THREAD");
  e.integer("ID", t.id).text("NAME", t.name).text("STATE", t.state);
  if (t.cpu)
    e.number("USER", t.cpu->user_s)
        .number("SYSTEM", t.cpu->system_s)
        .count("SWITCHES", t.cpu->switches)
        .count("PREEMPTIONS", t.cpu->preemptions);
  e.text("THREAD", t.thread).integer("START", t.start_ms).integer("LAST", t.last_ms);
  if (t.end_ms) e.integer("END", *t.end_ms).flag("TERMINATED", true);
  auto& s = t.states;
  return e.count("TOTAL", s.total)
      .count("TOTBLKS", s.blocked_total)
      .count("TOTWAITS", s.waits_total)
      .count("SAMPLES", s.samples)
      .count("BLOCKS", s.blocks)
      .count("RUNS", s.runs)
      .count("WAITS", s.waits)
      .count("IOS", s.ios)
      .count("SLEEPS", s.sleeps)
      .leaf();
}

std::optional<report_thread> read_thread(const agent_xml::node* n) {
  using namespace agent_xml;
  report_thread t;
  auto id = integer(n, "ID"), start = integer(n, "START"), last = integer(n, "LAST");
  auto name = attribute(n, "NAME"), state = attribute(n, "STATE"), thread = attribute(n, "THREAD");
  if (!id || !start || !last || !name || !state || !thread || n->first_node()) return std::nullopt;
  t.id = *id;
  t.name = *name;
  t.state = *state;
  t.thread = *thread;
  t.start_ms = *start;
  t.last_ms = *last;
  if (attribute(n, "USER") || attribute(n, "SYSTEM") || attribute(n, "SWITCHES") ||
      attribute(n, "PREEMPTIONS")) {
    auto user = number(n, "USER"), system = number(n, "SYSTEM");
    auto switches = count(n, "SWITCHES"), preemptions = count(n, "PREEMPTIONS");
    if (!user || !system || !switches || !preemptions) return std::nullopt;
    t.cpu = report_thread_cpu{*user, *system, *switches, *preemptions};
  }
  if (attribute(n, "END") || attribute(n, "TERMINATED")) {
    auto end = integer(n, "END");
    if (!end || flag(n, "TERMINATED") != true) return std::nullopt;
    t.end_ms = *end;
  }
  auto total = count(n, "TOTAL"), totblks = count(n, "TOTBLKS"), totwaits = count(n, "TOTWAITS"),
       samples = count(n, "SAMPLES"), blocks = count(n, "BLOCKS"), runs = count(n, "RUNS"),
       waits = count(n, "WAITS"), ios = count(n, "IOS"), sleeps = count(n, "SLEEPS");
  if (!total || !totblks || !totwaits || !samples || !blocks || !runs || !waits || !ios || !sleeps)
    return std::nullopt;
  t.states = {*total, *totblks, *totwaits, *samples, *blocks, *runs, *waits, *ios, *sleeps};
  return t;
}

}  // namespace

std::string print_agent_report_threads(const agent_report_threads& x) {
  auto classes = xml::join(x.classes, "", [](const report_thread_class& c) {
    return xml::element("THREADDATA").integer("TID", c.tid).text("CLASS", c.class_name).leaf();
  });
  return xml::element("THREADS")
      .count("COUNT", x.count)
      .wrap(classes + xml::join(x.threads, "", print_thread));
}

std::optional<agent_report_threads> read_agent_report_threads(const agent_xml::node* n) {
  using namespace agent_xml;
  auto n_live = count(n, "COUNT");
  if (!named(n, "THREADS") || !n_live) return std::nullopt;
  agent_report_threads out{*n_live, {}, {}};
  auto* c = n->first_node();
  for (; c && c->type() == rapidxml::node_element && named(c, "THREADDATA");
       c = c->next_sibling()) {
    auto tid = integer(c, "TID");
    auto cls = attribute(c, "CLASS");
    if (!tid || !cls || c->first_node()) return std::nullopt;
    out.classes.push_back({*tid, std::string(*cls)});
  }
  for (; c; c = c->next_sibling()) {
    if (c->type() != rapidxml::node_element || !named(c, "THREAD")) return std::nullopt;
    auto t = read_thread(c);
    if (!t) return std::nullopt;
    out.threads.push_back(std::move(*t));
  }
  return out;
}

std::optional<agent_report_threads> parse_agent_report_threads(std::string_view text) {
  return agent_xml::read_root(text, read_agent_report_threads);
}

}  // namespace perfdm
