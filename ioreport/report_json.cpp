#include "ioreport/report_json.hpp"

#include "darshan/darshan_format.hpp"
#include "iosummary/module_counters.hpp"

namespace perfdm::ioreport {

using nlohmann::json;
using namespace iosummary;

namespace {

json case_json(const file_case& f) {
  return {{"file", f.name}, {"count", f.count}, {"of", f.of}, {"seconds", f.seconds},
          {"bytes", f.bytes}};
}

json kind_json(const file_kind& k) {
  return {{"count", k.count},
          {"avg_size", k.count > 0 ? k.total_size / double(k.count) : 0},
          {"max_size", k.max_size}};
}

json rows_json(const rank_rows& r) { return {{"ranks_per_row", r.ranks_per_row}, {"rows", r.rows}}; }

json heatmap_json(const heatmap& h) {
  return {{"name", h.name},         {"bin_width", h.bin_width},   {"layout", rows_json(h.layout)},
          {"bytes", h.bytes},       {"read_bins", h.read_bins},   {"write_bins", h.write_bins},
          {"records", h.records}};
}

json module_json(const module_summary& m, std::int64_t nprocs) {
  json o = {{"name", m.info.name},
            {"id", m.info.id},
            {"version", m.info.version},
            {"kib", double(m.info.stored_bytes) / 1024.0},
            {"partial", m.info.partial},
            {"readable", m.info.readable},
            {"records", m.records}};
  const module_counters* c = counters_of(m.info.id);
  if (!c || !m.info.readable) return o;
  o["overview"] = {{"files", m.files.total.count},
                   {"bytes_read", m.bytes_read},
                   {"bytes_written", m.bytes_written},
                   {"reads", m.reads},
                   {"writes", m.writes},
                   {"perf_mib_per_s", m.perf_mib_per_s},
                   {"slowest_rank_seconds", m.slowest_rank_seconds}};
  o["cost"] = {{"read", m.read_time / double(nprocs)},
               {"write", m.write_time / double(nprocs)},
               {"meta", m.meta_time / double(nprocs)},
               {"layered", c->layered}};
  o["file_counts"] = {{"total", kind_json(m.files.total)},
                      {"read_only", kind_json(m.files.read_only)},
                      {"write_only", kind_json(m.files.write_only)},
                      {"read_write", kind_json(m.files.read_write)}};
  json ops = json::array();
  for (const auto& b : c->operations) {
    double n = 0;
    for (int k : b.counters) n += m.sum(k);
    ops.push_back({{"label", b.label}, {"count", n}});
  }
  o["operations"] = ops;
  if (!c->read_sizes.empty()) {
    json read = json::array(), write = json::array();
    for (std::size_t b = 0; b < c->read_sizes.size(); ++b) {
      read.push_back(m.sum(c->read_sizes[b]));
      write.push_back(m.sum(c->write_sizes[b]));
    }
    o["sizes"] = {{"read", read}, {"write", write}};
  }
  if (!c->access_sizes.empty()) {
    json common = json::array();
    for (const auto& [size, count] : m.common_sizes) common.push_back({size, count});
    o["common_sizes"] = common;
    o["common_sizes_approximate"] = m.common_sizes_approximate;
  }
  if (m.info.id == darshan::POSIX_MOD) {
    auto n = [&](const char* name) { return m.sum(int_counter(darshan::POSIX_MOD, name)); };
    o["pattern"] = {{"reads", m.reads},
                    {"seq_reads", n("POSIX_SEQ_READS")},
                    {"consec_reads", n("POSIX_CONSEC_READS")},
                    {"writes", m.writes},
                    {"seq_writes", n("POSIX_SEQ_WRITES")},
                    {"consec_writes", n("POSIX_CONSEC_WRITES")}};
  }
  json top = json::array();
  for (const auto& f : m.at(file_metric::io_time).top) top.push_back(case_json(f));
  o["top_files"] = top;
  return o;
}

}  // namespace

json job_table_json(const source_job& j) {
  json meta = json::array();
  for (const auto& [k, v] : j.metadata) meta.push_back({k, v});
  return {{"log", j.log_path},       {"format", j.log_format}, {"library", j.library_version},
          {"exe", j.exe},            {"uid", j.uid},           {"jobid", j.jobid},
          {"nprocs", j.nprocs},      {"start", j.start_time},  {"end", j.end_time},
          {"run_time", j.run_time},  {"metadata", meta}};
}

json insight_json(const ioinsights::insight& i) {
  json files = json::array();
  for (const auto& f : i.files)
    files.push_back({{"file", f.file}, {"count", f.count}, {"share", f.share}, {"seconds", f.seconds}});
  return {{"code", i.code},       {"level", ioinsights::level_name(i.severity)},
          {"line", i.line},       {"fix", i.fix},
          {"seconds", i.seconds}, {"share", i.share},
          {"count", i.count},     {"unit", i.unit},
          {"files", files}};
}

json job_json(const job_summary& s, const std::vector<ioinsights::insight>& insights) {
  json o;
  o["kind"] = "job";
  o["job"] = job_table_json(s.job);
  json modules = json::array();
  for (const auto& m : s.modules) modules.push_back(module_json(m, std::max<std::int64_t>(s.job.nprocs, 1)));
  o["modules"] = modules;
  json ins = json::array();
  for (const auto& i : insights) ins.push_back(insight_json(i));
  o["insights"] = ins;
  double read = 0, written = 0;
  std::int64_t files = 0;
  for (const auto& m : s.modules) {
    const module_counters* c = counters_of(m.info.id);
    if (!c || c->layered) continue;
    read += m.bytes_read;
    written += m.bytes_written;
    files += m.files.total.count;
  }
  o["headline"] = {{"bytes_read", read}, {"bytes_written", written}, {"io_time", s.io_time},
                   {"files", files}};
  o["costs"] = {{"layout", rows_json(s.costs.layout)},
                {"read", s.costs.read},
                {"write", s.costs.write},
                {"meta", s.costs.meta}};
  json mounts = json::array();
  for (const auto& m : s.mounts)
    mounts.push_back({{"point", m.point}, {"type", m.type}, {"bytes_read", m.bytes_read},
                      {"bytes_written", m.bytes_written}, {"records", m.records}});
  o["mounts"] = mounts;
  json maps = json::array();
  for (const auto& h : s.heatmaps) maps.push_back(heatmap_json(h));
  o["heatmaps"] = maps;
  json dxt = json::array();
  for (const auto& d : s.dxt) {
    json top = json::array();
    for (const auto& f : d.top)
      top.push_back({{"file", f.name}, {"rank", f.of}, {"segments", f.count}, {"bytes", f.bytes},
                     {"seconds", f.seconds}});
    dxt.push_back({{"module", d.module},
                   {"records", d.records},
                   {"read_segments", d.read_segments},
                   {"write_segments", d.write_segments},
                   {"bytes_read", d.bytes_read},
                   {"bytes_written", d.bytes_written},
                   {"last_end", d.last_end},
                   {"heatmap", heatmap_json(d.map)},
                   {"top", top}});
  }
  o["dxt"] = dxt;
  o["notes"] = s.notes;
  return o;
}

}  // namespace perfdm::ioreport
