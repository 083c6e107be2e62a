// DyPer's REPORT schema, as the original agent's report (tests/dyper/original-agent-report.xml)
// shows it: every element path and the attributes each element has there. A report of
// perfdm's is checked against it: every section present, every attribute present, numeric
// where the original's is numeric.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <rapidxml/rapidxml.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace perfdm::dyper_test {

// path ("MONITOR/THREADS/THREAD") -> attribute -> whether the original's value is numeric
using schema = std::map<std::string, std::map<std::string, bool>>;
// path -> attribute -> every value seen
using values = std::map<std::string, std::map<std::string, std::vector<std::string>>>;

inline bool numeric(const std::string& v) {
  if (v.empty()) return false;
  char* end = nullptr;
  std::strtod(v.c_str(), &end);
  return end == v.c_str() + v.size();
}

inline void walk(const rapidxml::xml_node<char>* n, const std::string& parent, values& out) {
  for (auto* c = n->first_node(); c != nullptr; c = c->next_sibling()) {
    if (c->type() != rapidxml::node_element) continue;
    auto path = parent.empty() ? std::string(c->name()) : parent + "/" + c->name();
    auto& attrs = out[path];
    for (auto* a = c->first_attribute(); a != nullptr; a = a->next_attribute())
      attrs[a->name()].push_back(a->value());
    attrs["#count"].push_back("");
    walk(c, path, out);
  }
}

// Every element of `xml` (a MONITOR element or what holds one) by path.
inline values read_values(std::string xml) {
  std::vector<char> buffer(xml.begin(), xml.end());
  buffer.push_back('\0');
  rapidxml::xml_document<char> doc;
  doc.parse<0>(buffer.data());
  values out;
  walk(&doc, "", out);
  return out;
}

inline schema original_schema() {
  std::ifstream in(PERFDM_DYPER_ORIGINAL_REPORT);
  std::stringstream s;
  s << in.rdbuf();
  auto text = s.str();
  text = text.substr(0, text.rfind("</DYPER>") + 8);  // the trailer is framing, not XML
  schema out;
  for (auto& [path, attrs] : read_values(text)) {
    if (path.find('/') == std::string::npos) continue;  // the DYPER envelope itself
    auto p = path.substr(path.find('/') + 1);           // the paths below it
    for (auto& [name, vs] : attrs)
      if (name != "#count") out[p][name] = numeric(vs.front());
  }
  return out;
}

// The problems of `monitor_xml` (one <MONITOR> element) against the original's schema;
// `absent_ok`: paths a native process cannot have (GC, the trie's nodes).
inline std::vector<std::string> schema_problems(const std::string& monitor_xml,
                                                const std::set<std::string>& absent_ok) {
  std::vector<std::string> problems;
  auto ours = read_values(monitor_xml);
  for (auto& [path, attrs] : original_schema()) {
    auto i = ours.find(path);
    if (i == ours.end()) {
      if (!absent_ok.count(path)) problems.push_back("no element " + path);
      continue;
    }
    auto count = i->second["#count"].size();
    for (auto& [name, is_numeric] : attrs) {
      auto& vs = i->second[name];
      if (vs.size() != count)
        problems.push_back(path + " lacks " + name + " (" + std::to_string(count - vs.size()) +
                           " of " + std::to_string(count) + ")");
      if (is_numeric)
        for (auto& v : vs)
          if (!numeric(v)) problems.push_back(path + " " + name + "='" + v + "' is not a number");
    }
  }
  return problems;
}

// What a native process cannot have of the original's report: GC elements (no collector) and
// the reaction trie's nodes (perfdm's CPU profile keeps no call tree).
inline const std::set<std::string>& native_lacks() {
  static const std::set<std::string> paths = {"MONITOR/MEMORY/GC",
                                              "MONITOR/REACTIONS/TRIE/TRIENODE",
                                              "MONITOR/REACTIONS/TRIE/TRIENODE/TRIENODE",
                                              "MONITOR/REACTIONS/TRIE/TRIENODE/TRIENODE/TRIENODE"};
  return paths;
}

}  // namespace perfdm::dyper_test
