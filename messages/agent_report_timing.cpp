// See agent_report_timing.hpp.
#include "messages/agent_report_timing.hpp"

#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_report_timing(const agent_report_timing& x) {
  return xml::element("TIMING")
      .number("CLOCK", x.clock_ms)
      .integer("PROCS", x.processors)
      .number("NLIVE", x.live_sum)
      .number("NLIVE2", x.live_sum2)
      .count("NCOUNT", x.live_count)
      .count("TOTAL", x.total)
      .count("CREATED", x.created)
      .count("DIED", x.died)
      .count("ACTIVE", x.active)
      .wrap(xml::join(x.threads, "", [](const report_thread_timing& t) {
        return xml::element("THREAD")
            .integer("ID", t.id)
            .text("NAME", t.name)
            .integer("START", t.start_ms)
            .integer("LAST", t.last_ms)
            .number("CLOCK", t.clock_ms)
            .number("CPU", t.cpu_ms)
            .number("USER", t.user_ms)
            .leaf();
      }));
}

std::optional<agent_report_timing> read_agent_report_timing(const agent_xml::node* n) {
  using namespace agent_xml;
  if (!named(n, "TIMING")) return std::nullopt;
  auto clock = number(n, "CLOCK"), nlive = number(n, "NLIVE"), nlive2 = number(n, "NLIVE2");
  auto procs = integer(n, "PROCS");
  auto ncount = count(n, "NCOUNT"), total = count(n, "TOTAL"), created = count(n, "CREATED"),
       died = count(n, "DIED"), active = count(n, "ACTIVE");
  auto threads = children(n, "THREAD");
  if (!clock || !nlive || !nlive2 || !procs || !ncount || !total || !created || !died || !active ||
      !threads)
    return std::nullopt;
  agent_report_timing out{*clock, *procs,   *nlive, *nlive2, *ncount,
                          *total, *created, *died,  *active, {}};
  for (auto* t : *threads) {
    auto id = integer(t, "ID"), start = integer(t, "START"), last = integer(t, "LAST");
    auto name = attribute(t, "NAME");
    auto tclock = number(t, "CLOCK"), cpu = number(t, "CPU"), user = number(t, "USER");
    if (!id || !start || !last || !name || !tclock || !cpu || !user || t->first_node())
      return std::nullopt;
    out.threads.push_back({*id, std::string(*name), *start, *last, *tclock, *cpu, *user});
  }
  return out;
}

std::optional<agent_report_timing> parse_agent_report_timing(std::string_view text) {
  return agent_xml::read_root(text, read_agent_report_timing);
}

}  // namespace perfdm
