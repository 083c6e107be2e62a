/* What one I/O call costs a program, measured by the program itself (bench/io/io_cost.sh runs
 * it alone, under Darshan's LD_PRELOAD library and under perfdm's, alternately):
 *   io_cost OP N DIR      N calls of OP, one byte each, on a file in DIR (page cache), after
 *                         N/10 calls to warm up; prints "OP <ns per call>"
 *   io_cost files N DIR   opens N files of DIR (create, write a byte, close); prints
 *                         "files N rss_kib <VmRSS>" (the memory the records take)
 * OP: pread pwrite read write fwrite openclose. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static long rss_kib(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kib = atol(line + 6);
  if (f) fclose(f);
  return kib;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: io_cost pread|pwrite|read|write|fwrite|openclose|files N DIR\n");
    return 2;
  }
  const char* op = argv[1];
  const long n = atol(argv[2]);
  char path[4096];
  if (!strcmp(op, "files")) {
    for (long i = 0; i < n; i++) {
      snprintf(path, sizeof path, "%s/f%06ld", argv[3], i);
      int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
      if (fd < 0 || write(fd, "x", 1) != 1) return 3;
      close(fd);
    }
    printf("files %ld rss_kib %ld\n", n, rss_kib());
    return 0;
  }
  snprintf(path, sizeof path, "%s/cost.bin", argv[3]);
  const long warm = n / 10;
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
  if (fd < 0) return 3;
  /* Reads need bytes to read: one per call. */
  if (!strcmp(op, "read") || !strcmp(op, "pread")) {
    char block[65536];
    memset(block, 'r', sizeof block);
    for (long left = n + warm; left > 0; left -= (long)sizeof block)
      if (write(fd, block, sizeof block) != (ssize_t)sizeof block) return 3;
    lseek(fd, 0, SEEK_SET);
  }
  FILE* stream = !strcmp(op, "fwrite") ? fdopen(dup(fd), "w") : NULL;
  char c = 'w';
  double t0 = 0;
  for (long i = -warm; i < n; i++) {
    if (i == 0) t0 = now_ns();
    if (!strcmp(op, "pread")) {
      if (pread(fd, &c, 1, i & 4095) != 1) return 4;
    } else if (!strcmp(op, "pwrite")) {
      if (pwrite(fd, &c, 1, i & 4095) != 1) return 4;
    } else if (!strcmp(op, "read")) {
      if (read(fd, &c, 1) != 1) return 4;
    } else if (!strcmp(op, "write")) {
      if (write(fd, &c, 1) != 1) return 4;
    } else if (!strcmp(op, "fwrite")) {
      if (fwrite(&c, 1, 1, stream) != 1) return 4;
    } else if (!strcmp(op, "openclose")) {
      int g = open(path, O_RDONLY);
      if (g < 0) return 4;
      close(g);
    } else {
      return 2;
    }
  }
  const double t1 = now_ns();
  if (stream) fclose(stream);
  close(fd);
  printf("%s %.1f\n", op, (t1 - t0) / n);
  return 0;
}
