// The search history graph for people and programs: an indented tree (true nodes first,
// with value, threshold and the time each became true), the JSON object of `perfdm search
// --json`, and Paradyn's one status line per conclusion.
#pragma once

#include <string>
#include <vector>

#include "cli/report_json.hpp"
#include "messages/search_messages.hpp"

namespace perfdm {

// "<CODE, MACHINE, SYNCOBJECT>", with ", FILE" before the ">" when FILE is not the root.
std::string shg_focus_text(const shg_node_info& n);

// The nodes of one search as a tree along each node's first parent; siblings ordered true,
// unknown, false, never, then by id. A node reached on other paths is printed once.
std::string shg_tree(const std::vector<shg_node_info>& nodes);

// {"nodes":[{"id":0,"parent":null,"hypothesis":…,"focus":{"code":…,"machine":…,
// "syncobject":…,"file":…},"state":…,"value":…,"threshold":…,"since":…,"score":…,"threads":…,
// "blamed":…,"idle":…},…]} (since null when the node was never true; score and threads null
// where the search does not know them).
report_json shg_json(const std::vector<shg_node_info>& nodes);

// "CPUbound tested true for <…>" ("tested false", "became false" after true, "became true"
// after false); "" when `before` → `now` is no conclusion.
std::string shg_conclusion_line(const std::string& before, const shg_node_info& now);

}  // namespace perfdm
