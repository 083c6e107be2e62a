#include "darshan/darshan_text.hpp"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "darshan/darshan_counters.hpp"
#include "darshan/darshan_names.hpp"
#include "darshan/darshan_text_out.hpp"
#include "darshan/darshan_totals.hpp"

namespace perfdm::darshan {

namespace {

const char* const stars = "# *******************************************************\n";
const char* const dashes = "# -------------------------------------------------------\n";

// ctime() of the epoch seconds, as darshan-parser prints start and end ("Thu Jan  1 ...\n").
std::string ctime_text(std::int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  char buf[64];
  if (!ctime_r(&t, buf)) return "(invalid time)\n";
  return buf;
}

// The job header, the regions and the mount table: the same in both printers.
void print_job(const log_file& log, text_out& o) {
  const job_info& j = log.job();
  if (log.version() == "3.20")
    o << "# note: logs of Darshan 3.2.0 (format 3.20) may hold corrupt counters, the most "
         "common access counters above all.\n";
  o << "# darshan log version: " << log.version() << '\n';
  o << "# compression method: " << compression_name(log.compression()) << '\n';
  o << "# exe: " << j.exe << '\n';
  o << "# uid: ";
  o.i64(j.uid) << '\n' << "# jobid: ";
  o.i64(j.jobid) << '\n' << "# start_time: ";
  o.i64(j.start_time_sec) << '\n' << "# start_time_asci: " << ctime_text(j.start_time_sec);
  o << "# end_time: ";
  o.i64(j.end_time_sec) << '\n' << "# end_time_asci: " << ctime_text(j.end_time_sec);
  o << "# nprocs: ";
  o.i64(j.nprocs) << '\n' << "# run time: ";
  o.fixed(j.run_time, 4) << '\n';
  for (const auto& [k, v] : j.metadata) o << "# metadata: " << k << " = " << v << '\n';

  o << "\n# log file regions\n" << dashes;
  o << "# header: ";
  o.u64(log.header_size()) << " bytes (uncompressed)\n# job data: ";
  o.u64(log.job_region_length()) << " bytes (compressed)\n# record table: ";
  o.u64(log.name_region_length()) << " bytes (compressed)\n";
  for (const auto& m : log.modules()) {
    if (m.id < known_module_count)
      o << "# " << m.name << " module: ";
    else
      o << "# <UNKNOWN> module (id " << std::to_string(m.id) << "): ";
    o.u64(m.length) << " bytes (compressed), ver=" << std::to_string(static_cast<int>(m.version))
                    << '\n';
  }
  o << "\n# mounted file systems (mount point and fs type)\n" << dashes;
  for (const auto& m : j.mounts) o << "# mount entry:\t" << m.point << '\t' << m.type << '\n';
}

// The mount a name lies on: the longest mount point it starts with (plain prefix, as
// darshan-util matches), or null.
const mount* mount_of(const log_file& log, std::optional<std::string_view> name) {
  if (!name) return nullptr;
  for (const auto& m : log.job().mounts)
    if (name->substr(0, m.point.size()) == m.point) return &m;
  return nullptr;
}

// Notes the log gained since `shown`, as `#` lines.
void print_new_notes(const log_file& log, std::size_t& shown, text_out& o) {
  for (; shown < log.notes().size(); ++shown) o << "# note: " << log.notes()[shown] << '\n';
}

// What each module's counters mean, in a few lines (the project's words).
const char* description(int module) {
  switch (module) {
    case POSIX_MOD:
      return "#   POSIX_OPENS .. POSIX_FDSYNCS: operations (opens include filenos and dups).\n"
             "#   POSIX_RENAME_*, POSIX_RENAMED_FROM: renames of the file, the first source's id.\n"
             "#   POSIX_MODE: the mode the file was created with.\n"
             "#   POSIX_BYTES_*, POSIX_MAX_BYTE_*: bytes moved, highest byte touched.\n"
             "#   POSIX_CONSEC_*, POSIX_SEQ_*: accesses just after, or anywhere after, the last.\n"
             "#   POSIX_RW_SWITCHES: changes between reading and writing.\n"
             "#   POSIX_*_ALIGNMENT, POSIX_*_NOT_ALIGNED: alignments, accesses that miss them.\n"
             "#   POSIX_MAX_*_TIME_SIZE: size of the slowest read and write.\n"
             "#   POSIX_SIZE_*: accesses by size bucket.\n"
             "#   POSIX_STRIDE*, POSIX_ACCESS*: the four most common strides and sizes, counted.\n"
             "#   POSIX_*_RANK*, POSIX_F_*_RANK_*: fastest, slowest rank, variance (shared files).\n"
             "#   POSIX_F_*_TIMESTAMP: first start, last end of opens, reads, writes, closes.\n"
             "#   POSIX_F_*_TIME: time in reads, writes, metadata; the slowest read and write.\n";
    case MPIIO_MOD:
      return "#   MPIIO_*_OPENS .. MPIIO_VIEWS: operations: independent, collective, split,\n"
             "#      nonblocking reads and writes, syncs, hints, views.\n"
             "#   MPIIO_MODE: the open mode; MPIIO_BYTES_*: bytes moved.\n"
             "#   MPIIO_SIZE_*_AGG_*: accesses by size bucket (datatype size x count).\n"
             "#   MPIIO_ACCESS*: the four most common access sizes, counted.\n"
             "#   MPIIO_*_RANK*, MPIIO_F_*_RANK_*: fastest, slowest rank, variance (shared files).\n"
             "#   MPIIO_F_*: timestamps and times, as POSIX's.\n";
    case STDIO_MOD:
      return "#   STDIO_OPENS .. STDIO_FLUSHES: stream operations (opens include fdopens).\n"
             "#   STDIO_BYTES_*, STDIO_MAX_BYTE_*: bytes moved, highest byte touched.\n"
             "#   STDIO_*_RANK*, STDIO_F_*_RANK_*: fastest, slowest rank, variance (shared files).\n"
             "#   STDIO_F_*: time in metadata, writes, reads; first and last timestamps.\n";
    case H5F_MOD:
      return "#   H5F_OPENS, H5F_FLUSHES, H5F_USE_MPIIO: HDF5 file opens, flushes, MPI-IO use.\n"
             "#   H5F_F_*: timestamps and metadata time.\n";
    case H5D_MOD:
      return "#   H5D_*: HDF5 dataset operations, bytes, selections, size buckets, the four\n"
             "#      most common accesses (with hyperslab lengths and strides), dataspace,\n"
             "#      datatype and chunk sizes; H5D_F_*: timestamps and times.\n"
             "#   H5D_FILE_REC_ID: the record id of the dataset's file.\n";
    case PNETCDF_FILE_MOD:
      return "#   PNETCDF_FILE_*: PnetCDF file creates, opens, redefs, waits, syncs, bytes;\n"
             "#      PNETCDF_FILE_F_*: timestamps, metadata and wait time.\n";
    case PNETCDF_VAR_MOD:
      return "#   PNETCDF_VAR_*: PnetCDF variable operations by API call, bytes, size buckets,\n"
             "#      the four most common accesses; PNETCDF_VAR_F_*: timestamps and times.\n"
             "#   PNETCDF_VAR_FILE_REC_ID: the record id of the variable's file.\n";
    case BGQ_MOD:
      return "#   BGQ_*: the Blue Gene/Q job's partition and torus.\n";
    case LUSTRE_MOD:
      return "#   LUSTRE_NUM_COMPONENTS, LUSTRE_NUM_STRIPES: layout components, stripes.\n"
             "#   LUSTRE_COMP<n>_*: each component's stripe size, count, pattern, flags,\n"
             "#      extent, mirror, pool and OSTs.\n";
    case HEATMAP_MOD:
      return "#   HEATMAP_F_BIN_WIDTH_SECONDS: width of a bin.\n"
             "#   HEATMAP_READ_BIN_<n>, HEATMAP_WRITE_BIN_<n>: bytes read, written in bin n.\n";
    default:
      return "";
  }
}

// The module's description, with the counters its version lacks.
void print_description(const module_region& m, text_out& o) {
  o << "\n# description of " << m.name << " counters:\n" << description(m.id);
  const record_layout* l = m.layout;
  const record_layout* cur = current_layout(m.id);
  if (l && cur && l != cur) {
    std::string missing;
    for (std::size_t i = 0; i < l->current_ints.size(); ++i)
      if (l->current_ints[i].empty()) missing += std::string(missing.empty() ? "" : ", ") + cur->ints[i];
    for (std::size_t i = 0; i < l->current_floats.size(); ++i)
      if (l->current_floats[i].empty())
        missing += std::string(missing.empty() ? "" : ", ") + cur->floats[i];
    o << "\n# note: " << m.name << " records of version " << std::to_string(m.version)
      << " carry their version's counters";
    if (!missing.empty()) o << "; they have no " << missing;
    o << ".\n";
  }
  o << "\n#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs "
       "type>\n";
}

// One counter line.
struct line_printer {
  text_out& o;
  std::string_view module;
  std::string prefix;  // "<module>\t<rank>\t<id>\t"
  std::string suffix;  // "\t<name>\t<mount>\t<type>\n"

