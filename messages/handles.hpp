// Handles name Data Manager objects outside the actor that owns them (rule H2).
// A handle is a plain value: it compares, hashes and serialises, and carries no pointer.
// Each kind is its own C++ type, so a metric handle cannot be passed where a phase is meant.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <caf/meta/type_name.hpp>

namespace perfdm {

template <class Tag>
struct handle {
  std::uint64_t id = 0;

  friend bool operator==(handle a, handle b) { return a.id == b.id; }
  friend bool operator!=(handle a, handle b) { return a.id != b.id; }
  friend bool operator<(handle a, handle b) { return a.id < b.id; }

  template <class Inspector>
  friend typename Inspector::result_type inspect(Inspector& f, handle& x) {
    return f(caf::meta::type_name(Tag::name), x.id);
  }
};

struct metric_tag { static constexpr const char* name = "metric_handle"; };
struct resource_tag { static constexpr const char* name = "resource_handle"; };
struct focus_tag { static constexpr const char* name = "focus_handle"; };
struct phase_tag { static constexpr const char* name = "phase_handle"; };
struct mi_tag { static constexpr const char* name = "mi_handle"; };
struct stream_tag { static constexpr const char* name = "stream_handle"; };

using metric_handle = handle<metric_tag>;
using resource_handle = handle<resource_tag>;
using focus_handle = handle<focus_tag>;
using phase_handle = handle<phase_tag>;
using mi_handle = handle<mi_tag>;
using stream_handle = handle<stream_tag>;

template <class Tag>
std::string to_string(handle<Tag> h) {
  return std::to_string(h.id);
}

}  // namespace perfdm

template <class Tag>
struct std::hash<perfdm::handle<Tag>> {
  std::size_t operator()(perfdm::handle<Tag> h) const noexcept {
    return std::hash<std::uint64_t>{}(h.id);
  }
};
