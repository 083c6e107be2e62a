// The known word nearest to a mistyped one, for "unknown command 'serch': did you mean
// 'search'?": the smallest edit distance (insert, delete, replace, swap of neighbours), ties
// to the first in `known`; nothing when every known word is further than half the typed one.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace perfdm {

std::optional<std::string> nearest_word(const std::string& typed,
                                        const std::vector<std::string>& known);

}  // namespace perfdm
