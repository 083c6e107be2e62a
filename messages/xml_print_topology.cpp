#include "messages/xml_print_topology.hpp"

#include "messages/xml_element.hpp"

namespace perfdm::xml {

namespace {

// Node `i` and its subtree. The nodes come in pre-order, so a node's children follow it.
std::string node_text(const std::vector<topology_node>& nodes, std::size_t i) {
  auto& n = nodes[i];
  std::string children;
  for (std::size_t k = i + 1; k < nodes.size(); ++k)
    if (nodes[k].has_parent && nodes[k].parent == i) children += node_text(nodes, k);
  // NODE is a container: always wrapped, so its form does not depend on its children.
  return element("NODE")
      .text("NAME", n.name)
      .text("HOST", n.host)
      .text("KIND", n.kind)
      .number("SAMPLES_PER_S", n.samples_per_s)
      .text("LAG_S", n.has_lag ? format_number(n.lag_s) : std::string())
      .count("COMPONENTS", n.components)
      .count("SOURCES", n.sources)
      .wrap(children);
}

}  // namespace

std::string reply_body(const topology_reply& x) {
  std::string body;
  for (std::size_t i = 0; i < x.nodes.size(); ++i)
    if (!x.nodes[i].has_parent) body += node_text(x.nodes, i);
  return element("TOPOLOGY").wrap(body);
}

}  // namespace perfdm::xml
