#include "darshan/darshan_names.hpp"

#include <algorithm>

namespace perfdm::darshan {

void name_table::keep(std::unordered_map<std::uint64_t, std::string>& into, std::uint64_t id,
                      std::string_view name) {
  auto [it, added] = into.try_emplace(id, name);
  if (!added && it->second.empty() && !name.empty()) it->second.assign(name);
}

name_table::name_table(const log_file& log, std::size_t max_bytes) : log_(log) {
  std::size_t used = 0;
  log.for_each_name([&](std::uint64_t id, std::string_view name) {
    ++in_log_;
    if (names_.count(id)) {
      keep(names_, id, name);
      return;
    }
    if (used + name.size() + 64 > max_bytes) {
      complete_ = false;
      return;
    }
    used += name.size() + 64;
    keep(names_, id, name);
  });
}

const std::string* name_table::find(std::uint64_t id) const {
  auto it = names_.find(id);
  if (it != names_.end()) return &it->second;
  auto f = fetched_.find(id);
  return f == fetched_.end() ? nullptr : &f->second;
}

void name_table::fetch(const std::unordered_set<std::uint64_t>& ids) {
  fetched_.clear();
  if (complete_ || ids.empty()) return;
  log_.for_each_name([&](std::uint64_t id, std::string_view name) {
    if (ids.count(id) && !names_.count(id)) keep(fetched_, id, name);
  });
}

void for_each_named_record(const log_file& log, name_table& names, const module_region& region,
                           const std::function<void(const record&, const std::string*)>& fn,
                           std::size_t lookahead) {
  record_reader reader(log, region);
  if (names.complete()) {
    while (const record* r = reader.next()) fn(*r, names.find(r->id));
    return;
  }
  record_reader ahead(log, region);
  std::unordered_set<std::uint64_t> wanted;
  for (;;) {
    wanted.clear();
    std::size_t n = 0;
    while (n < std::max<std::size_t>(lookahead, 1)) {
      const record* a = ahead.next();
      if (!a) break;
      if (!names.resident(a->id)) wanted.insert(a->id);
      ++n;
    }
    if (n == 0) break;
    names.fetch(wanted);
    for (std::size_t i = 0; i < n; ++i) {
      const record* r = reader.next();
      if (!r) return;
      fn(*r, names.find(r->id));
    }
  }
}

}  // namespace perfdm::darshan
