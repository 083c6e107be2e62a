#include "log/log_core.hpp"

#include <algorithm>
#include <stdexcept>

#include "log/log_writer.hpp"

namespace perfdm {

namespace {

bool valid_module_name(std::string_view n) {
  if (n.empty() || n.size() > logfmt::module_name_size) return false;
  for (char c : n) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

constexpr std::size_t name_entry_overhead = 16;  // id, flags, length

}  // namespace

log_core::log_core(log_core_options options) : options_(options) {}

std::size_t log_core::register_module(std::string_view name, std::uint32_t module_id,
                                      std::uint32_t version, std::size_t requested_bytes) {
  if (!valid_module_name(name)) {
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
  auto it = names_.find(id);
  if (it != names_.end()) {
    if (it->second.bytes != view) ++collisions_;
    return id;
  }
  const std::size_t cost = name_entry_overhead + size;
  if (size > logfmt::max_name_bytes || name_bytes_ + cost > options_.name_memory_bytes) {
    names_partial_ = true;
    return id;
  }
  name n;
  n.flags = printable && log_bytes_printable(view) ? 0 : logfmt::name_not_printable;
  n.bytes = std::string(view);
  names_.emplace(id, std::move(n));
  name_bytes_ += cost;
  return id;
}

bool log_core::add_record(std::uint32_t module_id, const void* payload, std::size_t size) {
  module& m = find(module_id, "add_record");
  if (size > logfmt::max_record_bytes) {
    throw std::invalid_argument("log record of " + std::to_string(size) + " bytes (at most " +
                                std::to_string(logfmt::max_record_bytes) + ")");
  }
  const std::size_t cost = 4 + size;
  if (m.data.size() + cost > m.grant) {
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
  ++m.records;
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
std::size_t log_core::used(std::uint32_t module_id) const { return find(module_id, "used").data.size(); }
std::size_t log_core::records(std::uint32_t module_id) const { return find(module_id, "records").records; }

void log_core::write(const std::string& path) const {
  log_writer w(path, static_cast<std::uint32_t>(2 + modules_.size()), options_.compression_level);
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
    w.write(m.data.data(), m.data.size());
    w.end_region();
  }
  w.finish();
}

}  // namespace perfdm
