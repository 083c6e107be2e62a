// Frames to histogram without the actors: the frame ingest actor's work per frame
// (frame_sample_builder::add, its summaries and the per-interval sums) and per poll (flush),
// and the data manager's (each sample into a histogram, folding as time grows). The frame has
// four fields of four types, all collected by one MI each, as a busy program would have.
// Frames are 100 ns apart (10 M frames/s of program time); a poll takes 4096 of them.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "dm/histogram.hpp"
#include "shm/schema.hpp"
#include "sources/frame_sample_builder.hpp"

using namespace perfdm;

namespace {

constexpr const char* schema = R"(struct bench4 {
  uint64_t requests;  // @counter
  uint32_t bytes;     // @counter
  double level;       // @sampled
  int16_t depth;      // @sampled
};
)";

constexpr time_ns frame_gap = 100;
constexpr std::size_t poll_frames = 4096;

void BM_frames_to_histogram_builder(benchmark::State& state) {
  const auto layout = shm::parse_schema(schema, "bench4.frames").at(0);
  frame_sample_builder b(layout, "/Process/bench{1}/bench4");
  std::vector<collecting_mi> mis;
  std::vector<histogram> histograms;
  for (std::size_t i = 0; i < b.fields().size(); ++i) {
    const auto& f = b.fields()[i];
    if (f.kind != shm::field_kind::counter && f.kind != shm::field_kind::sampled) continue;
    mis.push_back(collecting_mi{mi_handle{mis.size()}, b.metric_of(f), {"/"}});
    histograms.emplace_back(f.kind == shm::field_kind::counter ? metric_style::counter
                                                                : metric_style::sampled,
                            0, base_bucket_width);
  }
  b.set_collecting(mis);
  // Frames whose values change from frame to frame, as the fields of a real program do.
  std::vector<std::byte> frames(layout.size * poll_frames);
  for (std::size_t n = 0; n < poll_frames; ++n) {
    std::byte* f = frames.data() + n * layout.size;
    for (const auto& field : layout.fields) {
      const std::uint64_t v = n * 7 + field.offset;
      if (field.type == shm::field_type::f64) {
        const double d = static_cast<double>(v) / 3;
        std::memcpy(f + field.offset, &d, sizeof d);
      } else {
        std::memcpy(f + field.offset, &v, field.size);
      }
    }
  }
  std::vector<sample> samples;
  std::vector<completed_bucket> completed;
  time_ns t = 0;
  for (auto _ : state) {
    for (std::size_t n = 0; n < poll_frames; ++n, t += frame_gap)
      b.add(frames.data() + n * layout.size, t);
    samples.clear();
    b.flush(t, samples);
    for (const auto& s : samples) {
      auto& h = histograms[s.mi.id];
      const time_ns t1 = to_ns(s.end);
      while (h.needs_fold(t1)) h.fold();
      h.add(to_ns(s.start), t1, s.value, &completed);
      completed.clear();
    }
  }
  benchmark::DoNotOptimize(histograms[0].bucket(0));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(poll_frames));
}

}  // namespace

BENCHMARK(BM_frames_to_histogram_builder);

BENCHMARK_MAIN();
