/* A program built "with the generated component" for the attach tests: it defines the
   handle and layout symbols the way generated code does (docs/FRAMES.md §3: extern "C"
   globals, a volatile uint64_t handle, a NUL-terminated const char[] descriptor) for two
   frame types, demo and ticks, and reports on standard output:
     ready <address of perfdm_handle_demo> <address of perfdm_handle_ticks>   (hex, at start)
     demo <handle as 16 hex digits>     whenever perfdm_handle_demo changes
     ticks <handle as 16 hex digits>    whenever perfdm_handle_ticks changes
   It exits when its standard input reaches end of file. Built as PIE and as non-PIE. */
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "attach_layouts.h"

volatile uint64_t perfdm_handle_demo = 0;
const char perfdm_layout_demo[] = ATTACH_DEMO_LAYOUT;
const uint64_t perfdm_layout_hash_demo = 0x5d2c1e0a9b7f3c41u; /* not checked by attach */

volatile uint64_t perfdm_handle_ticks = 0;
const char perfdm_layout_ticks[] = ATTACH_TICKS_LAYOUT;
const uint64_t perfdm_layout_hash_ticks = 0x0c93d1a7e45b2f86u;

static void report(const char* name, uint64_t* seen, uint64_t now) {
  if (now == *seen) return;
  printf("%s %016" PRIx64 "\n", name, now);
  fflush(stdout);
  *seen = now;
}

int main(void) {
  printf("ready %" PRIxPTR " %" PRIxPTR "\n", (uintptr_t)&perfdm_handle_demo,
         (uintptr_t)&perfdm_handle_ticks);
  fflush(stdout);
  uint64_t demo = 0, ticks = 0;
  struct pollfd in = {0, POLLIN, 0};
  for (;;) {
    report("demo", &demo, perfdm_handle_demo);
    report("ticks", &ticks, perfdm_handle_ticks);
    if (poll(&in, 1, 1) > 0) {
      char buf[64];
      if (read(0, buf, sizeof buf) <= 0) return 0;
    }
  }
}
