#include "iojob/heatmap_output.hpp"

#include <cmath>

#include "darshan/darshan_format.hpp"
#include "darshan/darshan_record_id.hpp"

namespace perfdm::io {

bool heatmap_record::empty() const {
  for (const auto b : write_bins)
    if (b > 0) return false;
  for (const auto b : read_bins)
    if (b > 0) return false;
  return true;
}

double heatmap_bin_width(double end_seconds) {
  double width = darshan::initial_heatmap_bin_width;
  while (end_seconds > width * double(darshan::max_heatmap_bins)) width *= 2;
  return width;
}

namespace {

// Spreads `bytes` over [from, to) seconds into `bins` of `width`, whole bytes, the last bin
// touched taking what rounding left.
void spread(std::vector<std::int64_t>& bins, double width, double from, double to,
            std::int64_t bytes) {
  if (bytes == 0 || bins.empty()) return;
  const auto last_bin = std::int64_t(bins.size()) - 1;
  auto bin_of = [&](double t) {
    const auto b = std::int64_t(std::floor(t / width));
    return b < 0 ? 0 : (b > last_bin ? last_bin : b);
  };
  const std::int64_t first = bin_of(from), last = bin_of(to);
  if (first == last || to <= from) {
    bins[std::size_t(first)] += bytes;
    return;
  }
  std::int64_t given = 0;
  for (std::int64_t b = first; b < last; ++b) {
    const double lo = b == first ? from : double(b) * width;
    const double hi = double(b + 1) * width;
    std::int64_t part = std::llround(double(bytes) * (hi - lo) / (to - from));
    if (part > bytes - given) part = bytes - given;
    if (part < 0) part = 0;
    bins[std::size_t(b)] += part;
    given += part;
  }
  bins[std::size_t(last)] += bytes - given;
}

}  // namespace

heatmap_record heatmap_of(const segment_snapshot& s, heatmap_api api, std::int64_t rank,
                          const time_base& t, double end_seconds) {
  heatmap_record h;
  h.id = darshan::record_id(heatmap_names[api]);
  h.rank = rank;
  h.bin_width_seconds = heatmap_bin_width(end_seconds);
  const auto nbins = std::size_t(std::ceil(end_seconds / h.bin_width_seconds));
  h.write_bins.assign(nbins, 0);
  h.read_bins.assign(nbins, 0);
  for (const auto& c : s.heatmap) {
    if (c.api != api) continue;
    const int shift = heatmap_bins::shift(int(c.level));
    const std::uint64_t a = s.heatmap_origin + (std::uint64_t(c.bin) << shift);
    const std::uint64_t b = s.heatmap_origin + (std::uint64_t(c.bin + 1) << shift);
    const double from = t.timestamp(std::int64_t(a));
    const double to = t.timestamp(std::int64_t(b));
    spread(h.write_bins, h.bin_width_seconds, from, to, c.write);
    spread(h.read_bins, h.bin_width_seconds, from, to, c.read);
  }
  return h;
}

}  // namespace perfdm::io
