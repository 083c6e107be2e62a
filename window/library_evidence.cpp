#include "window/library_evidence.hpp"

#include <algorithm>
#include <cmath>

namespace perfdm::window {

focus_counts with_library_io(focus_counts c, const library_io& io, bool at_file) {
  // No stack sample at the focus's /Machine part: it is outside the focus, whatever the
  // library counted (sample_window::count).
  if (c.ticks == 0) return c;
  if (!io.whole) {
    // A thread's or a function's operations on the files are the samples' (they are the
    // floor's count); each is taken at the files' exact mean size, where the thread's /proc
    // counts mix every descriptor it used.
    if (io.ops > 0) c.io_bytes = c.io_ops * (io.bytes / io.ops);
    return c;
  }
  c.io_ops = io.ops;
  c.io_bytes = io.bytes;
  const double elapsed = io.to - io.from;
  if (!at_file || elapsed <= 0) return c;
  const double n = static_cast<double>(c.ticks);
  const double threads = io.time / elapsed;  // threads in I/O at the focus, on average
  const double in_scope = std::min<double>(threads, c.scope);
  c.io_s = io.time;
  c.ios = static_cast<std::uint64_t>(std::llround(in_scope * n));
  c.ios_most = static_cast<std::uint32_t>(std::ceil(in_scope));
  c.ios_share = std::min(1.0, threads / std::max(1.0, c.active / n)) * n;
  c.ios_saving = std::min(1.0, threads / std::max(1.0, c.busy / n)) * n;
  return c;
}

std::vector<focus_counts> counts_with_library(const sample_window& stacks,
                                              const file_window& files,
                                              const std::vector<native::pc_focus>& foci,
                                              double since) {
  auto out = stacks.counts(foci, since);
  if (!files.present()) return out;
  for (std::size_t i = 0; i < foci.size(); ++i)
    if (auto io = files.count(foci[i], stacks.process(), since))
      out[i] = with_library_io(out[i], *io, !foci[i].file.empty());
  return out;
}

}  // namespace perfdm::window
