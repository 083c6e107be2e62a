// A window's counts as WINDOW answers them (messages/evidence_messages.hpp): one process's
// evidence at one focus, as the search actor sends it on in EVIDENCE.
#pragma once

#include <string>

#include "messages/evidence_messages.hpp"
#include "window/sample_window.hpp"

namespace perfdm::window {

evidence_counts evidence_counts_of(const focus_counts& c, std::int32_t pid,
                                   const std::string& host);

}  // namespace perfdm::window
