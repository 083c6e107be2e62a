// See agent_threads_reply.hpp.
#include "messages/agent_threads_reply.hpp"

#include "messages/agent_reply_xml.hpp"
#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_threads_reply(const agent_threads_reply& x) {
  return xml::element("THREADS")
      .flag("DEFAULT", x.use_by_default)
      .wrap(xml::join(x.threads, "", [](const thread_use& t) {
        return xml::element("THREAD").text("ID", t.id).flag("USE", t.use).leaf();
      }));
}

std::optional<agent_threads_reply> parse_agent_threads_reply(std::string_view text) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  if (!root || !agent_xml::named(root, "THREADS")) return std::nullopt;
  auto fallback = agent_xml::flag(root, "DEFAULT");
  auto threads = agent_xml::children(root, "THREAD");
  if (!fallback || !threads) return std::nullopt;
  agent_threads_reply out{*fallback, {}};
  for (auto* t : *threads) {
    auto id = agent_xml::attribute(t, "ID");
    auto use = agent_xml::flag(t, "USE");
    if (!id || !use || t->first_node()) return std::nullopt;
    out.threads.push_back({std::string(*id), *use});
  }
  return out;
}

}  // namespace perfdm
