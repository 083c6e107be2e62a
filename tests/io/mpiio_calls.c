/* An MPI-IO job for the I/O library's MPI-IO module (tests/io_mpiio_live_test.cpp) and the
 * comparison with Darshan (scripts/compare-darshan.sh): every rank writes and reads one shared
 * file collectively and independently, and writes a file of its own.
 *
 *   mpirun -np N mpiio_calls DIR [SECONDS]
 *
 * With SECONDS, each rank first writes 100 bytes to DIR/early-R.dat with POSIX calls (R is
 * Open MPI's OMPI_COMM_WORLD_RANK, known before MPI_Init), then sleeps SECONDS, then calls
 * MPI_Init: I/O Darshan never sees, and a start long before the time Darshan counts from.
 *
 * Per rank, on DIR/shared.dat (opened on MPI_COMM_WORLD, MPI_MODE_CREATE | MPI_MODE_RDWR):
 *   write_at 1024 ints (4096 B) at rank * 4096      independent write
 *   write_at_all 4096 bytes at 16384 + rank * 4096  collective write
 *   write_all_begin/end 64 bytes                    split write
 *   sync
 *   set_view with one hint                          view + hint
 *   read_at_all 4096 bytes at rank * 4096           collective read
 *   read 100 bytes                                  independent read
 * and on DIR/rank-R.dat (opened on MPI_COMM_SELF, MPI_MODE_CREATE | MPI_MODE_WRONLY):
 *   3 writes of 10 doubles (80 B), 1 iwrite of one double (8 B, waited for).
 * Exits non-zero, naming the call, when an MPI call fails. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "mpiio_calls: %s failed (%d)\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/* The early rank's POSIX writes and its sleep, before MPI_Init. */
static void before_init(const char* dir, double seconds) {
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  char path[4096];
  snprintf(path, sizeof path, "%s/early-%s.dat", dir, rank != NULL ? rank : "x");
  const int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  char early[100];
  memset(early, 'e', sizeof early);
  if (fd < 0 || write(fd, early, sizeof early) != (ssize_t)sizeof early || close(fd) != 0) {
    fprintf(stderr, "mpiio_calls: cannot write %s\n", path);
    exit(1);
  }
  struct timespec t;
  t.tv_sec = (time_t)seconds;
  t.tv_nsec = (long)((seconds - (double)t.tv_sec) * 1e9);
  while (nanosleep(&t, &t) != 0) {
  }
}

int main(int argc, char** argv) {
  if (argc == 3) before_init(argv[1], atof(argv[2]));
  MPI_Init(&argc, &argv);
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: mpiio_calls DIR [SECONDS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static char bytes[4096];
  static int ints[1024];
  static double doubles[10];
  memset(bytes, 'a' + rank, sizeof bytes);
  char path[4096];
  MPI_File fh;
  MPI_Status status;

  snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
  check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        "MPI_File_open shared");
  check(MPI_File_write_at(fh, (MPI_Offset)rank * 4096, ints, 1024, MPI_INT, &status),
        "MPI_File_write_at");
  check(MPI_File_write_at_all(fh, 16384 + (MPI_Offset)rank * 4096, bytes, 4096, MPI_BYTE, &status),
        "MPI_File_write_at_all");
  check(MPI_File_write_all_begin(fh, bytes, 64, MPI_BYTE), "MPI_File_write_all_begin");
  check(MPI_File_write_all_end(fh, bytes, &status), "MPI_File_write_all_end");
  check(MPI_File_sync(fh), "MPI_File_sync");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "access_style", "read_mostly");
  check(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info), "MPI_File_set_view");
  MPI_Info_free(&info);
  check(MPI_File_read_at_all(fh, (MPI_Offset)rank * 4096, bytes, 4096, MPI_BYTE, &status),
        "MPI_File_read_at_all");
  check(MPI_File_read(fh, bytes, 100, MPI_BYTE, &status), "MPI_File_read");
  check(MPI_File_close(&fh), "MPI_File_close shared");

  snprintf(path, sizeof path, "%s/rank-%d.dat", argv[1], rank);
  check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
        "MPI_File_open own");
  for (int i = 0; i < 3; ++i)
    check(MPI_File_write(fh, doubles, 10, MPI_DOUBLE, &status), "MPI_File_write");
  MPI_Request request;
  check(MPI_File_iwrite(fh, doubles, 1, MPI_DOUBLE, &request), "MPI_File_iwrite");
  check(MPI_Wait(&request, &status), "MPI_Wait");
  check(MPI_File_close(&fh), "MPI_File_close own");
  MPI_Finalize();
  return 0;
}
