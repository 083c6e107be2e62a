// Reading a Darshan log (formats 3.00 to 3.41, either byte order, zlib, bzip2 or stored
// regions) in bounded memory: the header, the job record with the command line and mount
// table are read on opening; names and module records are streamed region by region, one
// record at a time. A report walks a log like this:
//
//   darshan::log_file log(path);                       // throws darshan_error
//   log.job().nprocs; log.job().mounts;
//   for (const auto& m : log.modules())                // regions in the log, by module id
//     log.for_each_record(m, [&](const darshan::record& r) {
//       r.counter(darshan::POSIX_BYTES_READ);          // current counter names, any version
//     });
//   darshan::name_table names(log);                    // id -> name, bounded (darshan_names.hpp)
//   for (const auto& n : log.notes()) ...              // what could not be read, and why
//
// Damage (a truncated file, a region that claims more bytes than the file holds, data that
// does not decompress, a record cut short) never throws once the log is open: reading stops
// at the damage, the records before it are delivered, and notes() says what was lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "darshan/darshan_error.hpp"
#include "darshan/darshan_format.hpp"
#include "darshan/darshan_layouts.hpp"

namespace perfdm::darshan {

struct mount {
  std::string point;  // mount point
  std::string type;   // file system type
};

struct job_info {
  std::int64_t uid = 0, start_time_sec = 0, start_time_nsec = 0, end_time_sec = 0,
               end_time_nsec = 0, nprocs = 0, jobid = 0;
  // key=value lines of the metadata, split at the first '=' (lines without one are kept
  // out, as darshan-parser does).
  std::vector<std::pair<std::string, std::string>> metadata;
  std::string exe;             // the command line
  std::vector<mount> mounts;   // longest mount point first, as names are matched
  // Seconds between start and end: with nanoseconds from format 3.41 on; before, whole
  // seconds + 1 (darshan-util's rule).
  double run_time = 0;
};

// One module's region as the header describes it (module ids in the current numbering).
struct module_region {
  int id = 0;                  // darshan::module_id, or >= known_module_count: unknown
  std::string name;            // as darshan-parser names it for this log's format
  std::uint32_t version = 0;   // the module's record version
  std::uint64_t offset = 0, length = 0;  // in the file (compressed bytes)
  bool partial = false;        // the runtime ran out of memory for this module's records
  const record_layout* layout = nullptr;  // null: a module or version this reader cannot read
};

// One DXT segment (an I/O operation).
struct dxt_segment {
  std::int64_t offset = 0, length = 0;
  double start_time = 0, end_time = 0;
  std::uint64_t thread = 0;  // pthread id (0 when the version has none)
};

struct lustre_component {
  std::int64_t counters[7] = {};  // LUSTRE_COMP_COUNTERS order
  std::string pool_name;
};

// One record, as for_each_record delivers it: valid during the callback only.
struct record {
  const record_layout* layout = nullptr;
  int module = 0;
  std::uint64_t id = 0;
  std::int64_t rank = 0;

  // counters: this version's counters in record order (layout->ints / layout->floats).
  const std::int64_t* ints = nullptr;
  const double* floats = nullptr;
  std::uint64_t file_rec_id = 0;  // H5D 2, PNETCDF_VAR (layout->file_rec_id)
  // A counter of the current version (darshan_counters.hpp index) whatever the record's
  // version: a counter this version lacks reads as darshan-util fills it (-1; 0 for
  // POSIX_RENAMED_FROM); counters the current version merged are summed.
  std::int64_t counter(std::size_t current_index) const;
  double fcounter(std::size_t current_index) const;

  // heatmap: bytes per bin.
  double bin_width_seconds = 0;
  std::int64_t nbins = 0;
  const std::int64_t* write_bins = nullptr;
  const std::int64_t* read_bins = nullptr;

  // lustre (version 1 is given as one component: stripe size and width, its OSTs).
  std::vector<lustre_component> components;
  const std::int64_t* ost_ids = nullptr;
  std::int64_t ost_count = 0;
  std::int64_t v1_osts = 0, v1_mdts = 0, v1_stripe_offset = 0;  // lustre version 1 only

