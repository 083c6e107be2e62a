// A lock for the library's small shared tables (open MPI-IO handles, pending aio requests):
// held for a few loads and stores, so a waiter spins rather than sleeping, and it needs no
// initialisation, so it works before any constructor has run. It reads the word while it is
// taken and tries to take it only when it is seen free, so waiters do not keep moving its
// cache line between cores.
#pragma once

namespace perfdm::io::lib {

// Tells the CPU the caller is spinning (x86's pause; elsewhere nothing).
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

struct spin_lock {
  int word = 0;

  void lock() {
    while (__atomic_exchange_n(&word, 1, __ATOMIC_ACQUIRE) != 0) {
      while (__atomic_load_n(&word, __ATOMIC_RELAXED) != 0) spin_pause();
    }
  }
  void unlock() { __atomic_store_n(&word, 0, __ATOMIC_RELEASE); }
};

}  // namespace perfdm::io::lib
