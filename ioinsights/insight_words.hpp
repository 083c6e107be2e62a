// Numbers as an insight's line says them: "82 %", "1.2 M", "4 KiB", "3.1 s".
#pragma once

#include <string>

namespace perfdm::ioinsights {

std::string percent(double fraction);  // 0.823 -> "82 %", 0.004 -> "0.4 %", 1e-5 -> "< 0.1 %"
std::string count(double n);           // 1234567 -> "1.2 M", 4321 -> "4,321", 12 -> "12"
std::string bytes(double n);           // 4096 -> "4 KiB", 1.5e9 -> "1.4 GiB"
std::string seconds(double s);         // 3.14 -> "3.1 s", 0.0123 -> "12 ms", 4000 -> "1.1 h"

}  // namespace perfdm::ioinsights
