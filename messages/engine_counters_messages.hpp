// The engine's own counters, asked of the data manager by GET /metrics (http/metrics_scrape.cpp)
// and by nothing of the command language: no command prints them, so recordings, replays and
// their golden output stay as they were.
#pragma once

#include <cstdint>

#include "messages/inspect_macros.hpp"

namespace perfdm {

struct engine_counters_query {};

// Since the engine started, every sample the data manager took in (SAMPLES requests and the
// data sources' samples, a component's once its aggregator let them through): `samples` went
// into a collecting metric instance; `samples_dropped` named one deleted or not collecting.
// Samples of a refused request (H4) are in neither.
struct engine_counters {
  std::uint64_t samples = 0;
  std::uint64_t samples_dropped = 0;
};
PERFDM_INSPECT(engine_counters, x.samples, x.samples_dropped)

PERFDM_INSPECT_EMPTY(engine_counters_query)

}  // namespace perfdm
