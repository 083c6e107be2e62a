#include "iojob/job_log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>

#include "iojob/darshan_records.hpp"
#include "iojob/heatmap_output.hpp"
#include "iojob/shared_reduction.hpp"
#include "log/log_core.hpp"
#include "log/log_modules.hpp"

namespace perfdm::io {

namespace {

struct process {
  const segment_snapshot* s;
  std::int64_t rank;
  time_base time;
  std::int64_t end_ns;
};

// The latest end timestamp of any record: when a process that was killed made its last call.
std::int64_t last_call_ns(const segment_snapshot& s, const tick_calibration& c) {
  std::int64_t last = 0;
  auto see = [&](std::int64_t ticks) {
    if (ticks != 0) last = std::max(last, c.realtime_of(std::uint64_t(ticks)));
  };
  for (const auto& f : s.posix) {
    for (int i = POSIX_F_OPEN_END_TIMESTAMP; i <= POSIX_F_CLOSE_END_TIMESTAMP; ++i)
      see(f.fticks[i]);
  }
  for (const auto& f : s.stdio) {
    for (int i = STDIO_F_OPEN_END_TIMESTAMP; i <= STDIO_F_READ_END_TIMESTAMP; ++i) see(f.fticks[i]);
  }
  for (const auto& f : s.mpiio) {
    for (int i = MPIIO_F_OPEN_END_TIMESTAMP; i <= MPIIO_F_CLOSE_END_TIMESTAMP; ++i)
      see(f.fticks[i]);
  }
  return std::max(last, s.header.start_realtime_ns);
}

// Records of one module from every process, by id in order of first appearance, reduced to
// one of rank -1 when each of the job's `ranks` processes has the file (and there is more
// than one).
template <class Record>
std::vector<Record> reduce_module(const std::vector<std::vector<Record>>& per_process,
                                  std::size_t ranks, std::size_t& shared) {
  std::vector<Record> out;
  if (ranks <= 1) {
    for (const auto& list : per_process) out.insert(out.end(), list.begin(), list.end());
    return out;
  }
  std::unordered_map<std::uint64_t, std::size_t> holders;
  for (const auto& list : per_process) {
    for (const auto& r : list) ++holders[r.id];
  }
  std::map<std::uint64_t, std::vector<Record>> everywhere;
  for (const auto& list : per_process) {
    for (const auto& r : list) {
      if (holders[r.id] == ranks) {
        everywhere[r.id].push_back(r);
      } else {
        out.push_back(r);
      }
    }
  }
  // Shared records after the per-rank ones, as Darshan's rank 0 writes them.
  for (auto& [id, records] : everywhere) {
    out.push_back(reduce_shared(std::move(records)));
    ++shared;
  }
  return out;
}

// A forked child that counted nothing before it exec'd or exited is not a process of the log:
// until it execs it is the same program as its parent.
bool forked_and_idle(const segment_snapshot& s) {
  if (s.header.fork_parent == 0 || !s.heatmap.empty() || !s.trace.empty()) return false;
  for (const auto& f : s.posix)
    if (used_in_child(f)) return false;
  for (const auto& f : s.stdio)
    if (used_in_child(f)) return false;
  return s.mpiio.empty();
}

// What a process outside an MPI job's ranks (mpirun, its daemons, the forks before they exec
// a rank) counted, for the job record: "PID FILES BYTES_READ BYTES_WRITTEN EXE[ notes]".
std::string outside_ranks_line(const segment_snapshot& s, const time_base& time) {
  std::size_t files = 0;
  std::int64_t read = 0, written = 0;
  for (const auto& f : s.posix) {
    if (!used_in_child(f)) continue;
    const posix_record r = to_record(f, 0, time);
    ++files;
    read += r.counters[darshan::POSIX_BYTES_READ];
    written += r.counters[darshan::POSIX_BYTES_WRITTEN];
  }
  for (const auto& f : s.stdio) {
    if (!used_in_child(f)) continue;
    const stdio_record r = to_record(f, 0, time);
    if (unused_standard_stream(r)) continue;
    ++files;
    read += r.counters[darshan::STDIO_BYTES_READ];
    written += r.counters[darshan::STDIO_BYTES_WRITTEN];
  }
  const segment_header& h = s.header;
  std::string v = std::to_string(h.pid) + " " + std::to_string(files) + " " + std::to_string(read) +
                  " " + std::to_string(written) + " " +
                  std::string(h.exe, strnlen(h.exe, sizeof h.exe));
  if (h.fork_parent != 0) v += " forked from " + std::to_string(h.fork_parent);
  if (h.state == segment_execed) v += " (exec'd)";
  if (h.state == segment_running) v += " (did not exit)";
  return v;
}

// An MPI rank's time as Darshan's has it: each rank counts from its own MPI_Init (Darshan's
// ranks do not agree on one time 0) and ends at its MPI_Finalize. A rank that never went
// through the MPI_Init wrapper keeps the job's start; one that did not call MPI_Finalize (it
// was killed, or returned without it) ends where it ended.
void mpi_rank_times(const segment_header& h, time_base& time, std::int64_t& end_ns) {
  if (h.mpi_init_ticks != 0) time.origin_ns = time.clock.realtime_of(h.mpi_init_ticks);
  if (h.mpi_finalize_ticks != 0) end_ns = h.mpi_finalize_realtime_ns;
}

std::string this_host() {
  char h[256] = {};
  if (gethostname(h, sizeof h - 1) != 0) return "";
  return h;
}

}  // namespace

job_log_result write_job_log(const std::vector<segment_snapshot>& segments, const std::string& path,
                             const job_log_options& options) {
  job_log_result result;
  const std::uint64_t now_ticks = read_ticks();
  const std::int64_t now_ns = realtime_ns();

  std::int64_t job_start = 0;
  for (const auto& s : segments) {
    if (job_start == 0 || s.header.start_realtime_ns < job_start)
      job_start = s.header.start_realtime_ns;
  }
  // In an MPI run the processes of the log are the ranks of MPI_COMM_WORLD, as Darshan's:
  // the processes that initialised MPI, with their rank. The others (mpirun, its daemons,
  // the forks before they exec a rank, a shell around mpirun) are no ranks: their records
  // stay out of the log, which says what they counted (outside_ranks).
  std::int64_t mpi_ranks = 0;
  for (const auto& s : segments) {
    if (forked_and_idle(s) || s.header.mpi_rank < 0) continue;
    mpi_ranks = std::max<std::int64_t>(
        mpi_ranks, std::max<std::int64_t>(s.header.mpi_size, std::int64_t(s.header.mpi_rank) + 1));
  }
  std::vector<process> procs;
  std::vector<std::string> outside;
  std::int64_t next_rank = 0;
  std::int64_t job_end = job_start;
  for (const auto& s : segments) {
    const segment_header& h = s.header;
    if (forked_and_idle(s)) continue;
    const bool finished = h.state != segment_running && h.end_ticks != 0;
    process p;
    p.s = &s;
    p.rank = h.mpi_rank >= 0 ? std::int64_t(h.mpi_rank) : next_rank++;
    p.time.clock = tick_calibration::from(
        h.start_ticks, h.start_realtime_ns, finished ? h.end_ticks : now_ticks,
        finished ? h.end_realtime_ns : now_ns, tick_kind(h.tick_kind));
    p.time.origin_ns = job_start;
    p.end_ns = finished ? h.end_realtime_ns : last_call_ns(s, p.time.clock);
    job_end = std::max(job_end, p.end_ns);
    if (mpi_ranks > 0 && h.mpi_rank < 0) {
      outside.push_back(outside_ranks_line(s, p.time));
      continue;
    }
    if (mpi_ranks > 0) mpi_rank_times(h, p.time, p.end_ns);
    if (!finished) ++result.unfinished;
    result.partial_modules |= h.partial;
    result.uncounted_calls += h.uncounted;
    result.torn_records += s.torn_records;
    procs.push_back(p);
  }
  // An MPI job's log spans its ranks' time as Darshan's does: from the first rank's MPI_Init to
  // the last rank's MPI_Finalize (Darshan reduces start and end over the ranks), not mpirun's.
  if (mpi_ranks > 0 && !procs.empty()) {
    job_start = job_end = 0;
    for (const process& p : procs) {
      const segment_header& h = p.s->header;
      const std::int64_t start = h.mpi_init_ticks != 0 ? h.mpi_init_realtime_ns : p.time.origin_ns;
      if (job_start == 0 || start < job_start) job_start = start;
      job_end = std::max(job_end, p.end_ns);
    }
  }
  result.outside_ranks = outside.size();
  result.processes = procs.size();
  const std::size_t ranks = mpi_ranks > 0 ? std::size_t(mpi_ranks) : procs.size();
  // The heatmaps' length: the longest process's time from its own time 0, on which every
  // rank's heatmap agrees (Darshan's ranks agree on the maximum of their own end times).
  double end_seconds = double(job_end - job_start) * 1e-9;
  for (const process& p : procs)
    end_seconds = std::max(end_seconds, double(p.end_ns - p.time.origin_ns) * 1e-9);

  // Records in Darshan's form, per process; names by id.
  std::unordered_map<std::uint64_t, std::string> names;
  std::vector<std::vector<posix_record>> posix(procs.size());
  std::vector<std::vector<stdio_record>> stdio(procs.size());
  std::vector<std::vector<mpiio_record>> mpiio(procs.size());
  for (std::size_t i = 0; i < procs.size(); ++i) {
    const process& p = procs[i];
    for (std::size_t k = 0; k < p.s->posix.size(); ++k) {
      const posix_file& f = p.s->posix[k];
      if (!used_in_child(f)) continue;
      posix[i].push_back(to_record(f, p.rank, p.time));
      names.emplace(f.id, p.s->posix_names[k]);
    }
    for (std::size_t k = 0; k < p.s->stdio.size(); ++k) {
      const stdio_file& f = p.s->stdio[k];
      if (!used_in_child(f)) continue;
      const stdio_record r = to_record(f, p.rank, p.time);
      if (unused_standard_stream(r)) continue;
      stdio[i].push_back(r);
      names.emplace(f.id, p.s->stdio_names[k]);
    }
    for (std::size_t k = 0; k < p.s->mpiio.size(); ++k) {
      mpiio[i].push_back(to_record(p.s->mpiio[k], p.rank, p.time));
      names.emplace(p.s->mpiio[k].id, p.s->mpiio_names[k]);
    }
  }
  const std::vector<posix_record> posix_out = reduce_module(posix, ranks, result.shared_records);
  const std::vector<stdio_record> stdio_out = reduce_module(stdio, ranks, result.shared_records);
  const std::vector<mpiio_record> mpiio_out = reduce_module(mpiio, ranks, result.shared_records);
  result.posix_records = posix_out.size();
  result.stdio_records = stdio_out.size();
  result.mpiio_records = mpiio_out.size();

  std::vector<std::vector<std::uint8_t>> heatmaps, traces, mpiio_traces;
  const std::string host = options.host.empty() ? this_host() : options.host;
  for (const process& p : procs) {
    for (const heatmap_api api : {heatmap_posix, heatmap_stdio, heatmap_mpiio}) {
      const heatmap_record h = heatmap_of(*p.s, api, p.rank, p.time, end_seconds);
      if (h.empty()) continue;
      names.emplace(h.id, heatmap_names[api]);
      log_heatmap_record r{h.id, h.rank, h.bin_width_seconds, h.write_bins, h.read_bins};
      encode_heatmap_record(r, heatmaps.emplace_back());
    }
    // The traces (DXT_POSIX, DXT_MPIIO), one record per file, writes then reads in call order.
    auto trace = [&](const auto& files, trace_kind read, trace_kind write, auto& out) {
      std::map<std::uint32_t, log_trace_record> by_file;
      for (const trace_segment& t : p.s->trace) {
        if ((t.kind != read && t.kind != write) || t.slot >= files.size()) continue;
        log_trace_record& r = by_file[t.slot];
        r.id = files[t.slot].id;
        r.rank = p.rank;
        r.hostname = host;
        (t.kind == write ? r.writes : r.reads)
            .push_back({t.offset, t.length, p.time.timestamp(std::int64_t(t.start)),
                        p.time.timestamp(std::int64_t(t.end)), t.thread});
      }
      for (const auto& [slot, r] : by_file) encode_trace_record(r, out.emplace_back());
    };
    trace(p.s->posix, trace_posix_read, trace_posix_write, traces);
    trace(p.s->mpiio, trace_mpiio_read, trace_mpiio_write, mpiio_traces);
    // Calls the full trace area could not take, of either module.
    if (p.s->trace_dropped != 0) {
      result.partial_modules |= std::uint64_t(1) << darshan::DXT_POSIX_MOD;
      if (!p.s->mpiio.empty()) result.partial_modules |= std::uint64_t(1) << darshan::DXT_MPIIO_MOD;
    }
  }

  // The log: every module granted exactly what it holds.
  std::size_t name_bytes = 0;
  for (const auto& [id, n] : names) name_bytes += 16 + n.size();
  auto cost = [](std::size_t records, std::size_t each) { return records * (4 + each); };
  std::size_t heatmap_bytes = 0, trace_bytes = 0, mpiio_trace_bytes = 0;
  for (const auto& h : heatmaps) heatmap_bytes += 4 + h.size();
  for (const auto& t : traces) trace_bytes += 4 + t.size();
  for (const auto& t : mpiio_traces) mpiio_trace_bytes += 4 + t.size();
  log_core_options o;
  o.compression = options.compression;
  o.module_memory_bytes = cost(posix_out.size(), sizeof(posix_record)) +
                          cost(stdio_out.size(), sizeof(stdio_record)) +
                          cost(mpiio_out.size(), sizeof(mpiio_record)) + heatmap_bytes +
                          trace_bytes + mpiio_trace_bytes;
  o.name_memory_bytes = name_bytes;
  log_core core(o);
  core.register_module(posix_log_module_name, posix_log_module_id, posix_log_module_version,
                       cost(posix_out.size(), sizeof(posix_record)));
  core.register_module(stdio_log_module_name, stdio_log_module_id, stdio_log_module_version,
                       cost(stdio_out.size(), sizeof(stdio_record)));
  if (!mpiio_out.empty() || (result.partial_modules >> darshan::MPIIO_MOD & 1) != 0) {
    core.register_module(mpiio_log_module_name, mpiio_log_module_id, mpiio_log_module_version,
                         cost(mpiio_out.size(), sizeof(mpiio_record)));
  }
  core.register_module(heatmap_log_module_name, heatmap_log_module_id, heatmap_log_module_version,
                       heatmap_bytes);
  if (!traces.empty() || (result.partial_modules >> darshan::DXT_POSIX_MOD & 1) != 0) {
    core.register_module(dxt_posix_log_module_name, dxt_posix_log_module_id,
                         dxt_posix_log_module_version, trace_bytes);
  }
  if (!mpiio_traces.empty() || (result.partial_modules >> darshan::DXT_MPIIO_MOD & 1) != 0) {
    core.register_module(dxt_mpiio_log_module_name, dxt_mpiio_log_module_id,
                         dxt_mpiio_log_module_version, mpiio_trace_bytes);
  }
  for (const auto& r : posix_out) core.add_record(posix_log_module_id, &r, sizeof r);
  for (const auto& r : stdio_out) core.add_record(stdio_log_module_id, &r, sizeof r);
  for (const auto& r : mpiio_out) core.add_record(mpiio_log_module_id, &r, sizeof r);
  for (const auto& h : heatmaps) core.add_record(heatmap_log_module_id, h.data(), h.size());
  for (const auto& t : traces) core.add_record(dxt_posix_log_module_id, t.data(), t.size());
  for (const auto& t : mpiio_traces) core.add_record(dxt_mpiio_log_module_id, t.data(), t.size());
  for (const auto& [id, n] : names) core.add_name_with_id(id, n);
  if ((result.partial_modules >> darshan::POSIX_MOD & 1) != 0)
    core.mark_partial(posix_log_module_id);
  if ((result.partial_modules >> darshan::STDIO_MOD & 1) != 0)
    core.mark_partial(stdio_log_module_id);
  if ((result.partial_modules >> darshan::MPIIO_MOD & 1) != 0)
    core.mark_partial(mpiio_log_module_id);
  if ((result.partial_modules >> darshan::DXT_POSIX_MOD & 1) != 0) {
    core.mark_partial(dxt_posix_log_module_id);
  }
  if ((result.partial_modules >> darshan::DXT_MPIIO_MOD & 1) != 0)
    core.mark_partial(dxt_mpiio_log_module_id);

  job_record& job = core.job();
  job.host = host;
  job.start_ns = job_start;
  job.end_ns = job_end;
  if (!options.command_line.empty()) {
    job.command_line = options.command_line;
  } else if (!segments.empty()) {
    const segment_header& h = segments.front().header;
    job.command_line.assign(h.command_line, strnlen(h.command_line, sizeof h.command_line));
  }
  job.metadata.emplace_back("lib", "perfdm io");
  job.metadata.emplace_back("nprocs", std::to_string(ranks));
  for (const auto& s : segments) {
    if (s.mounts.empty()) continue;
    for (const auto& m : s.mounts)
      job.metadata.emplace_back("mount", std::string(m.path) + "\t" + m.type);
    break;
  }
  for (const process& p : procs) {
    const segment_header& h = p.s->header;
    std::string v = std::to_string(p.rank) + " " + std::to_string(h.pid) + " " +
                    std::string(h.exe, strnlen(h.exe, sizeof h.exe));
    if (h.mpi_rank >= 0) v += " (MPI rank " + std::to_string(h.mpi_rank) + ")";
    if (h.fork_parent != 0) v += " forked from " + std::to_string(h.fork_parent);
    if (h.state == segment_execed) v += " (exec'd)";
    if (h.state == segment_running) v += " (did not exit)";
    job.metadata.emplace_back("process", v);
    job.pids.push_back(std::uint64_t(h.pid));
  }
  for (const auto& v : outside) job.metadata.emplace_back("outside_ranks", v);
  if (result.uncounted_calls != 0) {
    job.metadata.emplace_back("uncounted_calls", std::to_string(result.uncounted_calls));
  }
  if (result.torn_records != 0) {
    job.metadata.emplace_back("torn_records", std::to_string(result.torn_records));
  }
  core.write(path);
  return result;
}

}  // namespace perfdm::io
