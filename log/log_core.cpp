#include "log/log_core.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "log/log_reader.hpp"
#include "log/log_writer.hpp"

namespace perfdm {

namespace {

constexpr std::size_t name_entry_overhead = 16;  // id, flags, length

}  // namespace

log_core::log_core(log_core_options options) : options_(options) {}

std::size_t log_core::register_module(std::string_view name, std::uint32_t module_id,
                                      std::uint32_t version, std::size_t requested_bytes) {
  if (!log_valid_region_name(name)) {
    throw std::invalid_argument("log module name '" + std::string(name) +
                                "': 1-16 characters of A-Z a-z 0-9 _ . -");
  }
  if (module_id < logfmt::first_module_id) {
    throw std::invalid_argument("log module id " + std::to_string(module_id) +
                                ": ids below 16 are the core's");
  }
  if (modules_.count(module_id)) {
    throw std::invalid_argument("log module id " + std::to_string(module_id) +
                                " registered twice");
  }
  for (const auto& [id, m] : modules_) {
    if (m.name == name) {
      throw std::invalid_argument("log module name '" + std::string(name) + "' registered twice");
    }
  }
  module m;
  m.name = std::string(name);
  m.version = version;
  m.grant = std::min(requested_bytes, memory_left());
  granted_total_ += m.grant;
  const std::size_t grant = m.grant;
  modules_.emplace(module_id, std::move(m));
  return grant;
}

log_core::module& log_core::find(std::uint32_t module_id, const char* what) {
  auto it = modules_.find(module_id);
  if (it == modules_.end()) {
    throw std::invalid_argument(std::string(what) + ": log module id " +
                                std::to_string(module_id) + " is not registered");
  }
  return it->second;
}

const log_core::module& log_core::find(std::uint32_t module_id, const char* what) const {
  return const_cast<log_core*>(this)->find(module_id, what);
}

std::uint64_t log_core::lookup_id(const void* bytes, std::size_t size, bool printable) {
  const std::uint64_t id = log_name_id(bytes, size);
  const std::string_view view(static_cast<const char*>(bytes), size);
  add_name(id, printable ? 0 : logfmt::name_not_printable, view);
  return id;
}

void log_core::add_name(std::uint64_t id, std::uint32_t flags, std::string_view bytes) {
  auto it = names_.find(id);
  if (it != names_.end()) {
    if (it->second.bytes != bytes) ++collisions_;
    return;
  }
  const std::size_t cost = name_entry_overhead + bytes.size();
  if (bytes.size() > logfmt::max_name_bytes || name_bytes_ + cost > options_.name_memory_bytes) {
    names_partial_ = true;
    return;
  }
  name n;
  n.flags = (flags & logfmt::name_not_printable) == 0 && log_bytes_printable(bytes)
                ? 0
                : logfmt::name_not_printable;
  n.bytes = std::string(bytes);
  names_.emplace(id, std::move(n));
  name_bytes_ += cost;
}

bool log_core::add_record(std::uint32_t module_id, const void* payload, std::size_t size) {
  module& m = find(module_id, "add_record");
  if (size > logfmt::max_record_bytes) {
    throw std::invalid_argument("log record of " + std::to_string(size) + " bytes (at most " +
                                std::to_string(logfmt::max_record_bytes) + ")");
  }
  if (m.reduce) return add_reduced(m, static_cast<const std::uint8_t*>(payload), size);
  const std::size_t cost = 4 + size;
  if (m.used + cost > m.grant) {
    m.partial = true;
    return false;
  }
  if (m.data.size() + cost > m.data.capacity()) {
    // Grow geometrically, never past the grant.
    m.data.reserve(std::min(m.grant, std::max(m.data.size() + cost, 2 * m.data.capacity())));
  }
  const auto n = static_cast<std::uint32_t>(size);
  const auto* len = reinterpret_cast<const std::uint8_t*>(&n);
  m.data.insert(m.data.end(), len, len + 4);
  const auto* p = static_cast<const std::uint8_t*>(payload);
  m.data.insert(m.data.end(), p, p + size);
  m.used += cost;
  ++m.records;
  return true;
}

bool log_core::add_reduced(module& m, const std::uint8_t* payload, std::size_t size) {
  if (size < 8) {
    throw std::invalid_argument("log module " + m.name + " reduces records by id: a record of " +
                                std::to_string(size) + " bytes has no 8-byte record id");
  }
  std::uint64_t id;
  std::memcpy(&id, payload, 8);
  auto it = m.index.find(id);
  if (it == m.index.end()) {
    const std::size_t cost = 4 + size;
    if (m.used + cost > m.grant) {
      m.partial = true;
      return false;
    }
    m.index.emplace(id, m.shared.size());
    m.shared.emplace_back(payload, payload + size);
    m.used += cost;
    ++m.records;
    return true;
  }
  std::vector<std::uint8_t>& kept = m.shared[it->second];
  // Reduce a copy, so that a reduction that throws or does not fit leaves the kept record.
  reduce_scratch_.assign(kept.begin(), kept.end());
  m.reduce(reduce_scratch_, payload, size);
  std::uint64_t after = 0;
  if (reduce_scratch_.size() >= 8) std::memcpy(&after, reduce_scratch_.data(), 8);
  if (reduce_scratch_.size() < 8 || after != id ||
      reduce_scratch_.size() > logfmt::max_record_bytes) {
    throw std::logic_error("log module " + m.name + ": its reduction of record " +
                           std::to_string(id) + " gave " + std::to_string(reduce_scratch_.size()) +
                           " bytes that do not start with the record id or are too many");
  }
  const std::size_t used = m.used - kept.size() + reduce_scratch_.size();
  if (used > m.grant) {
    m.partial = true;
    return false;
  }
  kept.swap(reduce_scratch_);
  m.used = used;
  return true;
}

bool log_core::add_counters(std::uint32_t module_id, std::uint64_t record_id,
                            const std::vector<log_counter>& counters) {
  scratch_.clear();
  encode_log_counters(record_id, counters, scratch_);
  return add_record(module_id, scratch_.data(), scratch_.size());
}

void log_core::mark_partial(std::uint32_t module_id) { find(module_id, "mark_partial").partial = true; }
bool log_core::partial(std::uint32_t module_id) const { return find(module_id, "partial").partial; }
std::size_t log_core::granted(std::uint32_t module_id) const { return find(module_id, "granted").grant; }
std::size_t log_core::used(std::uint32_t module_id) const { return find(module_id, "used").used; }
std::size_t log_core::records(std::uint32_t module_id) const { return find(module_id, "records").records; }

void log_core::set_reduction(std::uint32_t module_id, log_reduction reduce) {
  module& m = find(module_id, "set_reduction");
  if (!reduce) throw std::invalid_argument("set_reduction: an empty reduction for " + m.name);
  if (m.records > 0) {
    throw std::invalid_argument("set_reduction: log module " + m.name +
                                " has records already (set the reduction first)");
  }
  m.reduce = std::move(reduce);
}

void log_core::set_counters_reduction(std::uint32_t module_id, log_counters_reduction how) {
  set_reduction(module_id, [how = std::move(how)](std::vector<std::uint8_t>& shared,
                                                  const std::uint8_t* payload, std::size_t size) {
    reduce_log_counters(shared, payload, size, how);
  });
}

template <class F>
void log_core::for_each_record(const module& m, F&& fn) {
  if (m.reduce) {
    for (const auto& r : m.shared) fn(r.data(), r.size());
    return;
  }
  for (std::size_t at = 0; at < m.data.size();) {
    std::uint32_t n;
    std::memcpy(&n, m.data.data() + at, 4);
    fn(m.data.data() + at + 4, std::size_t{n});
    at += 4 + std::size_t{n};
  }
}

void log_core::merge_job(const job_record& other) {
  for (const auto pid : other.pids) {
    if (std::find(job_.pids.begin(), job_.pids.end(), pid) == job_.pids.end()) {
      job_.pids.push_back(pid);
    }
  }
  if (other.start_ns != 0 && (job_.start_ns == 0 || other.start_ns < job_.start_ns)) {
    job_.start_ns = other.start_ns;
  }
  if (other.end_ns != 0 && (job_.end_ns == 0 || other.end_ns > job_.end_ns)) {
    job_.end_ns = other.end_ns;
  }
  if (job_.command_line.empty()) job_.command_line = other.command_line;
  if (job_.host.empty()) job_.host = other.host;
  if (job_.metadata.empty()) job_.metadata = other.metadata;
}

bool log_core::merge(const log_core& other) {
  if (&other == this) throw std::invalid_argument("merge: a log core merged into itself");
  for (const auto& [id, om] : other.modules_) {
    const module& m = find(id, "merge");
    if (m.version != om.version) {
      throw std::invalid_argument("merge: log module " + om.name + " (id " + std::to_string(id) +
                                  ") is version " + std::to_string(om.version) +
                                  " there, version " + std::to_string(m.version) + " here");
    }
  }
  merge_job(other.job_);
  for (const auto& [id, n] : other.names_) add_name(id, n.flags, n.bytes);
  if (other.names_partial_) names_partial_ = true;
  collisions_ += other.collisions_;
  bool all = true;
  for (const auto& [id, om] : other.modules_) {
    const std::uint32_t module_id = id;
    if (om.partial) modules_.at(module_id).partial = true;
    for_each_record(om, [&](const std::uint8_t* p, std::size_t n) {
      all = add_record(module_id, p, n) && all;
    });
  }
  return all;
}

bool log_core::merge(const log_reader& log) {
  for (const auto& r : log.regions()) {
    if (r.id < logfmt::first_module_id) continue;
    const module& m = find(r.id, "merge");
    if (m.version != r.version) {
      throw std::invalid_argument("merge: log module " + r.name + " (id " + std::to_string(r.id) +
                                  ") is version " + std::to_string(r.version) + " in " +
                                  log.path() + ", version " + std::to_string(m.version) + " here");
    }
  }
  bool all = true;
  for (const auto& r : log.regions()) {
    if (r.id == logfmt::region_job) {
      if (r.version == logfmt::job_version) merge_job(log.read_job(r));
    } else if (r.id == logfmt::region_names) {
      if (r.version != logfmt::names_version) continue;
      const log_name_table t = log.read_names(r);
      for (const auto& [id, n] : t.names) add_name(id, n.flags, n.bytes);
      if ((r.flags & logfmt::flag_partial) != 0 || t.dropped > 0) names_partial_ = true;
    } else if (r.id >= logfmt::first_module_id) {
      if ((r.flags & logfmt::flag_partial) != 0) mark_partial(r.id);
      log.for_each_record(
          r, [&](const std::uint8_t* p, std::size_t n) { all = add_record(r.id, p, n) && all; });
    }
  }
  return all;
}

void log_core::write(const std::string& path) const {
  log_writer w(path, static_cast<std::uint32_t>(2 + modules_.size()), options_.compression_level,
               options_.compression);
  w.write_job(job_);
  w.begin_region(logfmt::region_names, logfmt::names_version, "names",
                 names_partial_ ? logfmt::flag_partial : 0);
  std::vector<std::uint8_t> entry;
  for (const auto& [id, n] : names_) {
    entry.clear();
    byte_sink s(entry);
    s.u64(id);
    s.u32(n.flags);
    s.u32(static_cast<std::uint32_t>(n.bytes.size()));
    w.write(entry.data(), entry.size());
    w.write(n.bytes.data(), n.bytes.size());
  }
  w.end_region();
  for (const auto& [id, m] : modules_) {  // ascending module id
    w.begin_region(id, m.version, m.name, m.partial ? logfmt::flag_partial : 0);
    if (m.reduce) {
      for (const auto& r : m.shared) w.write_record(r.data(), r.size());
    } else {
      w.write(m.data.data(), m.data.size());
    }
    w.end_region();
  }
  w.finish();
}

}  // namespace perfdm
