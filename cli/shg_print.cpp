#include "cli/shg_print.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

namespace perfdm {

namespace {

int state_rank(const std::string& s) {
  if (s == "true") return 0;
  if (s == "unknown") return 1;
  if (s == "false") return 2;
  return 3;
}

}  // namespace

std::string shg_focus_text(const shg_node_info& n) {
  // The /File part only when it names a file (shg_focus_text, pc::focus::text).
  bool file = !n.file.empty() && n.file != "/File";
  return "<" + n.code + ", " + n.machine + ", " + n.syncobject + (file ? ", " + n.file : "") + ">";
}

std::string shg_tree(const std::vector<shg_node_info>& nodes) {
  std::map<std::uint64_t, const shg_node_info*> by_id;
  std::map<std::uint64_t, std::vector<const shg_node_info*>> children;
  std::vector<const shg_node_info*> roots;
  for (auto& n : nodes) by_id[n.id] = &n;
  for (auto& n : nodes) {
    if (n.has_parent && by_id.count(n.parent))
      children[n.parent].push_back(&n);
    else
      roots.push_back(&n);
  }
  auto order = [](std::vector<const shg_node_info*>& v) {
    std::stable_sort(v.begin(), v.end(), [](auto* a, auto* b) {
      return std::make_pair(state_rank(a->state), a->id) <
             std::make_pair(state_rank(b->state), b->id);
    });
  };
  std::string out;
  std::set<std::uint64_t> printed;
  std::function<void(const shg_node_info*, int)> print = [&](const shg_node_info* n, int depth) {
    if (!printed.insert(n->id).second) return;
    out += std::string(2 * depth, ' ') + n->hypothesis + " " + shg_focus_text(*n) + "  " +
           n->state + (n->active ? " (active)" : "");
    // For people: three significant digits, tenths of seconds (the JSON keeps every digit).
    char buf[96];
    if (n->state != "never") {
      std::snprintf(buf, sizeof buf, "  value %.3g threshold %.3g", n->value, n->threshold);
      out += buf;
    }
    if (n->since >= 0) {
      std::snprintf(buf, sizeof buf, "  true since %.1f s", n->since);
      out += buf;
    }
    out += '\n';
    auto& kids = children[n->id];
    order(kids);
    for (auto* k : kids) print(k, depth + 1);
  };
  order(roots);
  for (auto* r : roots) print(r, 0);
  return out;
}

report_json shg_json(const std::vector<shg_node_info>& nodes) {
  auto list = report_json::array();
  for (auto& n : nodes) {
    report_json focus = {{"code", n.code},
                         {"machine", n.machine},
                         {"syncobject", n.syncobject},
                         {"file", n.file.empty() ? "/File" : n.file}};
    list.push_back({{"id", n.id},
                    {"parent", n.has_parent ? report_json(n.parent) : report_json(nullptr)},
                    {"hypothesis", n.hypothesis},
                    {"focus", std::move(focus)},
                    {"state", n.state},
                    {"value", report_number(n.value)},
                    {"threshold", report_number(n.threshold)},
                    {"since", n.since >= 0 ? report_number(n.since) : report_json(nullptr)},
                    {"score", report_number(n.score)},
                    {"threads", report_number(n.threads)},
                    {"blamed", report_number(n.blamed)},
                    {"idle", report_number(n.idle)}});
  }
  return {{"nodes", std::move(list)}};
}

std::string shg_conclusion_line(const std::string& before, const shg_node_info& now) {
  if (before == now.state || (now.state != "true" && now.state != "false")) return "";
  bool again = before == "true" || before == "false";
  return now.hypothesis + (again ? " became " : " tested ") + now.state + " for " +
         shg_focus_text(now);
}

}  // namespace perfdm
