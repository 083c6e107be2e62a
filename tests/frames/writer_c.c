/* A frames writer in C for the tests: `frames_writer_c N` reads the handle (hex) from a
   line of standard input (the segment's name holds the writer's pid, so the test creates it
   once the writer runs), stores it into perfdm_handle_sample (what perfdm attach does from
   outside), writes N sample frames from one thread with the values of
   tests/frames_test_values.hpp (thread 0), and exits. */
#include <stdio.h>
#include <stdlib.h>

#include "test_frames.h"

int main(int argc, char** argv) {
  unsigned long long n, i;
  char handle[32];
  if (argc != 2) {
    fprintf(stderr, "usage: frames_writer_c N (then the handle in hex on standard input)\n");
    return 2;
  }
  if (!fgets(handle, sizeof handle, stdin)) return 3;
  perfdm_handle_sample = strtoull(handle, NULL, 16);
  n = strtoull(argv[1], NULL, 10);
  for (i = 0; i < n; ++i) {
    perfdm_sample_frame f;
    char label[64];
    PERFDM_sample_SET_small(&f, i & 0xff);
    PERFDM_sample_SET_thread(&f, 0);
    PERFDM_sample_SET_index(&f, i);
    PERFDM_sample_SET_odd(&f, i % 2);
    PERFDM_sample_SET_negative(&f, -(int)(i % 1000));
    snprintf(label, sizeof label, "t0-i%llu-long-tail", i);
    PERFDM_sample_SET_label(&f, label);
    PERFDM_sample_SET_quarter(&f, (double)i * 0.25);
    PERFDM_sample_SET_half(&f, (float)(i % 1000) * 0.5f);
    PERFDM_sample_SET_tiny(&f, -(int)(i % 100));
    PERFDM_sample_SET_medium(&f, i & 0xffff);
    PERFDM_sample_SET_big(&f, (unsigned long)(i * 3));
    PERFDM_sample_SET_wide(&f, -(long long)i * 1000);
    perfdm_write_sample(&f);
  }
  return 0;
}
