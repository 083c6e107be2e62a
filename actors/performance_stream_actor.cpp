#include "actors/performance_stream_actor.hpp"

#include <caf/stateful_actor.hpp>

#include "actors/internal_messages.hpp"
#include "messages/search_messages.hpp"

namespace perfdm {

namespace {

struct performance_stream_state {
  explicit performance_stream_state(caf::stateful_actor<performance_stream_state>* self)
      : self(self) {}

  caf::stateful_actor<performance_stream_state>* self;
  stream_handle id;
  caf::actor sink;
  std::size_t batch = default_stream_batch;
  std::vector<data_value> buffer;  // values not yet delivered
  static inline const char* name = "performance_stream";

  void flush() {
    if (buffer.empty()) return;
    self->send(sink, data_event{id, std::move(buffer)});
    buffer.clear();
  }

  // Any other event first delivers the values buffered before it (F2).
  template <class Event>
  void forward(Event& event) {
    flush();
    self->send(sink, std::move(event));
  }
};

caf::behavior performance_stream_actor(caf::stateful_actor<performance_stream_state>* self,
                                       stream_handle id, caf::actor sink, std::size_t batch) {
  auto& st = self->state;
  st.id = id;
  st.sink = std::move(sink);
  st.batch = batch;
  return {
      [=](stream_data& x) {
        auto& st = self->state;
        for (auto& v : x.values) {
          st.buffer.push_back(v);
          if (st.buffer.size() >= st.batch) st.flush();  // T2: full
        }
      },
      [=](stream_flush) {
        self->state.flush();  // T2: subscriptions changed, or the end of a command
        return ok_reply{};
      },
      [=](fold_event& x) { self->state.forward(x); },
      [=](new_phase_event& x) { self->state.forward(x); },
      [=](samplerate_event& x) { self->state.forward(x); },
      [=](new_metric_event& x) { self->state.forward(x); },
      [=](new_resource_event& x) { self->state.forward(x); },
      [=](component_removed_event& x) { self->state.forward(x); },
      [=](component_added_event& x) { self->state.forward(x); },
      [=](shg_node_event& x) { self->state.forward(x); },
  };
}

}  // namespace

caf::actor spawn_performance_stream(caf::event_based_actor* parent, stream_handle id,
                                    caf::actor sink, std::size_t batch) {
  return parent->spawn<caf::linked>(performance_stream_actor, id, std::move(sink), batch);
}

}  // namespace perfdm
