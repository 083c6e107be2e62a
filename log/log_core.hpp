// The log core: the bookkeeping modules share (Darshan's "core library"). Modules register
// and are told how much memory they may use out of one pool; names map to stable 64-bit ids
// and are kept once for the name table; records are kept per module within each module's
// grant, and a module that runs out is marked partial instead of failing; write() produces
// the log (NAME.partial, renamed to NAME when complete). Plain C++, not thread-safe: one
// owner (an actor, or a lock around it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "log/log_counters.hpp"
#include "log/log_format.hpp"

namespace perfdm {

struct log_core_options {
  std::size_t module_memory_bytes = 4u << 20;  // the pool every module grant comes out of
  std::size_t name_memory_bytes = 1u << 20;    // the name table's pool
  int compression_level = -1;                  // zlib level, -1 (6) or 0..9
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

  // Adds a record (a module-defined payload, at most logfmt::max_record_bytes). Returns false,
  // and marks the module partial, when the record does not fit in the module's grant.
  // Throws std::invalid_argument for an unregistered module or an oversized payload.
  bool add_record(std::uint32_t module_id, const void* payload, std::size_t size);
  // Adds a record in the generic counters payload (log_counters.hpp).
  bool add_counters(std::uint32_t module_id, std::uint64_t record_id,
                    const std::vector<log_counter>& counters);

  void mark_partial(std::uint32_t module_id);
  bool partial(std::uint32_t module_id) const;
  std::size_t granted(std::uint32_t module_id) const;
  std::size_t used(std::uint32_t module_id) const;
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
    std::vector<std::uint8_t> data;  // length-prefixed records, as written in the region
  };
  struct name {
    std::uint32_t flags = 0;
    std::string bytes;
  };
  module& find(std::uint32_t module_id, const char* what);
  const module& find(std::uint32_t module_id, const char* what) const;

  log_core_options options_;
  std::size_t granted_total_ = 0;
  std::map<std::uint32_t, module> modules_;
  std::map<std::uint64_t, name> names_;
  std::size_t name_bytes_ = 0;
  bool names_partial_ = false;
  std::size_t collisions_ = 0;
  job_record job_;
  std::vector<std::uint8_t> scratch_;
};

}  // namespace perfdm
