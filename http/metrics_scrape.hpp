// One scrape of GET /metrics: an actor asks the data manager for its metrics, phases, status,
// every metric instance's histograms and the frame counts, builds a prometheus_snapshot and
// hands it on. The requests go out together, so a scrape of many instances takes about one
// round trip per instance of the data manager's time, not of the network's.
#pragma once

#include <atomic>
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "http/prometheus_text.hpp"

namespace perfdm {

// Calls `done` once (from an actor's thread) with the snapshot, or with an error text.
void scrape_metrics(caf::actor_system& sys, caf::actor data_manager,
                    std::shared_ptr<std::atomic<std::int64_t>> clients,
                    std::function<void(prometheus_snapshot, std::string error)> done);

}  // namespace perfdm
