// JSON text of an nlohmann-json value, with perfdm's form for reals. nlohmann-json's dump()
// writes every double with a fraction or an exponent of its own choosing (5.0, 1000000.0,
// 1700000000000000.0); perfdm writes a real in one fixed form per output, the form its text
// output and its earlier files use (`perfdm log`: std::to_chars' shortest, 5, 0.25, 1e+06, -0;
// trace files: printf's %.15g to %.17g, 400000, 1.7e+15). Both forms are JSON numbers that read
// back as the same double. nlohmann-json cannot be given a number's text, so this walks the
// value: objects and arrays are opened, separated and closed here, everything else (keys,
// strings, integers, booleans, null) is nlohmann-json's dump(), and a finite double is written
// by `real`. Bytes that are not UTF-8 in a string become U+FFFD, so the text stays JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace perfdm {

// Appends a finite double's JSON text to `out`.
using json_real_writer = void (*)(std::string& out, double value);

// Appends `value`'s JSON text to `out`: nlohmann-json's dump(), reals written by `real`; a
// double that is not finite is null (JSON has no NaN), as nlohmann-json writes it.
void append_json(std::string& out, const nlohmann::ordered_json& value, json_real_writer real);

}  // namespace perfdm
