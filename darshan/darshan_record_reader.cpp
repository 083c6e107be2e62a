// The records of a module region as record_reader streams them (darshan_log.hpp): each
// record's values read a chunk at a time and mapped to the current counter names.
#include <algorithm>
#include <cstring>

#include "darshan/darshan_counters.hpp"
#include "darshan/darshan_fields.hpp"
#include "darshan/darshan_log.hpp"
#include "darshan/darshan_region_stream.hpp"

namespace perfdm::darshan {

std::int64_t record::counter(std::size_t i) const {
  if (!layout || i >= layout->current_ints.size()) return -1;
  const auto& from = layout->current_ints[i];
  if (from.empty()) return missing_int(module, i);
  // Damaged values may overflow: the sum wraps, as darshan-util's does on its machines.
  std::uint64_t v = 0;
  for (int k : from) v += static_cast<std::uint64_t>(ints[k]);
  return static_cast<std::int64_t>(v);
}

double record::fcounter(std::size_t i) const {
  if (!layout || i >= layout->current_floats.size()) return -1;
  const auto& from = layout->current_floats[i];
  if (from.empty()) return missing_float(module, i);
  double v = 0;
  for (int k : from) v += floats[k];
  return v;
}

// Reads exactly `size` bytes of a record; false (with a note when the record was cut) when
// the region's data ends first. `started`: part of the record was read already.
bool record_reader::read_bytes(void* out, std::size_t size, bool started) {
  std::size_t got = stream_->read(out, size);
  if (got == size) return true;
  if (got > 0 || started)
    log_.note(what_ + " ends inside a record (" + std::to_string(got) + " of " +
              std::to_string(size) + " bytes): that record is not read");
  return false;
}

// Reads `count` int64 values into `into` (replacing its contents), a chunk at a time, so that
// a damaged count costs memory only for the values the data really holds.
bool record_reader::read_values(std::vector<std::int64_t>& into, std::uint64_t count) {
  into.clear();
  const bool swap = log_.swapped_;
  std::int64_t chunk[8192];
  while (count > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count, 8192));
    if (!read_bytes(chunk, 8 * n, true)) return false;
    for (std::size_t i = 0; i < n; ++i) {
      fields f{reinterpret_cast<const unsigned char*>(chunk + i), swap};
      into.push_back(f.i64(0));
    }
    count -= n;
  }
  return true;
}

// Reads the current DXT record's segments from the stream's position, in batches.
void record_reader::stream_segments(
    const std::function<void(const dxt_segment*, std::size_t)>& out,
    std::vector<dxt_segment>* keep) {
  const record_layout& l = *region_.layout;
  const std::size_t seg = l.dxt_segment_size;
  const bool swap = log_.swapped_;
  std::vector<unsigned char> bytes(4096 * seg);
  std::vector<dxt_segment> batch;
  std::uint64_t left = dxt_total_;
  while (left > 0) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, 4096));
    std::size_t got = stream_->read(bytes.data(), n * seg);
    std::size_t whole = got / seg;
    batch.resize(whole);
    for (std::size_t i = 0; i < whole; ++i) {
      fields g{bytes.data() + i * seg, swap};
      dxt_segment& d = batch[i];
      d.offset = l.dxt_offsets_unknown ? -1 : g.i64(0);
      d.length = g.i64(8);
      d.start_time = g.f64(16);
      d.end_time = g.f64(24);
      d.thread = seg >= 40 ? g.u64(32) : 0;
    }
    if (keep) keep->insert(keep->end(), batch.begin(), batch.end());
    if (out && whole > 0) out(batch.data(), whole);
    left -= whole;
    if (got < n * seg) {
      dxt_cut_ = true;
      break;
    }
  }
}

const record* record_reader::next() {
  if (done_) return nullptr;
  if (dxt_pending_) {
    // Leave the previous DXT record: past its segments, wherever the passes stopped.
    dxt_pending_ = false;
    if (!dxt_cut_) {
      stream_->seek(dxt_end_);
      if (stream_->position() < dxt_end_) dxt_cut_ = true;
    }
    if (dxt_cut_) {
      log_.note(what_ + ": record " + std::to_string(rec_.id) + " of rank " +
                std::to_string(rec_.rank) + " is cut short: it lists " +
                std::to_string(dxt_total_) + " segments, the data ends before all of them");
      done_ = true;
    }
  }
  const record* r = done_ ? nullptr : read_next();
  if (!r) {
    done_ = true;
    if (stream_ && !stream_->problem().empty())
      log_.note(stream_->problem() + " (" + std::to_string(count_) +
                " records read before it)");
    stream_.reset();
    return nullptr;
  }
  ++count_;
  return r;
}

