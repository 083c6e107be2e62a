#include "iolive/live_segment.hpp"

#include <filesystem>
#include <initializer_list>
#include <fstream>
#include <sstream>

#include "native/pc_resources.hpp"

namespace perfdm::iolive {

file_counts& file_counts::operator+=(const file_counts& o) {
  read_bytes += o.read_bytes;
  write_bytes += o.write_bytes;
  read_ops += o.read_ops;
  write_ops += o.write_ops;
  meta_ops += o.meta_ops;
  read_time += o.read_time;
  write_time += o.write_time;
  meta_time += o.meta_time;
  mpiio_read_bytes += o.mpiio_read_bytes;
  mpiio_write_bytes += o.mpiio_write_bytes;
  mpiio_read_ops += o.mpiio_read_ops;
  mpiio_write_ops += o.mpiio_write_ops;
  mpiio_collective_ops += o.mpiio_collective_ops;
  mpiio_meta_ops += o.mpiio_meta_ops;
  mpiio_read_time += o.mpiio_read_time;
  mpiio_write_time += o.mpiio_write_time;
  mpiio_meta_time += o.mpiio_meta_time;
  if (o.first_realtime_ns != 0 &&
      (first_realtime_ns == 0 || o.first_realtime_ns < first_realtime_ns))
    first_realtime_ns = o.first_realtime_ns;
  return *this;
}

namespace {

bool all_of(const std::string& s, std::size_t from, std::size_t to, const char* chars) {
  if (from >= to) return false;
  for (std::size_t i = from; i < to; ++i)
    if (std::string(chars).find(s[i]) == std::string::npos) return false;
  return true;
}

// `PID.TICKS.seg` in a directory `perfdm-io.*`.
bool is_segment_path(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return false;
  const auto dir_slash = path.rfind('/', slash - 1);
  const std::string dir = path.substr(dir_slash + 1, slash - dir_slash - 1);
  if (dir.compare(0, 10, "perfdm-io.") != 0) return false;
  const std::string name = path.substr(slash + 1);
  if (name.size() < 9 || name.compare(name.size() - 4, 4, ".seg") != 0) return false;
  const auto dot = name.find('.');
  return all_of(name, 0, dot, "0123456789") &&
         all_of(name, dot + 1, name.size() - 4, "0123456789abcdef");
}

std::string pid_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return path.substr(slash + 1, path.find('.', slash) - slash - 1);
}

}  // namespace

std::vector<std::string> segment_paths_in_maps(const std::string& maps) {
  std::vector<std::string> out;
  std::istringstream in(maps);
  for (std::string line; std::getline(in, line);) {
    // address perms offset dev inode path: the path starts at the first '/' after the inode.
    const auto at = line.find(" /");
    if (at == std::string::npos) continue;
    const std::string path = line.substr(at + 1);
    if (!is_segment_path(path)) continue;  // " (deleted)" or another file
    if (out.empty() || out.back() != path) out.push_back(path);
  }
  return out;
}

std::string io_job_dir_of(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string key = "PERFDM_IO_JOB=";
  for (std::string entry; std::getline(in, entry, '\0');)
    if (entry.compare(0, key.size(), key) == 0) return entry.substr(key.size());
  return {};
}

std::string find_io_segment(int pid, const std::string& job_dir) {
  const std::string own = std::to_string(pid);
  if (std::ifstream in("/proc/" + own + "/maps"); in) {
    std::stringstream text;
    text << in.rdbuf();
    const auto paths = segment_paths_in_maps(text.str());
    for (auto it = paths.rbegin(); it != paths.rend(); ++it)
      if (pid_of(*it) == own) return *it;
    if (!paths.empty()) return paths.back();
  }
  if (job_dir.empty()) return {};
  // Its newest segment: the ticks after the pid are the time it was made.
  std::string best;
  unsigned long long best_ticks = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(job_dir, ec)) {
    const std::string path = e.path().string();
    if (!is_segment_path(path) || pid_of(path) != own) continue;
    const std::string name = e.path().filename().string();
    const auto ticks = std::stoull(name.substr(own.size() + 1), nullptr, 16);
    if (best.empty() || ticks > best_ticks) {
      best = path;
      best_ticks = ticks;
    }
  }
  return best;
}

