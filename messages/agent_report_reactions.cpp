// See agent_report_reactions.hpp.
#include "messages/agent_report_reactions.hpp"

#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_report_reactions(const agent_report_reactions& x) {
  return xml::element("REACTIONS")
      .integer("MONTIME", x.montime_ms)
      .count("SAMPLES", x.samples)
      .count("TSAMPLES", x.stack_samples)
      .integer("LAST", x.last_ms)
      .count("TOTRUN", x.runs)
      .count("TOTIO", x.ios)
      .count("TOTWAIT", x.waits)
      .wrap(xml::element("TRIE").leaf());
}

std::optional<agent_report_reactions> read_agent_report_reactions(const agent_xml::node* n) {
  using namespace agent_xml;
  if (!named(n, "REACTIONS")) return std::nullopt;
  auto tries = children(n, "TRIE");
  if (!tries || tries->size() != 1 || tries->front()->first_node() ||
      tries->front()->first_attribute())
    return std::nullopt;
  auto montime = integer(n, "MONTIME"), last = integer(n, "LAST");
  auto samples = count(n, "SAMPLES"), tsamples = count(n, "TSAMPLES"), runs = count(n, "TOTRUN"),
       ios = count(n, "TOTIO"), waits = count(n, "TOTWAIT");
  if (!montime || !last || !samples || !tsamples || !runs || !ios || !waits) return std::nullopt;
  return agent_report_reactions{*montime, *samples, *tsamples, *last, *runs, *ios, *waits};
}

std::optional<agent_report_reactions> parse_agent_report_reactions(std::string_view text) {
  return agent_xml::read_root(text, read_agent_report_reactions);
}

}  // namespace perfdm