const record* record_reader::read_next() {
  const record_layout& l = *region_.layout;
  const bool swap = log_.swapped_;
  record& r = rec_;
  r.components.clear();
  r.for_each_segment = nullptr;
  if (raw_.size() < 4096) raw_.resize(4096);

  if (l.kind == record_kind::counters) {
    std::size_t size = l.record_size();
    if (raw_.size() < size) raw_.resize(size);
    if (!read_bytes(raw_.data(), size, false)) return nullptr;
    fields f{raw_.data(), swap};
    r.id = f.u64(0);
    r.rank = f.i64(8);
    std::size_t at = base_record_size + l.pad_after_base;
    if (l.file_rec_id) {
      r.file_rec_id = f.u64(at);
      at += 8;
    }
    ints_.resize(l.ints.size());
    floats_.resize(l.floats.size());
    for (std::size_t i = 0; i < ints_.size(); ++i, at += 8) ints_[i] = f.i64(at);
    for (std::size_t i = 0; i < floats_.size(); ++i, at += 8) floats_[i] = f.f64(at);
    r.ints = ints_.data();
    r.floats = floats_.data();
    return &r;
  }

  if (l.kind == record_kind::heatmap) {
    // id, rank, bin width, nbins, then two pointers the runtime wrote with the record.
    if (!read_bytes(raw_.data(), 48, false)) return nullptr;
    fields f{raw_.data(), swap};
    r.id = f.u64(0);
    r.rank = f.i64(8);
    r.bin_width_seconds = f.f64(16);
    std::int64_t nbins = f.i64(24);
    constexpr std::int64_t max_bins = 1 << 22;
    if (nbins < 0 || nbins > max_bins) {
      log_.note(what_ + ": a record claims " + std::to_string(nbins) +
                " bins: it is corrupt, the records after it are not read");
      return nullptr;
    }
    if (!read_values(extra_, static_cast<std::uint64_t>(2 * nbins))) return nullptr;
    std::int64_t* write_bins = extra_.data();
    std::int64_t* read_bins = extra_.data() + nbins;
    // darshan-util evens out records one bin longer or shorter than the log's first (a
    // clock-skew bug of runtimes 3.4.0-3.4.3 with shared reductions disabled): the extra
    // bin is dropped, a missing one is added empty.
    if (first_nbins_ == 0) first_nbins_ = nbins;
    if (first_width_ == 0) first_width_ = r.bin_width_seconds;
    if (r.bin_width_seconds == first_width_ && nbins == first_nbins_ + 1) {
      --nbins;
    } else if (r.bin_width_seconds == first_width_ && nbins + 1 == first_nbins_) {
      std::vector<std::int64_t> grown(static_cast<std::size_t>(2 * (nbins + 1)), 0);
      std::copy(write_bins, write_bins + nbins, grown.begin());
      std::copy(read_bins, read_bins + nbins, grown.begin() + nbins + 1);
      extra_.assign(grown.begin(), grown.end());
      write_bins = extra_.data();
      read_bins = extra_.data() + nbins + 1;
      ++nbins;
    }
    r.nbins = nbins;
    r.write_bins = write_bins;
    r.read_bins = read_bins;
    return &r;
  }

  if (l.kind == record_kind::lustre) {
    if (!read_bytes(raw_.data(), 32, false)) return nullptr;
    fields f{raw_.data(), swap};
    r.id = f.u64(0);
    r.rank = f.i64(8);
    std::int64_t comps = f.i64(16), stripes = f.i64(24);
    if (comps < 0 || stripes < 0 || comps > 65536 || stripes > (1 << 24)) {
      log_.note(what_ + ": a record claims " + std::to_string(comps) + " components and " +
                std::to_string(stripes) +
                " stripes: it is corrupt, the records after it are not read");
      return nullptr;
    }
    const std::size_t comp_bytes = 7 * 8 + lustre_pool_name_size;
    // The runtime marks unused components with a stripe size of -1: they end the list.
    std::int64_t used_stripes = 0;
    bool unused = false;
    for (std::int64_t i = 0; i < comps; ++i) {
      if (!read_bytes(raw_.data(), comp_bytes, true)) return nullptr;
      fields c{raw_.data(), swap};
      lustre_component lc;
      for (int k = 0; k < 7; ++k) lc.counters[k] = c.i64(8 * static_cast<std::size_t>(k));
      if (lc.counters[0] == -1) unused = true;
      if (unused) continue;
      const char* pool = reinterpret_cast<const char*>(raw_.data() + 56);
      lc.pool_name.assign(pool, strnlen(pool, lustre_pool_name_size));
      used_stripes += std::clamp<std::int64_t>(lc.counters[1], 0, 1 << 24);
      r.components.push_back(std::move(lc));
    }
    if (!read_values(extra_, static_cast<std::uint64_t>(stripes))) return nullptr;
    // The OST ids of the components kept (those of unused components are dropped).
    if (used_stripes > stripes)
      log_.note(what_ + ": record " + std::to_string(r.id) + " lists " +
                std::to_string(stripes) + " OSTs but its components stripe over " +
                std::to_string(used_stripes) + ": the components' OSTs past the list are missing");
    extra_.resize(static_cast<std::size_t>(std::min(used_stripes, stripes)));
    r.ost_ids = extra_.data();
    r.ost_count = static_cast<std::int64_t>(extra_.size());
    return &r;
  }

  if (l.kind == record_kind::lustre_v1) {
    if (!read_bytes(raw_.data(), 56, false)) return nullptr;
    fields f{raw_.data(), swap};
    r.id = f.u64(0);
    r.rank = f.i64(8);
    r.v1_osts = f.i64(16);
    r.v1_mdts = f.i64(24);
    r.v1_stripe_offset = f.i64(32);
    std::int64_t stripe_size = f.i64(40), width = f.i64(48);
    if (width < 0 || width > (1 << 24)) {
      log_.note(what_ + ": a record claims a stripe width of " + std::to_string(width) +
                ": it is corrupt, the records after it are not read");
      return nullptr;
    }
    // As one component (darshan-util's reading of version 1).
    lustre_component lc;
    lc.counters[0] = stripe_size;
    lc.counters[1] = width;
    lc.counters[2] = -1;
    lc.counters[3] = -1;
    lc.counters[4] = 0;
    lc.counters[5] = -1;
    lc.counters[6] = -1;
    r.components.push_back(lc);
    if (!read_values(extra_, static_cast<std::uint64_t>(width))) return nullptr;
    r.ost_ids = extra_.data();
    r.ost_count = width;
    return &r;
  }

  // DXT: id, rank, shared flag, hostname[64], write and read counts, then the segments.
  constexpr std::size_t fixed = 16 + 8 + dxt_hostname_size + 16;
  if (!read_bytes(raw_.data(), fixed, false)) return nullptr;
  fields f{raw_.data(), swap};
  r.id = f.u64(0);
  r.rank = f.i64(8);
  r.shared_record = f.i64(16);
  const char* host = reinterpret_cast<const char*>(raw_.data() + 24);
  hostname_.assign(host, strnlen(host, dxt_hostname_size));
  r.hostname = hostname_;
  r.write_count = f.i64(24 + dxt_hostname_size);
  r.read_count = f.i64(32 + dxt_hostname_size);
  constexpr std::int64_t max_count = std::int64_t{1} << 40;
  if (r.write_count < 0 || r.read_count < 0 || r.write_count > max_count ||
      r.read_count > max_count) {
    log_.note(what_ + ": a record claims " + std::to_string(r.write_count) + " writes and " +
              std::to_string(r.read_count) +
              " reads: it is corrupt, the records after it are not read");
    return nullptr;
  }
  dxt_total_ =
      static_cast<std::uint64_t>(r.write_count) + static_cast<std::uint64_t>(r.read_count);
  dxt_start_ = stream_->position();
  dxt_end_ = dxt_start_ + dxt_total_ * l.dxt_segment_size;
  dxt_cut_ = false;
  dxt_pending_ = true;
  segments_.clear();
  if (dxt_total_ <= log_.options_.max_buffered_segments) {
    stream_segments(nullptr, &segments_);
    r.for_each_segment = [this](const std::function<void(const dxt_segment*, std::size_t)>& out) {
      if (!segments_.empty()) out(segments_.data(), segments_.size());
    };
  } else {
    r.for_each_segment = [this](const std::function<void(const dxt_segment*, std::size_t)>& out) {
      stream_->seek(dxt_start_);
      stream_segments(out, nullptr);
    };
  }
  return &r;
}

}  // namespace perfdm::darshan
