#include "iojob/io_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "iojob/access_sizes.hpp"

namespace perfdm::io {

namespace {

using namespace perfdm::darshan;

// What the words are made of, summed over a file's records.
struct pattern_counts {
  std::int64_t reads = 0, writes = 0, seq_reads = 0, seq_writes = 0, opens = 0;
  std::int64_t bytes_read = 0, bytes_written = 0;
  access_sizes sizes;

  void add(const log_posix_record& r) {
    reads += r.counters[POSIX_READS];
    writes += r.counters[POSIX_WRITES];
    seq_reads += r.counters[POSIX_SEQ_READS];
    seq_writes += r.counters[POSIX_SEQ_WRITES];
    opens += r.counters[POSIX_OPENS];
    bytes_read += r.counters[POSIX_BYTES_READ];
    bytes_written += r.counters[POSIX_BYTES_WRITTEN];
    sizes.add(&r.counters[POSIX_ACCESS1_ACCESS], &r.counters[POSIX_ACCESS1_COUNT]);
  }
};

std::string words(const pattern_counts& p) {
  const bool reading = p.bytes_read >= p.bytes_written && p.reads > 0;
  const std::int64_t ops = reading ? p.reads : p.writes;
  if (ops == 0) {
    return p.opens > 0 ? "opened " + std::to_string(p.opens) + (p.opens == 1 ? " time" : " times") +
                             ", no reads or writes"
                       : "no reads or writes";
  }
  const std::int64_t bytes = reading ? p.bytes_read : p.bytes_written;
  // The most frequent size among the records' top four, else the mean.
  const std::int64_t size = p.sizes.most_frequent(bytes / ops);
  // An open's first access starts at offset 0 and is not "sequential" by Darshan's rule.
  const std::int64_t seq = reading ? p.seq_reads : p.seq_writes;
  const std::int64_t not_seq = std::max<std::int64_t>(0, ops - seq - p.opens);
  const double f = double(not_seq) / double(ops);
  std::string w = size_in_words(size) + (f >= 0.5 ? " random " : " sequential ") +
                  (reading ? "reads" : "writes") + ", " + percent_in_words(f) + " not sequential";
  const std::int64_t other = reading ? p.writes : p.reads;
  if (other > 0) {
    w += " (and " + std::to_string(other) + (reading ? " writes" : " reads") + ")";
  }
  return w;
}

}  // namespace

std::string percent_in_words(double fraction) {
  char b[16];
  std::snprintf(b, sizeof b, "%.0f %%", fraction * 100);
  return b;
}

std::string seconds_in_words(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f s", s);
  return b;
}

std::string size_in_words(std::int64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (std::fabs(v) >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char b[32];
  if (u == 0 || v == std::floor(v)) {
    std::snprintf(b, sizeof b, "%.0f %s", v, units[u]);
  } else {
    std::snprintf(b, sizeof b, "%.1f %s", v, units[u]);
  }
  return b;
}

std::string access_pattern(const log_posix_record& r) {
  pattern_counts p;
  p.add(r);
  return words(p);
}

io_summary summarize(const io_log_contents& log, std::size_t top) {
  io_summary s;
  s.command = log.job.command_line;
  s.run_seconds = double(log.job.end_ns - log.job.start_ns) * 1e-9;
  s.processes = log.job.pids.size();
  try {
    if (const auto n = log.metadata("nprocs"); !n.empty()) s.processes = std::stoul(n);
  } catch (const std::exception&) {
  }
  for (const auto& [k, v] : log.job.metadata) {
    if (k == "process" && v.find("(MPI rank ") != std::string::npos) s.mpi = true;
    if (k != "outside_ranks") continue;
    // "PID FILES BYTES_READ BYTES_WRITTEN EXE[ notes]" (iojob/job_log.cpp)
    std::istringstream in(v);
    std::uint64_t pid = 0;
    std::size_t files = 0;
    std::int64_t read = 0, written = 0;
    std::string exe;
    if (!(in >> pid >> files >> read >> written >> exe)) continue;
    auto& o = s.outside_ranks;
    ++o.processes;
    o.files += files;
    o.bytes_read += read;
    o.bytes_written += written;
    const std::string program = exe.substr(exe.rfind('/') + 1);
    if ((", " + o.programs + ", ").find(", " + program + ", ") == std::string::npos)
      o.programs += (o.programs.empty() ? "" : ", ") + program;
  }
  struct file_acc {
    file_summary f;
    pattern_counts p;
    std::map<std::int64_t, bool> ranks;
  };
  std::map<std::string, file_acc> files;
  for (const auto& r : log.posix) {
    file_acc& a = files[log.name(r.id)];
    a.p.add(r);
    a.ranks[r.rank] = true;
    a.f.shared = a.f.shared || r.rank == -1;
    a.f.read_time += r.fcounters[POSIX_F_READ_TIME];
    a.f.write_time += r.fcounters[POSIX_F_WRITE_TIME];
    a.f.meta_time += r.fcounters[POSIX_F_META_TIME];
    a.f.bytes_read += r.counters[POSIX_BYTES_READ];
    a.f.bytes_written += r.counters[POSIX_BYTES_WRITTEN];
    a.f.reads += r.counters[POSIX_READS];
    a.f.writes += r.counters[POSIX_WRITES];
  }
  for (const auto& r : log.stdio) {
    file_acc& a = files[log.name(r.id)];
    a.ranks[r.rank] = true;
    a.f.shared = a.f.shared || r.rank == -1;
    a.f.read_time += r.fcounters[STDIO_F_READ_TIME];
    a.f.write_time += r.fcounters[STDIO_F_WRITE_TIME];
    a.f.meta_time += r.fcounters[STDIO_F_META_TIME];
    a.f.bytes_read += r.counters[STDIO_BYTES_READ];
    a.f.bytes_written += r.counters[STDIO_BYTES_WRITTEN];
    a.f.reads += r.counters[STDIO_READS];
    a.f.writes += r.counters[STDIO_WRITES];
  }
  for (const auto& r : log.mpiio) {
    file_acc& a = files[log.name(r.id)];
    a.f.mpiio.add(r);
    s.mpiio.add(r);
  }
  std::vector<file_summary> all;
  for (auto& [name, a] : files) {
    a.f.name = name;
    if (!a.f.mpiio.empty()) {
      a.f.mpiio.files = 1;
      a.f.mpiio.finish(s.processes);
      ++s.mpiio.files;
      if (a.ranks.empty()) {
        // No POSIX or STDIO record (a path the exclusions left out beneath MPI-IO): the file's
        // bytes and times are MPI-IO's.
        a.f.shared = a.f.mpiio.rank_ids.count(-1) != 0;
        a.ranks[0] = true;
        a.f.bytes_read = a.f.mpiio.bytes_read;
        a.f.bytes_written = a.f.mpiio.bytes_written;
        a.f.read_time = a.f.mpiio.read_time;
        a.f.write_time = a.f.mpiio.write_time;
        a.f.meta_time = a.f.mpiio.meta_time;
        a.f.processes = a.f.mpiio.ranks;
      }
    }
    if (a.f.processes == 0) a.f.processes = a.f.shared ? s.processes : a.ranks.size();
    if (!a.f.mpiio.empty() && a.p.reads + a.p.writes + a.f.reads + a.f.writes == 0) {
      a.f.pattern = mpiio_file_text(a.f.mpiio);
    } else if (a.p.reads + a.p.writes > 0 || a.f.reads + a.f.writes == 0) {
      a.f.pattern = words(a.p);
    } else {
      const bool reading = a.f.bytes_read >= a.f.bytes_written;
      const std::int64_t ops = reading ? a.f.reads : a.f.writes;
      a.f.pattern =
          "stdio " + std::string(reading ? "reads" : "writes") + " of " +
          size_in_words(ops > 0 ? (reading ? a.f.bytes_read : a.f.bytes_written) / ops : 0) +
          " on average";
    }
    s.bytes_read += a.f.bytes_read;
    s.bytes_written += a.f.bytes_written;
    s.read_time += a.f.read_time;
    s.write_time += a.f.write_time;
    s.meta_time += a.f.meta_time;
    if (a.f.bytes_read > 0) ++s.files_read;
    if (a.f.bytes_written > 0) ++s.files_written;
    all.push_back(a.f);
  }
  s.files = all.size();
  s.mpiio.finish(s.processes);
  std::stable_sort(all.begin(), all.end(), [](const file_summary& a, const file_summary& b) {
    if (a.io_time() != b.io_time()) return a.io_time() > b.io_time();
    return a.bytes_read + a.bytes_written > b.bytes_read + b.bytes_written;
  });
  all.resize(std::min(all.size(), top));
  s.top = std::move(all);

  s.partial = log.posix_partial || log.stdio_partial || log.mpiio_partial || log.trace_partial ||
              log.names_partial;
  if (log.posix_partial) {
    s.missing.push_back(
        "partial: a process reached its POSIX record limit; files after the first ones it "
        "opened are not counted (--max-records)");
  }
  if (log.stdio_partial) {
    s.missing.push_back(
        "partial: a process reached its STDIO record limit; streams after the first ones are "
        "not counted (--max-records)");
  }
  if (log.mpiio_partial) {
    s.missing.push_back(
        "partial: a process reached its MPI-IO record limit; files after the first ones it "
        "opened are not counted (--max-records)");
  }
  if (log.trace_partial)
    s.missing.push_back("partial: the trace filled its memory; later calls are not traced");
  if (log.names_partial) s.missing.push_back("partial: some names did not fit in the name area");
  if (const auto u = log.metadata("uncounted_calls"); !u.empty()) {
    s.missing.push_back(u + " calls made from signal handlers inside the library were not counted");
  }
  std::size_t unfinished = 0;
  for (const auto& [k, v] : log.job.metadata)
    if (k == "process" && v.find("(did not exit)") != std::string::npos) ++unfinished;
  if (unfinished > 0) {
    s.missing.push_back(std::to_string(unfinished) +
                        " processes did not exit (killed): their counts stop at "
                        "their last call");
  }
  return s;
}

std::string summary_text(const io_summary& s) {
  std::string o;
  char line[512];
  std::snprintf(line, sizeof line, "%zu %s, %zu %s (%zu read, %zu written), %s read, %s written\n",
                s.processes,
                s.mpi ? (s.processes == 1 ? "MPI rank" : "MPI ranks")
                      : (s.processes == 1 ? "process" : "processes"),
                s.files, s.files == 1 ? "file" : "files", s.files_read, s.files_written,
                size_in_words(s.bytes_read).c_str(), size_in_words(s.bytes_written).c_str());
  o += line;
  o += "I/O time: read " + seconds_in_words(s.read_time) + ", write " +
       seconds_in_words(s.write_time) + ", metadata " + seconds_in_words(s.meta_time) + " (run " +
       seconds_in_words(s.run_seconds) + ")\n";
  if (!s.mpiio.empty()) o += mpiio_totals_text(s.mpiio);
  if (const auto& x = s.outside_ranks; x.processes > 0) {
    o += "not ranks, left out of the records: " + std::to_string(x.processes) +
         (x.processes == 1 ? " process (" : " processes (") + x.programs + ") with " +
         std::to_string(x.files) + " file records, " + size_in_words(x.bytes_read) + " read, " +
         size_in_words(x.bytes_written) + " written\n";
  }
  if (!s.top.empty()) {
    o += "top files by I/O time:\n";
    for (const auto& f : s.top) {
      std::snprintf(line, sizeof line, "  %9s  %s%s\n             %s read, %s written: %s\n",
                    seconds_in_words(f.io_time()).c_str(), f.name.c_str(),
                    !f.shared ? ""
                    : s.mpi   ? " (every rank)"
                              : " (every process)",
                    size_in_words(f.bytes_read).c_str(), size_in_words(f.bytes_written).c_str(),
                    f.pattern.c_str());
      o += line;
      if (!f.mpiio.empty() && f.pattern != mpiio_file_text(f.mpiio))
        o += "             " + mpiio_file_text(f.mpiio) + "\n";
    }
  }
  if (!s.partial) o += "partial: no\n";
  for (const auto& m : s.missing) o += m + "\n";
  return o;
}

std::string summary_json(const io_summary& s) {
  nlohmann::json j;
  j["command"] = s.command;
  j["run_seconds"] = s.run_seconds;
  j["processes"] = s.processes;
  j["mpi"] = s.mpi;
  if (const auto& x = s.outside_ranks; x.processes > 0) {
    j["outside_ranks"] = {{"processes", x.processes},
                          {"programs", x.programs},
                          {"files", x.files},
                          {"bytes_read", x.bytes_read},
                          {"bytes_written", x.bytes_written}};
  } else {
    j["outside_ranks"] = nullptr;
  }
  j["files"] = s.files;
  j["files_read"] = s.files_read;
  j["files_written"] = s.files_written;
  j["bytes_read"] = s.bytes_read;
  j["bytes_written"] = s.bytes_written;
  j["read_seconds"] = s.read_time;
  j["write_seconds"] = s.write_time;
  j["metadata_seconds"] = s.meta_time;
  j["mpiio"] = s.mpiio.empty() ? nlohmann::json() : mpiio_json(s.mpiio);
  j["top"] = nlohmann::json::array();
  for (const auto& f : s.top) {
    nlohmann::json& file = j["top"].emplace_back(nlohmann::json{{"name", f.name},
                                                                {"shared", f.shared},
                                                                {"processes", f.processes},
                                                                {"io_seconds", f.io_time()},
                                                                {"read_seconds", f.read_time},
                                                                {"write_seconds", f.write_time},
                                                                {"metadata_seconds", f.meta_time},
                                                                {"bytes_read", f.bytes_read},
                                                                {"bytes_written", f.bytes_written},
                                                                {"reads", f.reads},
                                                                {"writes", f.writes},
                                                                {"pattern", f.pattern}});
    if (!f.mpiio.empty()) {
      file["mpiio"] = mpiio_json(f.mpiio);
      file["mpiio"]["pattern"] = mpiio_file_text(f.mpiio);
    }
  }
  j["partial"] = s.partial;
  j["missing"] = s.missing;
  // Names need not be UTF-8: invalid bytes become U+FFFD rather than an exception.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace perfdm::io
