/* An MPI job with one slow rank: every rank relaxes its cells, then all meet in
 * MPI_Allreduce; the last rank has five times the cells of the others. The bottleneck is the
 * last rank's relax_cells: the other ranks wait for it in MPI_Allreduce (Open MPI polls while
 * it waits, sched_yield under opal_progress), which is waiting, never their CPU.
 *
 * Two faults a job meets, chosen by the second argument:
 *   staggered: no communication; rank r relaxes for (r + 1) / size of the time, so the ranks
 *              reach MPI_Finalize at different times and the early ones wait there;
 *   die:       as the default, but rank 1 kills itself (SIGKILL) after a third of the time,
 *              and Open MPI ends the job.
 *
 *   mpirun -np 3 mpi_imbalance [seconds [staggered|die]]   (default 10)
 */
#include <mpi.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "monotonic.h"

__attribute__((noinline)) static double relax_cells(double seed, long cells) {
  double h = seed;
  for (long i = 0; i < cells; ++i) h = h * 0.999999 + 1.0 / (double)(i + 1);
  return h;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  const char* fault = argc > 2 ? argv[2] : "";
  if (strcmp(fault, "staggered") == 0) {
    double sum = 0, until = now() + seconds * (rank + 1) / size;
    while (now() < until) sum = relax_cells(sum, 4000000L);
    printf("mpi_imbalance: rank %d done, %g\n", rank, sum);
    fflush(stdout);
    MPI_Finalize();
    return 0;
  }
  double dies_at = strcmp(fault, "die") == 0 && rank == 1 ? now() + seconds / 3 : 0;
  long cells = 4000000L * (rank == size - 1 ? 5 : 1);
  double end = now() + seconds;
  double sum[2] = {0, 0};
  long steps = 0;
  do {
    /* [0]: the cells' sum; [1]: rank 0's word that the time is up, the same for all. */
    if (dies_at && now() >= dies_at) raise(SIGKILL);
    double mine[2] = {relax_cells(sum[0], cells), rank == 0 && now() >= end ? 1 : 0};
    MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ++steps;
  } while (sum[1] == 0);
  if (rank == 0) printf("mpi_imbalance: %d ranks, %ld steps, %g\n", size, steps, sum[0]);
  MPI_Finalize();
  return 0;
}