live_reading totals_of(const io::segment_snapshot& s, std::uint64_t now_ticks,
                       std::int64_t now_realtime_ns) {
  using namespace perfdm::darshan;
  const io::segment_header& h = s.header;
  live_reading r;
  r.segment = s.path;
  r.start_realtime_ns = h.start_realtime_ns;
  r.ended = h.state != io::segment_running;
  const bool has_end = r.ended && h.end_ticks > h.start_ticks;
  const auto clock = io::tick_calibration::from(
      h.start_ticks, h.start_realtime_ns, has_end ? h.end_ticks : now_ticks,
      has_end ? h.end_realtime_ns : now_realtime_ns, io::tick_kind(h.tick_kind));
  auto seconds = [&](std::int64_t ticks) { return ticks > 0 ? clock.seconds(ticks) : 0.0; };
  auto count = [](std::int64_t v) { return v > 0 ? double(v) : 0.0; };
  // The earliest of a record's start timestamps (absolute ticks), as realtime.
  auto first = [&](std::initializer_list<std::int64_t> starts) -> std::int64_t {
    std::int64_t t = 0;
    for (auto v : starts)
      if (v > 0 && (t == 0 || v < t)) t = v;
    return t == 0 ? 0 : clock.realtime_of(std::uint64_t(t));
  };
  for (std::size_t i = 0; i < s.posix.size(); ++i) {
    const auto& c = s.posix[i].counters;
    const auto& t = s.posix[i].fticks;
    const auto& x = s.posix[i].extra;
    file_counts f;
    f.read_bytes = count(c[POSIX_BYTES_READ]);
    f.write_bytes = count(c[POSIX_BYTES_WRITTEN]);
    f.read_ops = count(c[POSIX_READS]);
    f.write_ops = count(c[POSIX_WRITES]);
    f.meta_ops = count(c[POSIX_OPENS]) + count(c[POSIX_SEEKS]) + count(c[POSIX_STATS]) +
                 count(c[POSIX_FSYNCS]) + count(c[POSIX_FDSYNCS]) +
                 count(c[POSIX_RENAME_SOURCES]) + count(x[POSIX_TRUNCATES]) +
                 count(x[POSIX_UNLINKS]) + count(x[POSIX_MKDIRS]);
    f.read_time = seconds(t[POSIX_F_READ_TIME]);
    f.write_time = seconds(t[POSIX_F_WRITE_TIME]);
    f.meta_time = seconds(t[POSIX_F_META_TIME]);
    f.first_realtime_ns = first({t[POSIX_F_OPEN_START_TIMESTAMP], t[POSIX_F_READ_START_TIMESTAMP],
                                 t[POSIX_F_WRITE_START_TIMESTAMP]});
    r.files[native::file_resource(s.posix_names[i])] += f;
  }
  for (std::size_t i = 0; i < s.stdio.size(); ++i) {
    const auto& c = s.stdio[i].counters;
    const auto& t = s.stdio[i].fticks;
    file_counts f;
    f.read_bytes = count(c[STDIO_BYTES_READ]);
    f.write_bytes = count(c[STDIO_BYTES_WRITTEN]);
    f.read_ops = count(c[STDIO_READS]);
    f.write_ops = count(c[STDIO_WRITES]);
    f.meta_ops = count(c[STDIO_OPENS]) + count(c[STDIO_SEEKS]) + count(c[STDIO_FLUSHES]);
    f.read_time = seconds(t[STDIO_F_READ_TIME]);
    f.write_time = seconds(t[STDIO_F_WRITE_TIME]);
    f.meta_time = seconds(t[STDIO_F_META_TIME]);
    f.first_realtime_ns = first({t[STDIO_F_OPEN_START_TIMESTAMP], t[STDIO_F_READ_START_TIMESTAMP],
                                 t[STDIO_F_WRITE_START_TIMESTAMP]});
    r.files[native::file_resource(s.stdio_names[i])] += f;
  }
  for (std::size_t i = 0; i < s.mpiio.size(); ++i) {
    const auto& c = s.mpiio[i].counters;
    const auto& t = s.mpiio[i].fticks;
    file_counts f;
    f.mpiio_read_bytes = count(c[MPIIO_BYTES_READ]);
    f.mpiio_write_bytes = count(c[MPIIO_BYTES_WRITTEN]);
    f.mpiio_read_ops = count(c[MPIIO_INDEP_READS]) + count(c[MPIIO_COLL_READS]) +
                       count(c[MPIIO_SPLIT_READS]) + count(c[MPIIO_NB_READS]);
    f.mpiio_write_ops = count(c[MPIIO_INDEP_WRITES]) + count(c[MPIIO_COLL_WRITES]) +
                        count(c[MPIIO_SPLIT_WRITES]) + count(c[MPIIO_NB_WRITES]);
    f.mpiio_collective_ops = count(c[MPIIO_COLL_READS]) + count(c[MPIIO_COLL_WRITES]) +
                             count(c[MPIIO_SPLIT_READS]) + count(c[MPIIO_SPLIT_WRITES]);
    f.mpiio_meta_ops = count(c[MPIIO_INDEP_OPENS]) + count(c[MPIIO_COLL_OPENS]) +
                       count(c[MPIIO_SYNCS]) + count(c[MPIIO_VIEWS]);
    f.mpiio_read_time = seconds(t[MPIIO_F_READ_TIME]);
    f.mpiio_write_time = seconds(t[MPIIO_F_WRITE_TIME]);
    f.mpiio_meta_time = seconds(t[MPIIO_F_META_TIME]);
    f.first_realtime_ns = first({t[MPIIO_F_OPEN_START_TIMESTAMP], t[MPIIO_F_READ_START_TIMESTAMP],
                                 t[MPIIO_F_WRITE_START_TIMESTAMP]});
    r.files[native::file_resource(s.mpiio_names[i])] += f;
  }
  r.files.erase("");  // a record whose name did not fit the name area
  return r;
}

}  // namespace perfdm::iolive
