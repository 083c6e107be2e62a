#include "log/log_io_darshan.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "darshan/darshan_format.hpp"
#include "darshan/darshan_log_writer.hpp"
#include "log/log_io_records.hpp"
#include "log/log_modules.hpp"
#include "log/log_reader.hpp"

namespace perfdm {

namespace {

bool is_io_module(std::uint32_t id) {
  return id == posix_log_module_id || id == stdio_log_module_id || id == mpiio_log_module_id ||
         id == heatmap_log_module_id || id == dxt_posix_log_module_id ||
         id == dxt_mpiio_log_module_id;
}

// perfdm's module id of a name given to --module (perfdm's or Darshan's), 0 when none.
std::uint32_t io_module_named(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (name == "posix") return posix_log_module_id;
  if (name == "stdio") return stdio_log_module_id;
  if (name == "mpiio" || name == "mpi-io") return mpiio_log_module_id;
  if (name == "heatmap") return heatmap_log_module_id;
  if (name == "dxt_posix") return dxt_posix_log_module_id;
  if (name == "dxt_mpiio") return dxt_mpiio_log_module_id;
  return 0;
}

int darshan_module_of(std::uint32_t id) {
  if (id == posix_log_module_id) return darshan::POSIX_MOD;
  if (id == stdio_log_module_id) return darshan::STDIO_MOD;
  if (id == mpiio_log_module_id) return darshan::MPIIO_MOD;
  if (id == heatmap_log_module_id) return darshan::HEATMAP_MOD;
  if (id == dxt_mpiio_log_module_id) return darshan::DXT_MPIIO_MOD;
  return darshan::DXT_POSIX_MOD;
}

darshan::job_info job_of(const job_record& j) {
  darshan::job_info d;
  d.uid = std::int64_t(getuid());
  d.start_time_sec = j.start_ns / 1000000000;
  d.start_time_nsec = j.start_ns % 1000000000;
  d.end_time_sec = j.end_ns / 1000000000;
  d.end_time_nsec = j.end_ns % 1000000000;
  d.jobid = j.pids.empty() ? 0 : std::int64_t(j.pids.front());
  d.metadata.emplace_back("lib_ver", "perfdm io");
  // Command line and mount table share Darshan's 3015 characters: mounts that do not fit are
  // left out, as Darshan's runtime leaves them.
  d.exe = j.command_line.substr(0, darshan::exe_len);
  std::size_t used = d.exe.size();
  for (const auto& [k, v] : j.metadata) {
    if (k == "nprocs") d.nprocs = std::stoll(v);
    if (k != "mount") continue;
    const auto tab = v.find('\t');
    darshan::mount m{v.substr(0, tab), tab == std::string::npos ? "" : v.substr(tab + 1)};
    const std::size_t cost = 2 + m.point.size() + m.type.size();
    if (used + cost > darshan::exe_len) break;
    used += cost;
    d.mounts.push_back(m);
  }
  return d;
}

}  // namespace

bool has_io_modules(const std::string& path) {
  log_reader log(path);
  for (const auto& r : log.regions())
    if (is_io_module(r.id)) return true;
  return false;
}

void write_io_log_as_darshan(const std::string& perfdm_log, const std::string& darshan_log,
                             const std::vector<std::string>& modules) {
  log_reader log(perfdm_log);
  std::set<std::uint32_t> wanted;
  for (const auto& m : modules) {
    const std::uint32_t id = io_module_named(m);
    if (id == 0)
      throw log_error("--module " + m +
                      ": not an I/O module (posix, stdio, mpiio, heatmap, dxt_posix, dxt_mpiio)");
    wanted.insert(id);
  }
  std::vector<const log_region*> io;
  const log_region* job = nullptr;
  const log_region* names = nullptr;
  for (const auto& r : log.regions()) {
    if (r.id == logfmt::region_job) job = &r;
    if (r.id == logfmt::region_names) names = &r;
    if (is_io_module(r.id) && (wanted.empty() || wanted.count(r.id))) io.push_back(&r);
  }
  if (io.empty())
    throw log_error(
        "no I/O module (posix, stdio, mpiio, heatmap, dxt_posix, dxt_mpiio) to convert");
  // Darshan orders regions by its module ids.
  std::sort(io.begin(), io.end(), [](const log_region* a, const log_region* b) {
    return darshan_module_of(a->id) < darshan_module_of(b->id);
  });
  darshan::log_file_writer w(darshan_log, {});
  w.write_job(job != nullptr ? job_of(log.read_job(*job)) : darshan::job_info{});
  if (names != nullptr) {
    const log_name_table t = log.read_names(*names);
    for (const auto& [id, n] : t.names) w.add_name(id, n.bytes);
  }
  for (const log_region* r : io) {
    const int module = darshan_module_of(r->id);
    w.begin_module(module, darshan::module_versions[module]);
    if ((r->flags & logfmt::flag_partial) != 0) w.set_partial(module);
    log.for_each_record(*r, [&](const std::uint8_t* p, std::size_t n) {
      if (module == darshan::POSIX_MOD) {
        const log_posix_record rec = decode_posix_record(p, n);
        w.add_bytes(&rec, darshan::posix_record_size);
      } else if (module == darshan::STDIO_MOD) {
        const log_stdio_record rec = decode_stdio_record(p, n);
        w.add_bytes(&rec, sizeof rec);
      } else if (module == darshan::MPIIO_MOD) {
        const log_mpiio_record rec = decode_mpiio_record(p, n);
        w.add_bytes(&rec, sizeof rec);
      } else if (module == darshan::HEATMAP_MOD) {
        const log_heatmap_record h = decode_heatmap_record(p, n);
        auto b = w.record();
        b.u64(h.id).i64(h.rank).f64(h.bin_width_seconds).i64(std::int64_t(h.write_bins.size()));
        b.u64(0).u64(0);  // the two pointers Darshan's runtime writes with the record
        for (const auto v : h.write_bins) b.i64(v);
        for (const auto v : h.read_bins) b.i64(v);
        w.add_record(b);
      } else {
        const log_trace_record t = decode_trace_record(p, n);
        auto b = w.record();
        b.u64(t.id).i64(t.rank).i64(0).chars(t.hostname, darshan::dxt_hostname_size);
        b.i64(std::int64_t(t.writes.size())).i64(std::int64_t(t.reads.size()));
        for (const auto* list : {&t.writes, &t.reads}) {
          for (const auto& s : *list)
            b.i64(s.offset).i64(s.length).f64(s.start).f64(s.end).u64(s.thread);
        }
        w.add_record(b);
      }
    });
  }
  w.finish();
}

}  // namespace perfdm