  void start(const record& r, std::optional<std::string_view> name, const mount* mnt) {
    prefix.assign(module);
    prefix += '\t';
    prefix += std::to_string(r.rank);
    prefix += '\t';
    prefix += std::to_string(r.id);
    prefix += '\t';
    suffix.assign("\t");
    // darshan-parser prints a missing name as printf prints a null string.
    suffix += name ? *name
                   : r.module == BGQ_MOD ? std::string_view("darshan-bgq-record")
                                         : std::string_view("(null)");
    suffix += '\t';
    suffix += mnt ? std::string_view(mnt->point) : std::string_view("UNKNOWN");
    suffix += '\t';
    suffix += mnt ? std::string_view(mnt->type) : std::string_view("UNKNOWN");
    suffix += '\n';
  }
  void i64(std::string_view counter, std::int64_t v) {
    o << prefix << counter << '\t';
    o.i64(v) << suffix;
  }
  void u64(std::string_view counter, std::uint64_t v) {
    o << prefix << counter << '\t';
    o.u64(v) << suffix;
  }
  void f64(std::string_view counter, double v) {
    o << prefix << counter << '\t';
    o.fixed(v) << suffix;
  }
  void text(std::string_view counter, std::string_view v) {
    o << prefix << counter << '\t' << v << suffix;
  }
};

// Lustre's stripe pattern and flags as darshan-util spells them (lustreapi.h's values).
std::string lustre_pattern(std::int64_t v) {
  switch (static_cast<std::uint64_t>(v)) {
    case 0: return "raid0";
    case 2: return "mdt";
    case 4: return "raid0,overstriped";
    case 8: return "foreign";
    default: return "N/A";
  }
}

std::string lustre_flags(std::int64_t v) {
  static const char* const names[] = {"stale",    "prefrd",   "prefwr",  "offline",
                                      "init",     "nosync",   "extension", "parity",
                                      "compress", "partial",  "nocompr", "neg"};
  if (v == -1) return "N/A";
  std::string s;
  for (int k = 0; k < 12; ++k)
    if (static_cast<std::uint64_t>(v) & (std::uint64_t{1} << k)) {
      if (!s.empty()) s += ',';
      s += names[k];
    }
  return s.empty() ? "0" : s;
}

void print_record(const record& r, line_printer& p) {
  const record_layout& l = *r.layout;
  switch (l.kind) {
    case record_kind::counters: {
      for (std::size_t i = 0; i < l.ints.size(); ++i) {
        // POSIX_RENAMED_FROM holds a record id: unsigned.
        if (r.module == POSIX_MOD && std::strcmp(l.ints[i], "POSIX_RENAMED_FROM") == 0)
          p.u64(l.ints[i], static_cast<std::uint64_t>(r.ints[i]));
        else
          p.i64(l.ints[i], r.ints[i]);
      }
      for (std::size_t i = 0; i < l.floats.size(); ++i) p.f64(l.floats[i], r.floats[i]);
      if (l.file_rec_id) p.u64(l.file_rec_id, r.file_rec_id);
      break;
    }
    case record_kind::heatmap: {
      p.f64("HEATMAP_F_BIN_WIDTH_SECONDS", r.bin_width_seconds);
      std::string name;
      for (std::int64_t i = 0; i < r.nbins; ++i) {
        name = "HEATMAP_READ_BIN_" + std::to_string(i);
        p.i64(name, r.read_bins[i]);
      }
      for (std::int64_t i = 0; i < r.nbins; ++i) {
        name = "HEATMAP_WRITE_BIN_" + std::to_string(i);
        p.i64(name, r.write_bins[i]);
      }
      break;
    }
    case record_kind::lustre_v1: {
      p.i64("LUSTRE_OSTS", r.v1_osts);
      p.i64("LUSTRE_MDTS", r.v1_mdts);
      p.i64("LUSTRE_STRIPE_OFFSET", r.v1_stripe_offset);
      p.i64("LUSTRE_STRIPE_SIZE", r.components[0].counters[LUSTRE_COMP_STRIPE_SIZE]);
      p.i64("LUSTRE_STRIPE_WIDTH", r.components[0].counters[LUSTRE_COMP_STRIPE_COUNT]);
      for (std::int64_t i = 0; i < r.ost_count; ++i)
        p.i64("LUSTRE_OST_ID_" + std::to_string(i), r.ost_ids[i]);
      break;
    }
    case record_kind::lustre: {
      p.i64("LUSTRE_NUM_COMPONENTS", static_cast<std::int64_t>(r.components.size()));
      p.i64("LUSTRE_NUM_STRIPES", r.ost_count);
      std::int64_t ost = 0;
      for (std::size_t c = 0; c < r.components.size(); ++c) {
        const auto& comp = r.components[c];
        const std::string head = "LUSTRE_COMP" + std::to_string(c + 1) + "_";
        for (int k = 0; k < LUSTRE_COMP_NUM_INDICES; ++k) {
          // "LUSTRE_COMP_STRIPE_SIZE" -> "LUSTRE_COMP1_STRIPE_SIZE"
          std::string name = head + (lustre_comp_counter_names[k] + std::strlen("LUSTRE_COMP_"));
          if (k == LUSTRE_COMP_STRIPE_PATTERN)
            p.text(name, lustre_pattern(comp.counters[k]));
          else if (k == LUSTRE_COMP_FLAGS)
            p.text(name, lustre_flags(comp.counters[k]));
          else
            p.i64(name, comp.counters[k]);
        }
        p.text(head + "POOL_NAME", comp.pool_name.empty() ? "N/A" : comp.pool_name);
        // One line per stripe, as far as the record lists OSTs (a damaged count lists fewer).
        for (std::int64_t s = 0; s < comp.counters[LUSTRE_COMP_STRIPE_COUNT] && ost < r.ost_count;
             ++s, ++ost)
          p.i64(head + "OST_ID_" + std::to_string(s), r.ost_ids[ost]);
      }
      break;
    }
    case record_kind::dxt: break;
  }
}

void print_total(const module_region& m, const total_record& t, text_out& o) {
  print_description(m, o);
  // (darshan-parser prints the description, then the totals under their names.)
  const record_layout* cur = current_layout(m.id);
  const record_layout* l = m.layout;
  o << '\n';
  for (std::size_t i = 0; i < cur->ints.size(); ++i) {
    if (l->current_ints[i].empty()) continue;  // this version has no such counter
    const int from = l->current_ints[i].front();
    o << "total_" << (l->current_ints[i].size() == 1 ? l->ints[from] : cur->ints[i]) << ": ";
    o.i64(t.ints()[i]) << '\n';
  }
  for (std::size_t i = 0; i < cur->floats.size(); ++i) {
    if (l->current_floats[i].empty()) continue;
    const int from = l->current_floats[i].front();
    o << "total_" << l->floats[from] << ": ";
    o.fixed(t.floats()[i]) << '\n';
  }
}

void print_file_counts(const file_summary& f, text_out& o) {
  auto c = f.summarize();
  o << "\n# Total file counts\n# -----\n"
       "# <file_type>: type of file access:\n"
       "#    *read_only: files only read\n"
       "#    *write_only: files only written\n"
       "#    *read_write: files read and written\n"
       "#    *unique: files one process opened\n"
       "#    *shared: files several processes opened (maybe all of them)\n"
       "# <file_count>: how many files of this type\n"
       "# <total_bytes>: bytes moved to and from them\n"
       "# <max_byte_offset>: the highest offset accessed in one of them\n"
       "\n# <file_type> <file_count> <total_bytes> <max_byte_offset>\n";
  auto row = [&](const char* name, const file_summary::kind& k) {
    o << "# " << name << ": ";
    o.i64(k.count) << ' ';
    o.i64(k.bytes) << ' ';
    o.i64(k.max_offset) << '\n';
  };
  row("total", c.total);
  row("read_only", c.read_only);
  row("write_only", c.write_only);
  row("read_write", c.read_write);
  row("unique", c.unique);
  row("shared", c.shared);
}

void print_perf(const perf_summary& p, text_out& o) {
  auto r = p.summarize();
  o << "\n# performance\n# -----------\n# total_bytes: ";
  o.i64(r.total_bytes) << "\n#\n# I/O timing for unique files (seconds):\n"
                          "# ...........................\n"
                          "# unique files: slowest_rank_io_time: ";
  o.fixed(r.slowest_rank_io_time) << "\n# unique files: slowest_rank_meta_only_time: ";
  o.fixed(r.slowest_rank_meta_only_time) << "\n# unique files: slowest_rank_rw_only_time: ";
  o.fixed(r.slowest_rank_rw_only_time) << "\n# unique files: slowest_rank: ";
  o.i64(static_cast<std::int32_t>(r.slowest_rank))
      << "\n#\n# I/O timing for shared files (seconds):\n"
         "# ...........................\n"
         "# shared files: time_by_slowest: ";
  o.fixed(r.shared_time_by_slowest)
      << "\n#\n# Aggregate performance, including both shared and unique files:\n"
         "# ...........................\n"
         "# agg_time_by_slowest: ";
  o.fixed(r.agg_time_by_slowest) << " # seconds\n# agg_perf_by_slowest: ";
  o.fixed(r.agg_perf_by_slowest) << " # MiB/s\n";
}

// A partial module: a warning in the output with --show-incomplete, else the error.
bool partial_refused(const module_region& m, const log_file& log, bool show, text_out& o,
                     std::ostream& err) {
  if (!m.partial) return false;
  if (show) {
    o << "\n# *WARNING*: The " << m.name << " module contains incomplete data!\n"
      << "#            Darshan ran out of memory for its records while the program ran:\n"
      << "#            the records below are the ones it kept.\n"
      << "\n# Darshan's runtime documentation explains its memory limits; NAME_EXCLUDE\n"
      << "# in a runtime configuration file keeps files you do not need out.\n";
    return false;
  }
  o.flush();
  err << "perfdm log: " << log.path() << ": *ERROR*: The " << m.name
      << " module contains incomplete data!\n"
      << "  Darshan ran out of memory for its records while the program ran; --show-incomplete"
         " prints the records it kept.\n";
  return true;
}

}  // namespace

int print_parser_text(const log_file& log, const text_options& opt, std::ostream& out,
                      std::ostream& err) {
  text_out o(out);
  print_job(log, o);
  if (opt.base) {
    o << "\n# description of columns:\n"
         "#   <module>: the Darshan module that recorded the I/O.\n"
         "#   <rank>: MPI rank; -1: a file every process shared, its counters folded.\n"
         "#   <record id>: the hash of the record's name.\n"
         "#   <counter> and <value>: a counter; -1: Darshan could not monitor it.\n"
         "#   <file name>: the record's full path.\n"
         "#   <mount pt>, <fs type>: the file system the file lies on.\n";
  }
  name_table names(log, opt.max_name_bytes);
  std::size_t notes_shown = 0;
  std::size_t with_data = 0;
  for (const auto& m : log.modules()) {
    if (m.length > 0) ++with_data;
    if (m.length > 0 && m.id >= known_module_count) {
      o.flush();
      err << "perfdm log: " << log.path() << ": module id " << m.id
          << " is unknown (a newer Darshan wrote it): skipped\n";
      continue;
    }
    if (m.length > 0 && !m.layout) {
      o.flush();
      err << "perfdm log: " << log.path() << ": the " << m.name << " module (version "
          << m.version << ") cannot be read by this version of perfdm: skipped\n";
      continue;
    }
    if (m.id == DXT_POSIX_MOD || m.id == DXT_MPIIO_MOD) continue;  // --dxt prints them
    if (!has_totals(m.id) && !opt.base) continue;

    o << '\n' << stars << "# " << m.name << " module data\n" << stars;
    if (partial_refused(m, log, opt.show_incomplete, o, err)) return 1;
    if (m.length == 0) continue;
    if (opt.base) print_description(m, o);

    const bool derived = has_totals(m.id) && (opt.total || opt.file || opt.perf);
    total_record total(m.id);
    file_summary files;
    perf_summary perf;
    line_printer p{o, m.name, {}, {}};
    for_each_named_record(
        log, names, m,
        [&](const record& r, std::optional<std::string_view> name) {
          if (opt.base) {
            p.start(r, name, mount_of(log, name));
            print_record(r, p);
          }
          if (derived) {
            if (opt.total) total.add(r);
            if (opt.file) files.add(r);
            if (opt.perf) perf.add(r);
          }
        },
        opt.lookahead_records);
    print_new_notes(log, notes_shown, o);
    if (!has_totals(m.id)) continue;
    if (opt.total) print_total(m, total, o);
    if (opt.file) print_file_counts(files, o);
    if (opt.perf) print_perf(perf, o);
  }
  if (with_data == 0) o << "\n# no module data available.\n";
  print_new_notes(log, notes_shown, o);
  return 0;
}

namespace {

// One DXT record as darshan-dxt-parser prints it.
void print_dxt_record(const log_file& log, const module_region& m, const record& r,
                      std::optional<std::string_view> name, const std::unordered_map<std::uint64_t, std::pair<std::vector<lustre_component>, std::vector<std::int64_t>>>& lustre,
                      text_out& o) {
  const bool posix = m.id == DXT_POSIX_MOD;
  const bool has_threads = r.layout->dxt_segment_size >= 40;
  std::size_t threads = 1;
  if (has_threads && r.write_count + r.read_count > 0) {
    std::unordered_set<std::uint64_t> ids;
    r.for_each_segment([&](const dxt_segment* s, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) ids.insert(s[i].thread);
    });
    threads = std::max<std::size_t>(ids.size(), 1);
  }
  const mount* mnt = mount_of(log, name);
  o << "\n# DXT, file_id: ";
  o.u64(r.id) << ", file_name: " << (name ? *name : "(null)") << '\n';
  o << "# DXT, rank: ";
  o.i64(r.rank) << ", hostname: " << r.hostname << '\n';
  o << "# DXT, number of threads: " << std::to_string(threads) << '\n';
  o << "# DXT, write_count: ";
  o.i64(r.write_count) << ", read_count: ";
  o.i64(r.read_count) << '\n';
  o << "# DXT, mnt_pt: " << (mnt ? std::string_view(mnt->point) : "UNKNOWN")
    << ", fs_type: " << (mnt ? std::string_view(mnt->type) : "UNKNOWN") << '\n';
  const std::vector<lustre_component>* comps = nullptr;
  const std::vector<std::int64_t>* osts = nullptr;
  if (posix) {
    auto it = lustre.find(r.id);
    if (it != lustre.end()) {
      comps = &it->second.first;
      osts = &it->second.second;
    }
  }
  auto ost_at = [&](std::int64_t i) -> std::int64_t {
    return i >= 0 && static_cast<std::size_t>(i) < osts->size() ? (*osts)[static_cast<std::size_t>(i)] : -1;
  };
  if (comps) {
    o << "# DXT, Lustre stripe components:\n";
    std::int64_t ost = 0;
    for (std::size_t i = 0; i < comps->size(); ++i) {
      const auto& c = (*comps)[i];
      o << "#\t[Component " << std::to_string(i + 1) << "] stripe_ext: ";
      o.i64(c.counters[LUSTRE_COMP_EXT_START]) << " - ";
      if (c.counters[LUSTRE_COMP_EXT_END] == -1) {
        o << "EOF, ";
      } else {
        o.i64(c.counters[LUSTRE_COMP_EXT_END]) << ", ";
      }
      o << "stripe_size: ";
      o.i64(c.counters[LUSTRE_COMP_STRIPE_SIZE]) << ", stripe_count: ";
      o.i64(c.counters[LUSTRE_COMP_STRIPE_COUNT]) << ", OSTs:";
      for (std::int64_t j = 0; j < c.counters[LUSTRE_COMP_STRIPE_COUNT] &&
                               ost < static_cast<std::int64_t>(osts->size());
           ++j, ++ost) {
        o << ' ';
        o.i64(ost_at(ost));
      }
      o << '\n';
    }
  }
  o << "# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)";
  if (comps) o << "   [OST]";
  o << "   Pthread-ID\n";

