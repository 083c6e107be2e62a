// Drishti's tests (drishti/handlers/handle_darshan.py, drishti/includes/module.py), with the
// evidence and time at stake from the per-file cases of the summary (file_table.cpp).
#include <algorithm>
#include <cmath>

#include "darshan/darshan_buckets.hpp"
#include "darshan/darshan_format.hpp"
#include "ioinsights/insight.hpp"
#include "ioinsights/insight_words.hpp"
#include "iosummary/module_counters.hpp"

namespace perfdm::ioinsights {

using iosummary::case_list;
using iosummary::file_metric;
using iosummary::job_summary;
using iosummary::module_summary;

const char* level_name(level l) {
  switch (l) {
    case level::high: return "high";
    case level::warn: return "warn";
    case level::info: return "info";
    case level::ok: return "ok";
  }
  return "info";
}

namespace {

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0; }

class rules {
 public:
  rules(const job_summary& j, const thresholds& t) : j_(j), t_(t) {
    posix_ = j.find(darshan::POSIX_MOD);
    mpiio_ = j.find(darshan::MPIIO_MOD);
    stdio_ = j.find(darshan::STDIO_MOD);
    hdf5_ = j.find(darshan::H5F_MOD) || j.find(darshan::H5D_MOD);
    lustre_ = j.find(darshan::LUSTRE_MOD) != nullptr;
  }

  std::vector<insight> run() {
    stdio_share();
    mpiio_use();
    if (posix_ && posix_->records > 0) {
      intensity();
      small_requests(false);
      small_requests(true);
      misaligned();
      redundant(false);
      redundant(true);
      random(false);
      random(true);
      shared_small(false);
      shared_small(true);
      metadata();
      stragglers();
      size_imbalance(true);
      size_imbalance(false);
    }
    if (mpiio_ && mpiio_->records > 0) {
      collective(false);
      collective(true);
      blocking(false);
      blocking(true);
    }
    std::stable_sort(out_.begin(), out_.end(), [](const insight& a, const insight& b) {
      const bool pa = a.severity == level::high || a.severity == level::warn;
      const bool pb = b.severity == level::high || b.severity == level::warn;
      if (pa != pb) return pa;
      if (a.seconds != b.seconds) return a.seconds > b.seconds;
      return a.severity < b.severity;
    });
    return std::move(out_);
  }

 private:
  // " to /x.h5", " to /x.h5 and 3 other files", or "" without files.
  static std::string where(const case_list& c, const char* preposition = "to") {
    if (c.top.empty()) return "";
    return std::string(" ") + preposition + " " + files_words(c);
  }
  // "/x.h5", "/x.h5 and 3 other files".
  static std::string files_words(const case_list& c) {
    if (c.top.empty()) return count(double(c.files)) + " files";
    std::string s = c.top[0].name;
    if (c.files > 1) s += " and " + count(double(c.files - 1)) + (c.files > 2 ? " other files" : " other file");
    return s;
  }
  // "(1.2 M operations, 61 % of I/O time)"
  std::string evidence_of(double n, const char* unit, double stake) const {
    std::string s = "(" + count(n) + " " + unit;
    if (j_.io_time > 0) s += ", " + percent(ratio(stake, j_.io_time)) + " of I/O time";
    return s + ")";
  }
  insight& add(const char* code, level severity, std::string line, std::string fix,
               double stake, double n, const char* unit, const case_list* files = nullptr,
               double min_count = 0) {
    insight i;
    i.code = code;
    i.severity = severity;
    i.line = fix.empty() ? std::move(line) : line + ": " + fix;
    i.fix = std::move(fix);
    i.seconds = stake;
    i.share = ratio(stake, j_.io_time);
    i.count = n;
    i.unit = unit;
    if (files)
      for (const auto& f : files->top)
        if (f.count > min_count) i.files.push_back({f.name, f.count, ratio(f.count, f.of), f.seconds});
    out_.push_back(std::move(i));
    return out_.back();
  }

  // S01: STDIO's share of the bytes (POSIX's bytes less those MPI-IO moved through it).
  void stdio_share() {
    if (!stdio_) return;
    const double s = stdio_->bytes_read + stdio_->bytes_written;
    double p = posix_ ? posix_->bytes_read + posix_->bytes_written : 0;
    const double m = mpiio_ ? mpiio_->bytes_read + mpiio_->bytes_written : 0;
    if (p > 0 && p >= m) p -= m;
    const double total = s + p + m;
    if (!(total > 0 && s / total > t_.interface_stdio)) return;
    const case_list& files = stdio_->at(file_metric::io_time);
    const double stake = stdio_->read_time + stdio_->write_time + stdio_->meta_time;
    add("S01", level::high,
        percent(s / total) + " of the data (" + bytes(s) + ") goes through STDIO" + where(files) +
            " " + evidence_of(stdio_->reads + stdio_->writes, "operations", stake),
        "switch to a high-performance I/O interface such as MPI-IO, or POSIX with large buffers",
        stake, stdio_->reads + stdio_->writes, "operations", &files);
  }

