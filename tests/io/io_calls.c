/* The calls the I/O library tests count (tests/io_preload_test.cpp): one scenario per first
 * argument, in the directory given as the second. Plain C with glibc, as a program a user would
 * preload the library into; the scenarios call the functions by their C library names. */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char path_buf[4096];
static const char* dir;

static const char* in_dir(const char* name) {
  snprintf(path_buf, sizeof path_buf, "%s/%s", dir, name);
  return path_buf;
}

static int must(int r, const char* what) {
  if (r < 0) {
    fprintf(stderr, "io_calls: %s: %s\n", what, strerror(errno));
    exit(3);
  }
  return r;
}

/* IO-FACTS 1.4's measured example. */
static void example(void) {
  char b[4096];
  memset(b, 'x', sizeof b);
  int fd = must(open(in_dir("data.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644), "open");
  for (int i = 0; i < 4; i++) write(fd, b, 100);
  for (int i = 0; i < 10; i++) pwrite(fd, b, 1000, 10000 + i * 1024);
  pwrite(fd, b, 4096, 0);
  lseek(fd, 0, SEEK_SET);
  for (int i = 0; i < 3; i++) read(fd, b, 4096);
  pread(fd, b + 1, 7, 100);
  close(fd);
}

/* The stat family as glibc 2.33 and later export it: five stats of one regular file. */
static void stats(void) {
  struct stat st;
  struct statx sx;
  int fd = must(open(in_dir("s.bin"), O_CREAT | O_RDWR | O_TRUNC, 0600), "open");
  must(write(fd, "abc", 3), "write");
  must(stat(in_dir("s.bin"), &st), "stat");
  must(lstat(in_dir("s.bin"), &st), "lstat");
  must(fstat(fd, &st), "fstat");
  must(fstatat(AT_FDCWD, in_dir("s.bin"), &st, 0), "fstatat");
  must(statx(AT_FDCWD, in_dir("s.bin"), 0, STATX_TYPE | STATX_SIZE, &sx), "statx");
  must(stat(dir, &st), "stat of the directory");  /* not a regular file: not counted */
  close(fd);
}

/* __openat_2 (the fortified openat tar calls) and openat2 (a system call only). */
int __openat_2(int, const char*, int);
static void opens(void) {
  int d = must(open(dir, O_RDONLY | O_DIRECTORY), "open dir");
  int fd = must(open(in_dir("o.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0600), "open");
  close(fd);
  fd = must(__openat_2(d, "o.bin", O_RDONLY), "__openat_2");
  close(fd);
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = O_RDONLY;
  fd = must((int)syscall(SYS_openat2, AT_FDCWD, in_dir("o.bin"), &how, sizeof how), "openat2");
  close(fd);
  close(d);
  /* A directory opened out of the library's sight (opendir's own open is inside glibc). */
  DIR* dp = opendir(dir);
  if (dp == NULL) must(-1, "opendir");
  fd = must(openat(dirfd(dp), "o.bin", O_RDONLY), "openat in an opendir directory");
  close(fd);
  closedir(dp);
}

/* copy_file_range, sendfile and splice between counted files. */
static void copies(void) {
  char b[8192];
  memset(b, 'c', sizeof b);
  int src = must(open(in_dir("src.bin"), O_CREAT | O_RDWR | O_TRUNC, 0600), "open src");
  must(write(src, b, sizeof b), "write");
  int dst = must(open(in_dir("dst.bin"), O_CREAT | O_RDWR | O_TRUNC, 0600), "open dst");
  loff_t in = 0, out = 0;
  must((int)copy_file_range(src, &in, dst, &out, 4096, 0), "copy_file_range");
  off_t off = 4096;
  must((int)sendfile(dst, src, &off, 4096), "sendfile");
  int p[2];
  must(pipe(p), "pipe");
  loff_t from = 0;
  must((int)splice(src, &from, p[1], NULL, 1000, 0), "splice in");
  must((int)splice(p[0], NULL, dst, NULL, 1000, 0), "splice out");
  close(src);
  close(dst);
}

/* truncate, ftruncate, unlink, mkdir. */
static void meta(void) {
  int fd = must(open(in_dir("m.bin"), O_CREAT | O_RDWR | O_TRUNC, 0600), "open");
  must(ftruncate(fd, 1 << 20), "ftruncate");
  must(truncate(in_dir("m.bin"), 100), "truncate");
  close(fd);
  must(unlink(in_dir("m.bin")), "unlink");
  must(mkdir(in_dir("sub"), 0700), "mkdir");
}

static void maps(void) {
  int fd = must(open(in_dir("map.bin"), O_CREAT | O_RDWR | O_TRUNC, 0600), "open");
  must(ftruncate(fd, 8192), "ftruncate");
  void* p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) exit(3);
  memset(p, 1, 8192);
  munmap(p, 8192);
  close(fd);
}

/* stdio calls Darshan does not wrap: to standard output, and reads of a file. glibc's headers
 * make putchar_unlocked, getc_unlocked and small constant fwrite_unlocked inline code in an
 * optimized build (no call at all, for any preloaded library): they are called through
 * pointers here, as a program built without optimization calls them. */
static int (*volatile putchar_unlocked_call)(int) = putchar_unlocked;
static int (*volatile getc_unlocked_call)(FILE*) = getc_unlocked;
static size_t (*volatile fwrite_unlocked_call)(const void*, size_t, size_t, FILE*) =
    fwrite_unlocked;
static void stdio_calls(void) {
  puts("puts line");                 /* 10 bytes */
  putchar('x');                      /* 1 */
  putchar_unlocked_call('\n');       /* 1 */
  fputs_unlocked("unlocked\n", stdout); /* 9 */
  fwrite_unlocked_call("wu\n", 1, 3, stdout); /* 3 */
  fflush(stdout);
  FILE* f = fopen(in_dir("lines.txt"), "w");
  fputs("one\ntwo\nthree;four\n", f);
  fclose(f);
  f = fopen(in_dir("lines.txt"), "r");
  char* line = NULL;
  size_t n = 0;
  getline(&line, &n, f);             /* "one\n": 4 */
  getdelim(&line, &n, ';', f);       /* "two\nthree;": 10 */
  getc_unlocked_call(f);             /* 1 */
  fclose(f);
  free(line);
}

/* Two reads and a write submitted with io_submit (the system call libaio makes). */
static void aio_submit(void) {
  char* b = aligned_alloc(4096, 8192);
  memset(b, 'a', 8192);
  int fd = must(open(in_dir("aio.bin"), O_CREAT | O_RDWR | O_TRUNC, 0600), "open");
  must(write(fd, b, 8192), "write");
  aio_context_t ctx = 0;
  must((int)syscall(SYS_io_setup, 8, &ctx), "io_setup");
  struct iocb cbs[3];
  struct iocb* list[3];
  memset(cbs, 0, sizeof cbs);
  for (int i = 0; i < 3; i++) {
    cbs[i].aio_fildes = (unsigned)fd;
    cbs[i].aio_lio_opcode = i < 2 ? IOCB_CMD_PREAD : IOCB_CMD_PWRITE;
    cbs[i].aio_buf = (unsigned long)b;
    cbs[i].aio_nbytes = 2048;
    cbs[i].aio_offset = i * 2048;
    list[i] = &cbs[i];
  }
  must((int)syscall(SYS_io_submit, ctx, 3, list), "io_submit");
  struct io_event ev[3];
  must((int)syscall(SYS_io_getevents, ctx, 3, 3, ev, NULL), "io_getevents");
  syscall(SYS_io_destroy, ctx);
  close(fd);
  free(b);
}

/* A read and a write through io_uring, driven with system calls as fio does. */
static void uring(void) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  int ring = (int)syscall(SYS_io_uring_setup, 4, &p);
  if (ring < 0) {
    printf("io_uring unavailable: %s\n", strerror(errno));
    exit(4);
  }
  size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  unsigned char* sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                           ring, IORING_OFF_SQ_RING);
  struct io_uring_sqe* sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
                                   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
                                   IORING_OFF_SQES);
  size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  unsigned char* cq = (p.features & IORING_FEAT_SINGLE_MMAP)
                          ? sq
                          : mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                                 ring, IORING_OFF_CQ_RING);
  if (sq == MAP_FAILED || sqes == MAP_FAILED || cq == MAP_FAILED) exit(3);
  char b[4096];
  memset(b, 'u', sizeof b);
  int fd = must(open(in_dir("uring.bin"), O_CREAT | O_RDWR | O_TRUNC, 0600), "open");
  unsigned* tail = (unsigned*)(sq + p.sq_off.tail);
  unsigned mask = *(unsigned*)(sq + p.sq_off.ring_mask);
  unsigned* array = (unsigned*)(sq + p.sq_off.array);
  unsigned t = *tail;
  for (int i = 0; i < 2; i++) {
    struct io_uring_sqe* s = &sqes[(t + i) & mask];
    memset(s, 0, sizeof *s);
    s->opcode = i == 0 ? IORING_OP_WRITE : IORING_OP_READ;
    s->fd = fd;
    s->addr = (unsigned long)b;
    s->len = i == 0 ? 4096 : 1024;
    s->off = 0;
    array[(t + i) & mask] = (t + i) & mask;
  }
  __atomic_store_n(tail, t + 2, __ATOMIC_RELEASE);
  /* The write first, alone (drained), then the read. */
  must((int)syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0), "enter");
  must((int)syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0), "enter");
  close(fd);
  close(ring);
}

