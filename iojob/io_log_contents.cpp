#include "iojob/io_log_contents.hpp"

#include "log/log_modules.hpp"
#include "log/log_reader.hpp"

namespace perfdm::io {

const std::string& io_log_contents::name(std::uint64_t id) const {
  static const std::string none;
  auto it = names.find(id);
  return it == names.end() ? none : it->second;
}

std::string io_log_contents::metadata(const std::string& key) const {
  for (const auto& [k, v] : job.metadata)
    if (k == key) return v;
  return {};
}

io_log_contents read_io_log(const std::string& path) {
  log_reader log(path);
  io_log_contents c;
  for (const auto& r : log.regions()) {
    const bool partial = (r.flags & logfmt::flag_partial) != 0;
    if (r.id == logfmt::region_job) {
      c.job = log.read_job(r);
    } else if (r.id == logfmt::region_names) {
      const log_name_table t = log.read_names(r);
      for (const auto& [id, n] : t.names) c.names.emplace(id, n.bytes);
      c.names_partial = partial || t.dropped > 0;
    } else if (r.id == posix_log_module_id) {
      c.posix_partial = partial;
      log.for_each_record(r, [&](const std::uint8_t* p, std::size_t n) {
        c.posix.push_back(decode_posix_record(p, n));
      });
    } else if (r.id == stdio_log_module_id) {
      c.stdio_partial = partial;
      log.for_each_record(r, [&](const std::uint8_t* p, std::size_t n) {
        c.stdio.push_back(decode_stdio_record(p, n));
      });
    } else if (r.id == mpiio_log_module_id) {
      c.mpiio_partial = partial;
      log.for_each_record(r, [&](const std::uint8_t* p, std::size_t n) {
        c.mpiio.push_back(decode_mpiio_record(p, n));
      });
    } else if (r.id == heatmap_log_module_id) {
      log.for_each_record(r, [&](const std::uint8_t* p, std::size_t n) {
        c.heatmaps.push_back(decode_heatmap_record(p, n));
      });
    } else if (r.id == dxt_posix_log_module_id) {
      c.trace_partial = c.trace_partial || partial;
      log.for_each_record(r, [&](const std::uint8_t* p, std::size_t n) {
        c.traces.push_back(decode_trace_record(p, n));
      });
    } else if (r.id == dxt_mpiio_log_module_id) {
      c.trace_partial = c.trace_partial || partial;
      log.for_each_record(r, [&](const std::uint8_t* p, std::size_t n) {
        c.mpiio_traces.push_back(decode_trace_record(p, n));
      });
    }
  }
  return c;
}

}  // namespace perfdm::io