  // dxt: the header; segments through for_each_segment (writes, then reads).
  std::int64_t shared_record = 0;
  std::string_view hostname;
  std::int64_t write_count = 0, read_count = 0;
  // Calls fn with the segments in order, in batches; may be called more than once.
  std::function<void(const std::function<void(const dxt_segment*, std::size_t)>&)>
      for_each_segment;
};

struct log_options {
  std::size_t chunk_bytes = 256u << 10;  // compressed bytes read at a time
  // A DXT record's segments are held in memory up to this many; a record with more is
  // streamed again for each pass over its segments.
  std::size_t max_buffered_segments = 1u << 18;
};

class log_file {
 public:
  // Opens `path` and reads its header and job record. Throws darshan_error when it is not
  // a Darshan log, its format version is not one of 3.00, 3.10, 3.20, 3.21, 3.41, its
  // header is cut short or its job record cannot be read at all.
  explicit log_file(const std::string& path, log_options options = {});
  ~log_file();
  log_file(const log_file&) = delete;
  log_file& operator=(const log_file&) = delete;

  const std::string& path() const { return path_; }
  const std::string& version() const { return version_; }  // "3.41"
  bool byte_swapped() const { return swapped_; }           // written on the other byte order
  unsigned char compression() const { return compression_; }
  std::uint64_t file_size() const { return size_; }
  std::uint64_t header_size() const { return header_size_; }
  std::uint64_t job_region_length() const { return job_length_; }
  std::uint64_t name_region_length() const { return name_length_; }
  std::uint64_t partial_flags() const { return partial_flags_; }  // bit per current module id
  const job_info& job() const { return job_; }
  // Every module with data or the partial flag, by module id.
  const std::vector<module_region>& modules() const { return modules_; }
  const module_region* find(int module) const;
  // What could not be read so far, and why (grows as regions are read).
  const std::vector<std::string>& notes() const { return notes_; }

  // Streams the name records: fn(id, name).
  void for_each_name(const std::function<void(std::uint64_t, std::string_view)>& fn) const;
  // Streams the records of `region` in stored order (record_reader below). Nothing for a
  // region without a layout (a note says why).
  void for_each_record(const module_region& region,
                       const std::function<void(const record&)>& fn) const;

  // True when `path` starts like a Darshan log (its magic number in either byte order).
  static bool is_darshan_log(const std::string& path);

 private:
  void read_header();
  void read_job();
  void note(std::string text) const;

  friend class record_reader;

  std::string path_;
  log_options options_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string version_;
  int minor_ = 0;
  bool swapped_ = false;
  unsigned char compression_ = 0;
  std::uint64_t header_size_ = 0;
  std::uint64_t job_offset_ = 0, job_length_ = 0;
  std::uint64_t name_offset_ = 0, name_length_ = 0;
  std::uint64_t partial_flags_ = 0;
  job_info job_;
  std::vector<module_region> modules_;
  mutable std::vector<std::string> notes_;
};

class region_stream;

// Reads one module region's records one at a time, in stored order: two readers over one
// region read it independently (a printer can look ahead with one and print with the other).
class record_reader {
 public:
  record_reader(const log_file& log, const module_region& region);
  ~record_reader();
  record_reader(const record_reader&) = delete;
  record_reader& operator=(const record_reader&) = delete;

  // The next record, or null at the end of the region's data (or at damage, with a note in
  // the log's notes()). Valid until the next call.
  const record* next();
  std::uint64_t records_read() const { return count_; }

 private:
  const record* read_next();
  bool read_bytes(void* out, std::size_t size, bool started);
  bool read_values(std::vector<std::int64_t>& into, std::uint64_t count);
  void stream_segments(const std::function<void(const dxt_segment*, std::size_t)>& out,
                       std::vector<dxt_segment>* keep);

  const log_file& log_;
  const module_region& region_;
  std::string what_;
  std::unique_ptr<region_stream> stream_;
  record rec_;
  bool done_ = false;
  std::uint64_t count_ = 0;
  std::vector<unsigned char> raw_;
  std::vector<std::int64_t> ints_;
  std::vector<double> floats_;
  std::vector<std::int64_t> extra_;
  std::string hostname_;
  std::vector<dxt_segment> segments_;
  std::int64_t first_nbins_ = 0;
  double first_width_ = 0;
  // The DXT record being read: where its segments start and end in the region.
  std::uint64_t dxt_start_ = 0, dxt_end_ = 0, dxt_total_ = 0;
  bool dxt_pending_ = false, dxt_cut_ = false;
};

// "ZLIB", "BZIP2", "NONE" or "UNKNOWN", as darshan-parser names a compression.
std::string_view compression_name(unsigned char compression);

}  // namespace perfdm::darshan