/* Fork without exec: each process counts its own calls. */
static void fork_writes(void) {
  int fd = must(open(in_dir("f.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0600), "open");
  for (int i = 0; i < 10; i++) write(fd, "p", 1);
  pid_t child = fork();
  if (child == 0) {
    for (int i = 0; i < 5; i++) write(fd, "c", 1);
    int own = open(in_dir("child.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    write(own, "cc", 2);
    close(own);
    exit(0);
  }
  waitpid(child, NULL, 0);
  for (int i = 0; i < 3; i++) write(fd, "p", 1);
  close(fd);
}

/* Every process of a run opens one file: it becomes one record of rank -1. */
static void shared(void) {
  for (int k = 0; k < 3; k++) {
    pid_t c = fork();
    if (c == 0) {
      execl("/proc/self/exe", "io_calls", "shared-child", dir, (char*)NULL);
      _exit(5);
    }
    waitpid(c, NULL, 0);
  }
  int fd = must(open(in_dir("shared.bin"), O_CREAT | O_WRONLY, 0600), "open");
  write(fd, "root", 4);
  close(fd);
}

static void shared_child(void) {
  int fd = must(open(in_dir("shared.bin"), O_CREAT | O_WRONLY, 0600), "open");
  pwrite(fd, "child", 5, 100 * getpid() % 4096);
  close(fd);
  fd = must(open(in_dir("own.bin"), O_CREAT | O_WRONLY, 0600), "open own");
  close(fd);
}

static int thread_fd;
static void* thread_writes(void* arg) {
  long k = (long)arg;
  char b[64];
  memset(b, 't', sizeof b);
  for (int i = 0; i < 200; i++) pwrite(thread_fd, b, sizeof b, (k * 200 + i) * 64);
  return NULL;
}

/* 64 threads writing one file: every write counted, no lock lost. */
static void threads(void) {
  thread_fd = must(open(in_dir("t.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0600), "open");
  pthread_t t[64];
  for (long k = 0; k < 64; k++) pthread_create(&t[k], NULL, thread_writes, (void*)k);
  for (int k = 0; k < 64; k++) pthread_join(t[k], NULL);
  close(thread_fd);
}

static int alarm_fd;
static volatile sig_atomic_t alarms;
static void on_alarm(int sig) {
  (void)sig;
  write(alarm_fd, "a", 1); /* a counted write from a signal handler */
  alarms++;
}

/* Reads interrupted by signals (EINTR, not counted), writes made by the handler (counted). */
static void eintr(void) {
  alarm_fd = must(open(in_dir("sig.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0600), "open");
  int p[2];
  must(pipe(p), "pipe");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm; /* no SA_RESTART: read fails with EINTR */
  sigaction(SIGALRM, &sa, NULL);
  int fd = must(open(in_dir("sig-in.bin"), O_CREAT | O_RDWR | O_TRUNC, 0600), "open in");
  int interrupted = 0;
  for (int i = 0; i < 5; i++) {
    ualarm(20000, 0);
    char c;
    if (read(p[0], &c, 1) < 0 && errno == EINTR) interrupted++;
    write(fd, "w", 1);
  }
  printf("interrupted %d alarms %d\n", interrupted, (int)alarms);
  close(fd);
  close(alarm_fd);
}

/* Writes, says how many on standard output, then waits to be killed. */
static void until_killed(int n) {
  int fd = must(open(in_dir("k.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0600), "open");
  for (int i = 0; i < n; i++) write(fd, "k", 1);
  dprintf(1, "wrote %d\n", n);
  for (;;) pause();
}

/* More files than the library's records. */
static void many(int n) {
  for (int i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "many-%04d", i);
    int fd = must(open(in_dir(name), O_CREAT | O_WRONLY | O_TRUNC, 0600), "open");
    write(fd, "m", 1);
    close(fd);
  }
}

/* Closes every descriptor it did not open, then puts /dev/null over all of them: the library
 * keeps no descriptor of its own to lose. */
static void close_all(void) {
  int fd = must(open(in_dir("before.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0600), "open");
  write(fd, "b", 1);
  for (int i = 3; i < 1024; i++)
    if (i != fd) close(i);
  int null = open("/dev/null", O_RDWR);
  for (int i = 0; i < 1024; i++)
    if (i != fd && i != null) dup2(null, i);
  write(fd, "b", 1);
  close(fd);
  fd = must(open(in_dir("after.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0600), "open after");
  write(fd, "a", 1);
  close(fd);
}

/* A file name that is not UTF-8. */
static void non_utf8(void) {
  int fd = must(open(in_dir("bad-\xff\xfe-name"), O_CREAT | O_WRONLY | O_TRUNC, 0600), "open");
  write(fd, "n", 1);
  close(fd);
}

/* A 5 GiB file (sparse): a write at its last byte and a read of it. */
static void big(void) {
  const off_t at = ((off_t)5 << 30) - 1;
  int fd = must(open(in_dir("big.bin"), O_CREAT | O_RDWR | O_TRUNC, 0600), "open");
  must((int)pwrite(fd, "z", 1, at), "pwrite");
  char c;
  must((int)pread(fd, &c, 1, at), "pread");
  close(fd);
  unlink(in_dir("big.bin"));
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: io_calls SCENARIO DIR [N]\n");
    return 2;
  }
  dir = argv[2];
  const char* s = argv[1];
  const int n = argc > 3 ? atoi(argv[3]) : 0;
  if (!strcmp(s, "example")) example();
  else if (!strcmp(s, "stats")) stats();
  else if (!strcmp(s, "opens")) opens();
  else if (!strcmp(s, "copies")) copies();
  else if (!strcmp(s, "meta")) meta();
  else if (!strcmp(s, "mmap")) maps();
  else if (!strcmp(s, "stdio")) stdio_calls();
  else if (!strcmp(s, "aio")) aio_submit();
  else if (!strcmp(s, "uring")) uring();
  else if (!strcmp(s, "fork")) fork_writes();
  else if (!strcmp(s, "shared")) shared();
  else if (!strcmp(s, "shared-child")) shared_child();
  else if (!strcmp(s, "threads")) threads();
  else if (!strcmp(s, "eintr")) eintr();
  else if (!strcmp(s, "until-killed")) until_killed(n);
  else if (!strcmp(s, "many")) many(n);
  else if (!strcmp(s, "close-all")) close_all();
  else if (!strcmp(s, "non-utf8")) non_utf8();
  else if (!strcmp(s, "big")) big();
  else {
    fprintf(stderr, "io_calls: unknown scenario %s\n", s);
    return 2;
  }
  return 0;
}
