// The JSON of `perfdm search --json` (nlohmann's JSON, keys in the order they are set): its
// numbers as the XML writes them (whole numbers without a decimal point; NaN and infinities,
// which JSON lacks, as null) and its text as UTF-8 (a byte that is not becomes U+FFFD).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace perfdm {

using report_json = nlohmann::ordered_json;

report_json report_number(double x);
// `s`, or null for "".
report_json report_text(const std::string& s);
std::string report_dump(const report_json& j);

}  // namespace perfdm
