// The names of a Darshan log's records (id -> name), held up to a memory limit so that a log
// of any size reads in bounded memory. Names are packed in one block with a sorted index of
// 16 bytes per name, so the default 64 MiB holds about 1.3 million paths of 35 characters.
// Within the limit (the common case: Darshan's runtime keeps at most 1 MiB of names per
// process) every name is held after one pass over the name region; past it, the names that
// did not fit are fetched for a batch of ids at a time by another pass (fetch()), which a
// printer does once per batch of records it looks ahead at.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "darshan/darshan_log.hpp"

namespace perfdm::darshan {

class name_table {
 public:
  // Reads the names of `log`, keeping up to `max_bytes` (name bytes plus 16 per name).
  explicit name_table(const log_file& log, std::size_t max_bytes = 64u << 20);

  // The name of `id`, or nothing: the log has none for it, or (when !complete()) it was not
  // kept and not fetched. Valid until the next fetch().
  std::optional<std::string_view> find(std::uint64_t id) const;
  // The name of `id` is among those held from the start (not to be fetched).
  bool resident(std::uint64_t id) const;
  // Every name of the log is held.
  bool complete() const { return complete_; }
  std::uint64_t names_in_log() const { return in_log_; }

  // Fetches the names of `ids` that are not held, in one pass over the name region; they
  // stay until the next fetch().
  void fetch(const std::unordered_set<std::uint64_t>& ids);

 private:
  struct entry {
    std::uint64_t id;
    std::uint32_t offset, length;  // in text_
  };
  const entry* lookup(std::uint64_t id) const;

  const log_file& log_;
  std::string text_;            // every held name, back to back
  std::vector<entry> entries_;  // sorted by id, one per id
  std::unordered_map<std::uint64_t, std::string> fetched_;
  bool complete_ = true;
  std::uint64_t in_log_ = 0;
};

// Streams `region`'s records with their names (nothing: the log has none), in bounded
// memory: when `names` does not hold every name, a second reader looks `lookahead` records
// ahead and their names are fetched in one pass before they are delivered.
void for_each_named_record(
    const log_file& log, name_table& names, const module_region& region,
    const std::function<void(const record&, std::optional<std::string_view> name)>& fn,
    std::size_t lookahead = 16384);

}  // namespace perfdm::darshan