  // Wide enough for two %12.4f of the largest doubles (309 digits each); clamped anyway.
  char line[1024];
  auto put_line = [&](int len) {
    o << std::string_view(line, static_cast<std::size_t>(std::clamp(len, 0, int{sizeof line} - 1)));
  };
  const char* tag = posix ? "X_POSIX" : "X_MPIIO";
  std::int64_t index = 0;
  r.for_each_segment([&](const dxt_segment* segs, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i, ++index) {
      const dxt_segment& s = segs[i];
      const bool write = index < r.write_count;
      const int seg_no = static_cast<int>(write ? index : index - r.write_count);
      put_line(std::snprintf(line, sizeof line, "%8s%8lld%7s%9d%16lld%16lld%12.4f%12.4f  ", tag,
                             static_cast<long long>(r.rank), write ? "write" : "read", seg_no,
                             static_cast<long long>(s.offset), static_cast<long long>(s.length),
                             s.start_time, s.end_time));
      if (comps) {
        // The OSTs the segment touches, one per stripe, at most a full round of stripes.
        // (Offsets of a damaged log may overflow: the sums saturate.)
        auto add = [](std::int64_t a, std::int64_t b) {
          std::int64_t r;
          return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
        };
        const std::int64_t seg_end = add(s.offset, s.length);
        std::int64_t cur = s.offset, ost_base = 0, printed = 0;
        for (const auto& c : *comps) {
          const std::int64_t size = c.counters[LUSTRE_COMP_STRIPE_SIZE];
          const std::int64_t count = c.counters[LUSTRE_COMP_STRIPE_COUNT];
          const std::int64_t ext_start = c.counters[LUSTRE_COMP_EXT_START];
          const std::int64_t ext_end = c.counters[LUSTRE_COMP_EXT_END];
          if (count == 0) continue;
          if (size > 0 && count > 0 && cur >= ext_start && (cur < ext_end || ext_end == -1)) {
            std::int64_t in_comp = add(cur, ext_start == INT64_MIN ? INT64_MAX : -ext_start);
            std::int64_t idx = (in_comp / size) % count;
            while (cur < seg_end && (cur < ext_end || ext_end == -1)) {
              o << " [";
              o.i64(ost_at(ost_base + idx)) << ']';
              idx = idx == count - 1 ? 0 : idx + 1;
              std::int64_t next;
              in_comp = __builtin_mul_overflow(in_comp / size + 1, size, &next) ? INT64_MAX : next;
              cur = add(ext_start, in_comp);
              // At most one round of stripes (and no more than the OSTs listed).
              if (++printed >= std::min<std::int64_t>(count, static_cast<std::int64_t>(osts->size()))) {
                cur = ext_end == -1 ? seg_end : ext_end;
                break;
              }
            }
          }
          ost_base += count;
        }
        if (!comps->empty()) o << "  ";
      }
      if (!has_threads) {
        o << " N/A\n";
      } else {
        put_line(std::snprintf(line, sizeof line, " %4lu\n", static_cast<unsigned long>(s.thread)));
      }
    }
  });
}

}  // namespace

