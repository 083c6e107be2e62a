// How a data source of the data manager starts (a frame ingest actor, a native source): it
// defines its resources and metrics, in order, and once the data manager knows them all it
// registers as a local source (no component name: its samples go straight in), so that a
// front end can enable its metrics as soon as ATTACH or WATCH answered.
#pragma once

#include <caf/actor.hpp>
#include <chrono>
#include <utility>
#include <variant>
#include <vector>

#include "actors/fan_out.hpp"
#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"

namespace perfdm {

using source_definition = std::variant<define_resource, define_metric>;

// Sends every definition, then source_register, then calls `registered()`. The first
// definition refused (a metric of that name with another style, say) calls `refused(error)`
// once, and the source does not register.
template <class Self, class Registered, class Refused>
void define_and_register(Self* self, const caf::actor& dm,
                         const std::vector<source_definition>& definitions, Registered registered,
                         Refused refused) {
  auto count = countdown::make(
      [=]() mutable {
        self->send(dm, source_register{caf::actor_cast<caf::actor>(self), {}});
        registered();
      },
      true);
  auto on_error = [=](caf::error& e) mutable {
    if (count->fail()) refused(e);
  };
  for (auto& d : definitions) {
    count->expect();
    std::visit(
        [&](const auto& x) {
          using reply =
              std::conditional_t<std::is_same_v<std::decay_t<decltype(x)>, define_resource>,
                                 resource_info, metric_info>;
          self->request(dm, std::chrono::seconds(30), x)
              .then([=](reply&) { count->arrived(); }, on_error);
        },
        d);
  }
  count->release();
}

}  // namespace perfdm
