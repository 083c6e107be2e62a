// See agent_report_monitor.hpp.
#include "messages/agent_report_monitor.hpp"

#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_report_monitor(const agent_report_monitor& x) {
  auto& s = x.sampling;
  xml::element e("MONITOR");
  e.integer("TIME", s.time_ms)
      .integer("NANO", s.nano)
      .integer("OVERHEAD", s.overhead_ms)
      .number("LASTCHECK", s.last_check)
      .number("CHECKTIME", s.check_time)
      .number("CHECKTOTAL", s.check_total)
      .number("REPORTTIME", s.report_time)
      .number("DELAYAVG", s.delay_avg);
  if (x.process) e.text("PROCESS", x.process->resource).flag("ACTIVE", x.process->active);
  return e.wrap(print_agent_report_counters(x.counters) + print_agent_report_threads(x.threads) +
                print_agent_report_timing(x.timing) + print_agent_report_memory(x.memory) +
                print_agent_report_iocounters(x.iocounters) +
                print_agent_report_reactions(x.reactions) +
                (x.perfdm ? print_agent_report_sections(*x.perfdm) : std::string()));
}

namespace {

// Reads `n` with `read` into `out`, and steps `n` to the next sibling; false when it is
// missing or not what `read` reads.
template <class T, class Read>
bool next_section(const agent_xml::node*& n, Read read, T& out) {
  if (!n || n->type() != rapidxml::node_element) return false;
  auto x = read(n);
  if (!x) return false;
  out = std::move(*x);
  n = n->next_sibling();
  return true;
}

}  // namespace

std::optional<agent_report_monitor> parse_agent_report_monitor(std::string_view text) {
  using namespace agent_xml;
  document doc(text);
  auto* root = doc.root();
  if (!root || !named(root, "MONITOR")) return std::nullopt;
  auto time = integer(root, "TIME"), nano = integer(root, "NANO"),
       overhead = integer(root, "OVERHEAD");
  auto last_check = number(root, "LASTCHECK"), check_time = number(root, "CHECKTIME"),
       check_total = number(root, "CHECKTOTAL"), report_time = number(root, "REPORTTIME"),
       delay_avg = number(root, "DELAYAVG");
  if (!time || !nano || !overhead || !last_check || !check_time || !check_total || !report_time ||
      !delay_avg)
    return std::nullopt;
  agent_report_monitor out;
  out.sampling = {*time,       *nano,        *overhead,    *last_check,
                  *check_time, *check_total, *report_time, *delay_avg};
  auto resource = attribute(root, "PROCESS");
  auto active = flag(root, "ACTIVE");
  if (resource && active)
    out.process = report_process{std::string(*resource), *active};
  else if (resource || attribute(root, "ACTIVE"))
    return std::nullopt;
  const agent_xml::node* n = root->first_node();
  if (!next_section(n, read_agent_report_counters, out.counters) ||
      !next_section(n, read_agent_report_threads, out.threads) ||
      !next_section(n, read_agent_report_timing, out.timing) ||
      !next_section(n, read_agent_report_memory, out.memory) ||
      !next_section(n, read_agent_report_iocounters, out.iocounters) ||
      !next_section(n, read_agent_report_reactions, out.reactions))
    return std::nullopt;
  if (!n) return out;
  auto* frames = n->next_sibling();
  if (!frames || frames->next_sibling()) return std::nullopt;
  out.perfdm = read_agent_report_sections(n, frames);
  if (!out.perfdm) return std::nullopt;
  return out;
}

}  // namespace perfdm