  // M01: no MPI-IO module (Drishti's test: the module is absent from the log).
  void mpiio_use() {
    if (mpiio_) return;
    add("M01", level::warn, "The job does not use MPI-IO, a high-performance I/O interface",
        "consider MPI-IO (or HDF5, PnetCDF over it) for parallel I/O", 0, 0, "operations");
  }

  // P01-P04: read or write intensive, by operations and by bytes (facts).
  void intensity() {
    const double r = posix_->reads, w = posix_->writes, n = r + w;
    if (n > 0 && std::fabs(w - r) / n > t_.imbalance_operations)
      add(w > r ? "P01" : "P02", level::info,
          std::string(w > r ? "Write" : "Read") + "-intensive by operations: " + percent(w / n) +
              " writes, " + percent(r / n) + " reads",
          "", 0, n, "operations");
    const double br = posix_->bytes_read, bw = posix_->bytes_written, b = br + bw;
    if (b > 0 && std::fabs(bw - br) / b > t_.imbalance_operations)
      add(bw > br ? "P03" : "P04", level::info,
          std::string(bw > br ? "Write" : "Read") + "-intensive by bytes: " + bytes(bw) +
              " written (" + percent(bw / b) + "), " + bytes(br) + " read (" + percent(br / b) + ")",
          "", 0, b, "bytes");
  }

  // The largest size most (90 %) of the small requests stay under: "10 KiB", or "1 MiB".
  std::string small_size_words(bool write, double* under) const {
    const auto* c = iosummary::counters_of(darshan::POSIX_MOD);
    const auto& buckets = write ? c->write_sizes : c->read_sizes;
    std::vector<double> n;
    double small = 0;
    for (std::size_t b = 0; b + 1 < darshan::size_bucket_count; ++b) {
      if (darshan::size_bucket_upper_edges[b] > t_.small_bytes) break;
      n.push_back(posix_->sum(buckets[b]));
      small += n.back();
    }
    double cumulative = 0;
    for (std::size_t b = 0; b < n.size(); ++b) {
      cumulative += n[b];
      if (cumulative >= 0.9 * small || b + 1 == n.size()) {
        *under = cumulative;
        return bytes(double(darshan::size_bucket_upper_edges[b]));
      }
    }
    *under = small;
    return bytes(double(t_.small_bytes));
  }

  // P05/P06: small requests, over 10 % of them and more than 1,000.
  void small_requests(bool write) {
    const case_list& c = posix_->at(write ? file_metric::small_writes : file_metric::small_reads);
    const double small = c.count, all = c.of;
    if (!(small > 0 && small / all > t_.small_requests && small > t_.small_requests_absolute)) return;
    double under = 0;
    const std::string size = small_size_words(write, &under);
    const char* op = write ? "writes" : "reads";
    std::string fix = std::string("buffer them into larger, contiguous ") + op;
    fix += mpiio_ ? std::string(" or use collective MPI-IO (MPI_File_") + (write ? "write" : "read") + "_all)"
                  : " or use collective MPI-IO";
    add(write ? "P06" : "P05", level::high,
        percent(under / all) + " of " + op + where(c) + " are under " + size + " " +
            evidence_of(small, "operations", c.seconds),
        fix, c.seconds, small, "operations", &c, all * t_.detail_share());
  }

  // P07/P08: misaligned memory and file requests, over 10 % of the requests.
  void misaligned() {
    const double ops = posix_->reads + posix_->writes;
    const case_list& mem = posix_->at(file_metric::misaligned_memory);
    if (ops > 0 && mem.count / ops > t_.misaligned_requests)
      add("P07", level::high,
          percent(mem.count / ops) + " of requests" + where(mem) + " use misaligned memory buffers " +
              evidence_of(mem.count, "operations", mem.seconds),
          "allocate I/O buffers aligned to the memory page (posix_memalign)", mem.seconds,
          mem.count, "operations", &mem);
    const case_list& file = posix_->at(file_metric::misaligned_file);
    if (ops > 0 && file.count / ops > t_.misaligned_requests) {
      std::string fix = "align offsets and sizes to the file system's block boundaries";
      if (hdf5_) fix += "; with HDF5, H5Pset_alignment() in the file access property list";
      if (lustre_) fix += "; on Lustre, a stripe size that matches the requests";
      add("P08", level::high,
          percent(file.count / ops) + " of requests" + where(file) +
              " are not aligned to file system blocks " +
              evidence_of(file.count, "operations", file.seconds),
          fix, file.seconds, file.count, "operations", &file);
    }
  }

