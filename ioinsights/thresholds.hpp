// The thresholds of Drishti's insights (github.com/hpc-io/drishti-io,
// drishti/includes/config.py), the same numbers: an insight fires past them.
#pragma once

#include <cstdint>

namespace perfdm::ioinsights {

struct thresholds {
  double imbalance_operations = 0.10;  // P01-P04: reads vs writes (count or bytes)
  std::int64_t small_bytes = 1048576;  // P05/P06/P15/P16: a request under 1 MiB is small
  double small_requests = 0.10;        // ... in more than 10 % of the requests
  double small_requests_absolute = 1000;  // ... and more than 1,000 of them
  double misaligned_requests = 0.10;   // P07/P08
  double metadata_time_rank = 30;      // P17: seconds of metadata per rank
  double random_operations = 0.20;     // P11/P13
  double random_operations_absolute = 1000;
  double imbalance_stragglers = 0.15;  // P18/P19: shared files, slowest vs fastest rank
  double imbalance_size = 0.30;        // P21/P22: files of several ranks, max vs min bytes
  double interface_stdio = 0.10;       // S01: STDIO's share of the bytes
  double collective_operations = 0.50;  // M02/M03: independent share of a file's operations
  double collective_operations_absolute = 1000;
  // A file is named in a small-request insight's evidence when it has more than this share
  // of the job's requests of that kind halved (Drishti: small_requests / 2).
  double detail_share() const { return small_requests / 2; }
};

}  // namespace perfdm::ioinsights
