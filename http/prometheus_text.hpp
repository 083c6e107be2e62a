// GET /metrics of perfdm engine --http: the Prometheus text exposition format (version
// 0.0.4) of a snapshot of the engine. Pure formatting; http/metrics_scrape.hpp takes the
// snapshot from the data manager.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfdm {

// One histogram of one metric instance: the global one, or the current phase's.
struct prometheus_histogram {
  std::uint64_t mi = 0;
  std::string metric;
  std::string focus;
  std::string phase;        // "global", or the current phase's name
  bool counter = false;     // COUNTER style: also a running total
  double width = 0;         // bucket width in seconds
  bool has_latest = false;  // a bucket has completed
  double latest = 0;        // the value of the last completed bucket (NaN: it was empty)
  double total = 0;         // the sum of every bucket with data, the filling one included
};

struct prometheus_frames {
  std::string process;  // its resource, /Process/<name>{<pid>}
  std::string type;     // the frame type
  std::uint64_t read = 0, lost = 0, torn = 0;
};

struct prometheus_snapshot {
  double clock = 0;          // the engine's clock, seconds
  double interval = 0;       // the sampling interval, seconds
  std::int64_t clients = 0;  // connections open (TCP gateway and dashboard WebSockets)
  std::uint64_t metric_instances = 0;
  bool has_samples = false;  // the data manager answered its counters
  std::uint64_t samples = 0;
  std::uint64_t samples_dropped = 0;
  std::vector<prometheus_histogram> histograms;
  std::vector<prometheus_frames> frames;
};

// The exposition: every family with HELP and TYPE, label values escaped, numbers printed so
// that they read back exactly (NaN, +Inf, -Inf as Prometheus spells them).
std::string prometheus_exposition(const prometheus_snapshot& s);

// The latest completed bucket and the running total of a histogram's buckets 0..LAST (LAST the
// bucket still filling), as DATA answers them; NaN buckets are empty.
void summarise_buckets(const std::vector<double>& values, prometheus_histogram& h);

}  // namespace perfdm
