// A record's lock, which is also a sequence number for readers in other processes (a
// seqlock): a writer makes it odd while it changes the record and even again when done; a
// reader copies the record and keeps the copy when the number was even and unchanged around
// the copy. Writers wait for each other (a spin: updates take tens of nanoseconds); readers
// never block a writer. A writer killed in the middle leaves it odd for good: a reader then
// takes the record as it is (every counter of every call before, the last call partly).
#pragma once

#include <cstdint>
#include <cstring>

namespace perfdm::io {

struct record_lock {
  std::uint32_t seq;

  // Spins until the record is ours. Returns false (without the lock) after `max_spins`
  // tries, for callers that must not wait forever (a signal handler interrupting the holder).
  bool lock(std::uint32_t max_spins = ~0u) {
    for (std::uint32_t n = 0;; ++n) {
      std::uint32_t s = __atomic_load_n(&seq, __ATOMIC_RELAXED);
      if ((s & 1u) == 0 &&
          __atomic_compare_exchange_n(&seq, &s, s + 1, true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        return true;
      }
      if (n >= max_spins) return false;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }
  void unlock() {
    __atomic_store_n(&seq, seq + 1, __ATOMIC_RELEASE);
  }
};

// Copies `size` bytes of a record guarded by `lock` (its first member) into `out`, retrying
// while a writer is at work; after `max_tries` (a writer that died holding it) the copy is
// taken as it is. Returns true for a consistent copy.
inline bool read_record(const void* record, void* out, std::size_t size, int max_tries = 1000) {
  const auto* seq = static_cast<const std::uint32_t*>(record);
  for (int t = 0;; ++t) {
    const std::uint32_t before = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
    std::memcpy(out, record, size);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    const std::uint32_t after = __atomic_load_n(seq, __ATOMIC_RELAXED);
    if ((before & 1u) == 0 && before == after) return true;
    if (t >= max_tries) return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

}  // namespace perfdm::io
