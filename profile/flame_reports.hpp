// FLAMEGRAPH, TIMELINE and the log's export answered from a call-path store
// (profile/call_path_store.hpp), by a native source while its process runs and by the
// registry from the store the source left when it exited. Plain C++.
#pragma once

#include <string>
#include <variant>

#include "messages/flame_messages.hpp"
#include "profile/call_path_store.hpp"

namespace perfdm {

// The flame graph the request asks for, or why there is none (a phase not kept).
std::variant<flamegraph_report, std::string> flamegraph_of(const profile::call_path_store& store,
                                                           const flamegraph_request& request);

timeline_report timeline_of(const profile::call_path_store& store, const timeline_request& request);

flame_export flame_export_of(const profile::call_path_store& store, std::int32_t pid);

}  // namespace perfdm
