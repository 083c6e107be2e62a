// Darshan's shared-file reduction at shutdown (darshan-runtime/lib/darshan-posix.c,
// posix_record_reduction_op and posix_shared_record_variance; the same in darshan-stdio.c and
// darshan-mpiio.c),
// for the processes of one job: a file that every process has a record of becomes one record
// of rank -1: counts, bytes, buckets and times summed, the earliest start and latest end,
// the highest byte and longest call, the top-4 sizes and strides merged, the fastest and
// slowest process by read + write + metadata time (with its bytes), and the population
// variance across processes of that time and of the bytes moved.
#pragma once

#include <vector>

#include "iojob/darshan_records.hpp"

namespace perfdm::io {

// Reduces the records of one file, one per process (rank order), into one of rank -1.
posix_record reduce_shared(std::vector<posix_record> per_rank);
stdio_record reduce_shared(std::vector<stdio_record> per_rank);
mpiio_record reduce_shared(std::vector<mpiio_record> per_rank);

}  // namespace perfdm::io
