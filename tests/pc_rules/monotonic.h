/* Seconds on the monotonic clock: how the programs of the PC rules' tests keep to their time. */
#pragma once

#include <time.h>

static inline double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
