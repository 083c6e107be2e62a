#include "darshan/darshan_names.hpp"

#include <algorithm>

namespace perfdm::darshan {

name_table::name_table(const log_file& log, std::size_t max_bytes) : log_(log) {
  max_bytes = std::min<std::size_t>(max_bytes, UINT32_MAX);
  // Names are kept in log order until the first that does not fit; none after it, so that
  // every name met before a kept one was kept too (Darshan's rule below needs the first).
  log.for_each_name([&](std::uint64_t id, std::string_view name) {
    ++in_log_;
    if (!complete_ || text_.size() + name.size() + 16 * (entries_.size() + 1) > max_bytes) {
      complete_ = false;
      return;
    }
    entries_.push_back({id, static_cast<std::uint32_t>(text_.size()),
                        static_cast<std::uint32_t>(name.size())});
    text_.append(name);
  });
  // One entry per id. Darshan's rule for an id met twice: the first name stays, unless it
  // is empty and a later one is not.
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const entry& a, const entry& b) { return a.id < b.id; });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < entries_.size();) {
    std::size_t j = i;
    const entry* best = &entries_[i];
    for (; j < entries_.size() && entries_[j].id == entries_[i].id; ++j)
      if (best->length == 0 && entries_[j].length > 0) best = &entries_[j];
    entries_[kept++] = *best;
    i = j;
  }
  entries_.resize(kept);
  entries_.shrink_to_fit();
}

const name_table::entry* name_table::lookup(std::uint64_t id) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                             [](const entry& e, std::uint64_t v) { return e.id < v; });
  return it != entries_.end() && it->id == id ? &*it : nullptr;
}

// An empty name held from the start may have a name later in the log, past the limit.
bool name_table::resident(std::uint64_t id) const {
  const entry* e = lookup(id);
  return e && (complete_ || e->length > 0);
}

std::optional<std::string_view> name_table::find(std::uint64_t id) const {
  const entry* e = lookup(id);
  if (e && (complete_ || e->length > 0)) return std::string_view(text_).substr(e->offset, e->length);
  auto f = fetched_.find(id);
  if (f != fetched_.end()) return std::string_view(f->second);
  if (e) return std::string_view();
  return std::nullopt;
}

void name_table::fetch(const std::unordered_set<std::uint64_t>& ids) {
  fetched_.clear();
  if (complete_ || ids.empty()) return;
  log_.for_each_name([&](std::uint64_t id, std::string_view name) {
    if (!ids.count(id) || resident(id)) return;
    auto [it, added] = fetched_.try_emplace(id, name);
    if (!added && it->second.empty() && !name.empty()) it->second.assign(name);
  });
}

void for_each_named_record(
    const log_file& log, name_table& names, const module_region& region,
    const std::function<void(const record&, std::optional<std::string_view>)>& fn,
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
