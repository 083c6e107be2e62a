// DyPer's SET and GET: the per-process variables (DyPer's names and defaults).
// SET applies every name it knows and ignores the others, as DyPer's agent does (the
// controller's first SET holds CONTENTIONCHECK, TIMINGCHECK, AGENTS, which a native process
// has no use for); a bad value of a known name refuses the whole SET before anything changes.
#pragma once

#include <map>
#include <string>

#include "dyper/command_argument.hpp"

namespace perfdm {

// Every variable at its default, canonical text by name.
std::map<std::string, std::string> default_variables();

// SET: applies the values; the reply lists those applied and, in <IGNORED>, the names it
// does not know (DyPer's controller reads no SET reply).
std::string run_set(std::map<std::string, std::string>& variables, const argument& arg);

// GET: one <VAR/>, or <SETTINGS> of those asked (all without an argument).
std::string run_get(const std::map<std::string, std::string>& variables, const argument& arg);

}  // namespace perfdm
