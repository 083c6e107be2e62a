#include "actors/performance_stream_actor.hpp"

#include <memory>

#include "actors/internal_messages.hpp"
#include "messages/search_messages.hpp"

namespace perfdm {

caf::behavior performance_stream_actor(caf::event_based_actor* self, stream_handle id,
                                       caf::actor sink, std::size_t batch) {
  auto buffer = std::make_shared<std::vector<data_value>>();
  auto flush = [=] {
    if (buffer->empty()) return;
    self->send(sink, data_event{id, std::move(*buffer)});
    buffer->clear();
  };
  // Any other event first delivers the values buffered before it (F2).
  auto forward = [=](auto event) {
    flush();
    self->send(sink, std::move(event));
  };
  return {
    [=](stream_data& x) {
      for (auto& v : x.values) {
        buffer->push_back(v);
        if (buffer->size() >= batch) flush();  // T2: full
      }
    },
    [=](stream_flush) {
      flush();  // T2: subscriptions changed, or the end of a command
      return ok_reply{};
    },
    [=](fold_event& x) { forward(std::move(x)); },
    [=](new_phase_event& x) { forward(std::move(x)); },
    [=](samplerate_event& x) { forward(std::move(x)); },
    [=](new_metric_event& x) { forward(std::move(x)); },
    [=](new_resource_event& x) { forward(std::move(x)); },
    [=](component_removed_event& x) { forward(std::move(x)); },
    [=](component_added_event& x) { forward(std::move(x)); },
    [=](shg_node_event& x) { forward(std::move(x)); },
  };
}

}  // namespace perfdm