int print_dxt_text(const log_file& log, const text_options& opt, std::ostream& out,
                   std::ostream& err) {
  text_out o(out);
  print_job(log, o);
  const module_region* dp = log.find(DXT_POSIX_MOD);
  const module_region* dm = log.find(DXT_MPIIO_MOD);
  if ((!dp || dp->length == 0) && (!dm || dm->length == 0)) {
    o << "\n# no DXT module data available for this Darshan log.\n";
    return 0;
  }
  name_table names(log, opt.max_name_bytes);
  std::size_t notes_shown = 0;
  // The Lustre layout of each file, for the OSTs of its POSIX segments.
  std::unordered_map<std::uint64_t, std::pair<std::vector<lustre_component>, std::vector<std::int64_t>>> lustre;
  for (const auto& m : log.modules()) {
    if (m.length == 0) continue;
    if (m.id == LUSTRE_MOD) {
      log.for_each_record(m, [&](const record& r) {
        lustre.try_emplace(r.id, r.components,
                           std::vector<std::int64_t>(r.ost_ids, r.ost_ids + r.ost_count));
      });
      continue;
    }
    if (m.id != DXT_POSIX_MOD && m.id != DXT_MPIIO_MOD) continue;
    o << "\n# ***************************************************\n# " << m.name
      << " module data\n# ***************************************************\n";
    if (partial_refused(m, log, opt.show_incomplete, o, err)) return 1;
    if (!m.layout) {
      o.flush();
      err << "perfdm log: " << log.path() << ": the " << m.name << " module (version "
          << m.version << ") cannot be read by this version of perfdm: skipped\n";
      continue;
    }
    for_each_named_record(
        log, names, m,
        [&](const record& r, std::optional<std::string_view> name) {
          print_dxt_record(log, m, r, name, lustre, o);
        },
        opt.lookahead_records);
    print_new_notes(log, notes_shown, o);
  }
  print_new_notes(log, notes_shown, o);
  return 0;
}

}  // namespace perfdm::darshan
