// The log core: the bookkeeping modules share (Darshan's "core library"). Modules register
// and are told how much memory they may use out of one pool; names map to stable 64-bit ids
// and are kept once for the name table; records are kept per module within each module's
// grant, and a module that runs out is marked partial instead of failing; a module may set a
// reduction so that records of the same id (from several processes, daemons, or cores merged
// with merge()) are kept as one shared record; write() produces the log (NAME.partial,
// renamed to NAME when complete). Plain C++, not thread-safe: one owner (an actor, or a lock
// around it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "log/log_codec.hpp"
#include "log/log_counters.hpp"
#include "log/log_format.hpp"

namespace perfdm {

class log_reader;

// A module's reduction: folds `payload`, a record whose record id is that of `shared`, into
// `shared`, the record kept for that id; it may change the size of `shared`. Records of a
// module with a reduction start with their u64 record id (as the counters payload does).
// It may throw (log_error for a malformed record): the record kept is then left as it was.
using log_reduction = std::function<void(std::vector<std::uint8_t>& shared,
                                         const std::uint8_t* payload, std::size_t size)>;

struct log_core_options {
  std::size_t module_memory_bytes = 4u << 20;  // the pool every module grant comes out of
  std::size_t name_memory_bytes = 1u << 20;    // the name table's pool
  log_compression compression = log_compression::zlib;  // of every region (LOG-FORMAT.md 1)
  int compression_level = log_default_level;  // -1: its default; zlib 0..9, zstd 1..19
};

class log_core {
 public:
  explicit log_core(log_core_options options = {});

  // Registers a module: `name` 1-16 characters of [A-Za-z0-9_.-], `module_id` >= 16, unique.
  // Returns the grant: how many bytes of records the module may keep, `requested_bytes` or
  // what is left of the pool when that is less (possibly 0). Records cost 4 + payload bytes.
  // Throws std::invalid_argument for a bad name or id, or a module registered twice.
  std::size_t register_module(std::string_view name, std::uint32_t module_id,
                              std::uint32_t version, std::size_t requested_bytes);
  std::size_t memory_left() const { return options_.module_memory_bytes - granted_total_; }

  // The stable id of a name (64-bit FNV-1a of its bytes); the name is kept once for the
  // name table (16 + size bytes of the name pool). `printable` false: the name is not text
  // (an object id, say); names holding control bytes are flagged not printable anyway.
  // When the name pool is full the id is still returned, the name is not kept, and the
  // name table is marked partial.
  std::uint64_t lookup_id(const void* name, std::size_t size, bool printable);
  std::uint64_t lookup_id(std::string_view name) { return lookup_id(name.data(), name.size(), true); }
  // Keeps `name` in the name table under an id the module computed itself (Darshan's record
  // ids, a hash of their own), with the same rules as lookup_id.
  void add_name_with_id(std::uint64_t id, std::string_view name, bool printable = true) {
    add_name(id, printable ? 0 : logfmt::name_not_printable, name);
  }

  // Adds a record (a module-defined payload, at most logfmt::max_record_bytes). Returns false,
  // and marks the module partial, when the record does not fit in the module's grant.
  // Throws std::invalid_argument for an unregistered module or an oversized payload.
  bool add_record(std::uint32_t module_id, const void* payload, std::size_t size);
  // Adds a record in the generic counters payload (log_counters.hpp).
  bool add_counters(std::uint32_t module_id, std::uint64_t record_id,
                    const std::vector<log_counter>& counters);

  // Sets the module's reduction, before its first record (std::invalid_argument otherwise).
  // From then on the module keeps one record per record id (the payload's first 8 bytes;
  // add_record throws std::invalid_argument for a shorter payload), in order of first
  // appearance: adding a record whose id is kept already calls `reduce(kept, payload, size)`
  // on a copy of the kept record, which replaces it. The grant is charged the change in size
  // (a shrinking record gives bytes back); when the reduced record would not fit the grant,
  // the kept record stays as it was, add_record returns false and the module is marked
  // partial. A reduction leaving a record without its id, with another id, or over
  // logfmt::max_record_bytes is a bug: std::logic_error.
  void set_reduction(std::uint32_t module_id, log_reduction reduce);
  // The reduction of the generic counters payload (reduce_log_counters, log_counters.hpp):
  // per counter name, sum (the default), min or max; counters missing on one side are kept.
  void set_counters_reduction(std::uint32_t module_id, log_counters_reduction how = {});

  // Adds every record of `other` (another process's or daemon's core) to this core, through
  // this core's reductions: each module of `other` must be registered here with the same
  // version, checked before anything is added (std::invalid_argument otherwise; merging a
  // core into itself too). Names are added (within this name pool), partial flags carried
  // over, process ids appended, start and end times widened (0 counts as unset); command
  // line, host and metadata are taken from `other` only when empty here. Returns false when
  // a record was dropped for lack of memory (its module is then marked partial).
  bool merge(const log_core& other);
  // The same for a log read from a file (the log of another process or daemon): its job
  // record, name table and module regions (reserved regions 2-15 are skipped). Throws
  // log_error when the log is corrupt (records merged before the problem stay merged).
  bool merge(const log_reader& log);

  void mark_partial(std::uint32_t module_id);
  bool partial(std::uint32_t module_id) const;
  std::size_t granted(std::uint32_t module_id) const;
  // Bytes of the grant used: 4 + payload bytes per record kept (a reduced record counts at
  // its current size).
  std::size_t used(std::uint32_t module_id) const;
  // Records kept (with a reduction: distinct record ids).
  std::size_t records(std::uint32_t module_id) const;

  bool names_partial() const { return names_partial_; }
  std::size_t name_count() const { return names_.size(); }
  std::size_t name_memory_used() const { return name_bytes_; }
  // Different names with the same id seen (the first name is kept).
  std::size_t id_collisions() const { return collisions_; }

  job_record& job() { return job_; }
  const job_record& job() const { return job_; }

  // Writes the log: `path`.partial, renamed to `path` once complete. Throws log_error.
  void write(const std::string& path) const;

 private:
  struct module {
    std::string name;
    std::uint32_t version = 0;
    std::size_t grant = 0;
    bool partial = false;
    std::size_t records = 0;
    std::size_t used = 0;            // 4 + payload bytes per record kept
    std::vector<std::uint8_t> data;  // no reduction: length-prefixed records, as written
    log_reduction reduce;            // set: one record per id, in `shared`
    std::vector<std::vector<std::uint8_t>> shared;         // in order of first appearance
    std::unordered_map<std::uint64_t, std::size_t> index;  // record id -> position in shared
  };
  struct name {
    std::uint32_t flags = 0;
    std::string bytes;
  };
  module& find(std::uint32_t module_id, const char* what);
  const module& find(std::uint32_t module_id, const char* what) const;
  bool add_reduced(module& m, const std::uint8_t* payload, std::size_t size);
  void add_name(std::uint64_t id, std::uint32_t flags, std::string_view bytes);
  void merge_job(const job_record& other);
  template <class F>
  static void for_each_record(const module& m, F&& fn);

  log_core_options options_;
  std::size_t granted_total_ = 0;
  std::map<std::uint32_t, module> modules_;
  std::map<std::uint64_t, name> names_;
  std::size_t name_bytes_ = 0;
  bool names_partial_ = false;
  std::size_t collisions_ = 0;
  job_record job_;
  std::vector<std::uint8_t> scratch_;         // add_counters' encoded record
  std::vector<std::uint8_t> reduce_scratch_;  // the copy a reduction works on
};

}  // namespace perfdm
