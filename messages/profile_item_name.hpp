// How PROFILE names its items (profile_entry::name): a function is `module@function`, and the
// lines of a detailed function, `module@function@line`, follow it.
#pragma once

#include <string>

namespace perfdm {

// Whether the item `item` is a line of the function item `function` ("" matches nothing).
inline bool names_line_of(const std::string& item, const std::string& function) {
  return !function.empty() && item.size() > function.size() &&
         item.compare(0, function.size() + 1, function + "@") == 0;
}

}  // namespace perfdm
