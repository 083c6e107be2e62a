/* An MPI job with one slow rank: every rank relaxes its cells, then all meet in
 * MPI_Allreduce; the last rank has five times the cells of the others. The bottleneck is the
 * last rank's relax_cells: the other ranks wait for it in MPI_Allreduce (Open MPI polls while
 * it waits, sched_yield under opal_progress), which is waiting, never their CPU.
 *
 *   mpirun -np 3 mpi_imbalance [seconds]   (default 10)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
  long cells = 4000000L * (rank == size - 1 ? 5 : 1);
  double end = now() + seconds;
  double sum[2] = {0, 0};
  long steps = 0;
  do {
    /* [0]: the cells' sum; [1]: rank 0's word that the time is up, the same for all. */
    double mine[2] = {relax_cells(sum[0], cells), rank == 0 && now() >= end ? 1 : 0};
    MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ++steps;
  } while (sum[1] == 0);
  if (rank == 0) printf("mpi_imbalance: %d ranks, %ld steps, %g\n", size, steps, sum[0]);
  MPI_Finalize();
  return 0;
}