  // P09/P10: data read (written) again: more bytes moved in a file than its extent. Drishti
  // compares the job's highest offset with its total bytes; per file says where it happens.
  void redundant(bool write) {
    const case_list& c =
        posix_->at(write ? file_metric::redundant_writes : file_metric::redundant_reads);
    if (c.files == 0) return;
    const char* op = write ? "written" : "read";
    add(write ? "P10" : "P09", level::warn,
        bytes(c.count) + " " + op + " more than once" + where(c, "in") + " (" + percent(ratio(c.count, c.of)) +
            " of the bytes " + op + (j_.io_time > 0 ? ", " + percent(ratio(c.seconds, j_.io_time)) + " of I/O time)" : ")"),
        write ? "write each block once (gather the data in memory first)"
              : "read each block once and keep it (cache it, or read it on one rank and share it)",
        c.seconds, c.count, "bytes", &c);
  }

  // P11/P13 (random over 20 % and more than 1,000), else P12/P14 (sequential: good).
  void random(bool write) {
    const case_list& c = posix_->at(write ? file_metric::random_writes : file_metric::random_reads);
    const double all = write ? posix_->writes : posix_->reads;
    if (all <= 0) return;
    const char* op = write ? "writes" : "reads";
    if (c.count > 0 && c.count / all > t_.random_operations && c.count > t_.random_operations_absolute) {
      add(write ? "P13" : "P11", level::high,
          percent(c.count / all) + " of " + op + where(c) + " are random (not sequential) " +
              evidence_of(c.count, "operations", c.seconds),
          std::string("change the data layout or the access order so that ") + op +
              " are consecutive or sequential",
          c.seconds, c.count, "operations", &c);
      return;
    }
    const double consec = posix_->sum(iosummary::int_counter(darshan::POSIX_MOD, write ? "POSIX_CONSEC_WRITES" : "POSIX_CONSEC_READS"));
    const double seq = posix_->sum(iosummary::int_counter(darshan::POSIX_MOD, write ? "POSIX_SEQ_WRITES" : "POSIX_SEQ_READS"));
    add(write ? "P14" : "P12", level::ok,
        std::string("Mostly consecutive (") + percent(consec / all) + ") and sequential (" +
            percent(std::max(0.0, seq - consec) / all) + ") " + op,
        "", 0, all, "operations");
  }

  // P15/P16: small requests to files every rank shared.
  void shared_small(bool write) {
    const case_list& c =
        posix_->at(write ? file_metric::shared_small_writes : file_metric::shared_small_reads);
    if (!(c.of > 0 && c.count / c.of > t_.small_requests && c.count > t_.small_requests_absolute)) return;
    const char* op = write ? "writes" : "reads";
    add(write ? "P16" : "P15", level::high,
        percent(c.count / c.of) + " of " + op + " to shared files" + where(c, "such as") +
            " are under " + bytes(double(t_.small_bytes)) + " " +
            evidence_of(c.count, "operations", c.seconds),
        std::string("coalesce them into larger, contiguous ") + op + " with MPI-IO collective operations",
        c.seconds, c.count, "operations", &c, c.of * t_.detail_share());
  }

  // P17: ranks whose metadata time is over 30 s (a shared file's time counts evenly on
  // every rank).
  void metadata() {
    double ranks = 0, stake = 0;
    for (double s : j_.rank_meta_time)
      if (s > t_.metadata_time_rank) {
        ++ranks;
        stake += s;
      }
    if (ranks == 0) return;
    const case_list& files = posix_->at(file_metric::meta_time);
    std::string fix = "combine files, or reduce and cache metadata operations (open, stat, seek)";
    if (hdf5_) fix += "; with HDF5, collective metadata (H5Pset_all_coll_metadata_ops)";
    add("P17", level::high,
        count(ranks) + (ranks == 1 ? " rank spends" : " ranks spend") + " over " +
            seconds(t_.metadata_time_rank) + " in metadata operations, " + seconds(stake) +
            " in all" + (j_.io_time > 0 ? " (" + percent(ratio(stake, j_.io_time)) + " of I/O time)" : "") +
            (files.top.empty() ? "" : ", most on " + files.top[0].name),
        fix, stake, ranks, "ranks", &files);
  }

