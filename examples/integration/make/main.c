/* A C program instrumented with perfdm: one `tick` frame per millisecond (ticks.frames).
   `ticks [SECONDS]` runs for SECONDS (default 10). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ticks_frames.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 10;
  const double end = now() + seconds;
  const struct timespec ms = {0, 1000000};
  unsigned long n;
  printf("ticks: pid %d, running %g s\n", (int)getpid(), seconds);
  fflush(stdout);
  for (n = 0; now() < end; ++n) {
    perfdm_tick_frame f;
    PERFDM_tick_SET_count(&f, 1);
    PERFDM_tick_SET_queue_depth(&f, n % 32);
    PERFDM_tick_SET_temperature(&f, 0, 20.0f + (float)(n % 10));
    PERFDM_tick_SET_temperature(&f, 1, -5.0f);
    perfdm_write_tick(&f);
    nanosleep(&ms, NULL);
  }
  return 0;
}