  // P18/P19: shared files whose slowest rank moves more bytes (takes longer) than the
  // fastest by over 15 % of the file's bytes (time).
  void stragglers() {
    const case_list& b = posix_->at(file_metric::shared_bytes_imbalance);
    std::string fix = "spread the data evenly over the ranks";
    if (lustre_) fix += ", and tune the file's stripe size and count";
    if (b.files > 0 && !b.top.empty())
      add("P18", level::high,
          "Stragglers in shared file " + files_words(b) + ": its slowest rank moves " + bytes(b.top[0].count) + " more than its fastest (" +
              percent(ratio(b.top[0].count, b.top[0].of)) + " of the file's bytes), " +
              seconds(b.seconds) + " lost",
          fix, b.seconds, double(b.files), "files", &b);
    const case_list& t = posix_->at(file_metric::shared_time_imbalance);
    if (t.files > 0 && !t.top.empty())
      add("P19", level::high,
          "Stragglers in shared file " + files_words(t) + ": its slowest rank takes " + seconds(t.top[0].count) +
              " longer than its fastest (" + percent(ratio(t.top[0].count, t.top[0].of)) +
              " of its I/O time)",
          fix, t.seconds, double(t.files), "files", &t);
  }

  // P21/P22: files of several ranks where one rank moves over 30 % more than another.
  void size_imbalance(bool write) {
    const case_list& c =
        posix_->at(write ? file_metric::write_size_imbalance : file_metric::read_size_imbalance);
    if (c.files == 0 || c.top.empty()) return;
    const char* op = write ? "write" : "read";
    add(write ? "P21" : "P22", level::high,
        std::string("Ranks ") + op + " unequal amounts to " + files_words(c) + ": " +
            percent(ratio(c.top[0].count, c.top[0].of)) + " between the most and the least (" +
            bytes(c.top[0].count) + ")",
        std::string("balance the data each rank ") + (write ? "writes" : "reads"), c.seconds,
        double(c.files), "files", &c);
  }

  // M02/M03: MPI-IO without collective operations (more than 1,000 of them), else M04/M05.
  void collective(bool write) {
    const double coll = mpiio_->sum(iosummary::int_counter(darshan::MPIIO_MOD, write ? "MPIIO_COLL_WRITES" : "MPIIO_COLL_READS"));
    const double indep = mpiio_->sum(iosummary::int_counter(darshan::MPIIO_MOD, write ? "MPIIO_INDEP_WRITES" : "MPIIO_INDEP_READS"));
    const double all = coll + indep;
    const char* op = write ? "writes" : "reads";
    if (coll == 0) {
      if (!(all > 0 && all > t_.collective_operations_absolute)) return;
      const case_list& c =
          mpiio_->at(write ? file_metric::independent_writes : file_metric::independent_reads);
      const double stake = write ? mpiio_->write_time : mpiio_->read_time;
      add(write ? "M03" : "M02", level::high,
          std::string("MPI-IO ") + op + where(c) + " are all independent, none collective " +
              evidence_of(indep, "operations", stake),
          std::string("use collective ") + op + " (MPI_File_" + (write ? "write" : "read") +
              "_all, MPI_File_" + (write ? "write" : "read") + "_at_all)",
          stake, indep, "operations", &c);
      return;
    }
    add(write ? "M05" : "M04", level::ok,
        std::string("MPI-IO ") + op + " are collective: " + count(coll) + " (" + percent(coll / all) + ")",
        "", 0, coll, "operations");
  }

  // M06/M07: MPI-IO without non-blocking operations (only where the job reads (writes)
  // through MPI-IO at all; Drishti says it whenever MPI-IO is used).
  void blocking(bool write) {
    const double nb = mpiio_->sum(iosummary::int_counter(darshan::MPIIO_MOD, write ? "MPIIO_NB_WRITES" : "MPIIO_NB_READS"));
    const double all = write ? mpiio_->writes : mpiio_->reads;
    if (nb > 0 || all <= 0) return;
    std::string fix = std::string("overlap them with computation: MPI_File_i") + (write ? "write" : "read") +
                      ", or split collectives (_begin/_end)";
    if (hdf5_) fix += "; with HDF5, the asynchronous I/O VOL connector";
    add(write ? "M07" : "M06", level::warn,
        std::string("All ") + count(all) + " MPI-IO " + (write ? "writes" : "reads") + " block",
        fix, 0, all, "operations");
  }

  const job_summary& j_;
  const thresholds& t_;
  const module_summary* posix_ = nullptr;
  const module_summary* mpiio_ = nullptr;
  const module_summary* stdio_ = nullptr;
  bool hdf5_ = false, lustre_ = false;
  std::vector<insight> out_;
};

}  // namespace

std::vector<insight> find_insights(const job_summary& job, const thresholds& t) {
  return rules(job, t).run();
}

}  // namespace perfdm::ioinsights
