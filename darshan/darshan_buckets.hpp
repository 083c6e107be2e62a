// Darshan's access-size histogram: 10 buckets with inclusive upper edges in bytes
// (DARSHAN_BUCKET_INC in darshan-runtime/lib/darshan-common.h), used by POSIX
// (POSIX_SIZE_*), MPI-IO and H5D (*_SIZE_*_AGG_*) and PNETCDF_VAR. A 0-byte access counts
// in the first bucket. Plain C++ without dependencies.
#pragma once

#include <cstddef>
#include <cstdint>

namespace perfdm::darshan {

inline constexpr std::size_t size_bucket_count = 10;

// Largest size of each bucket but the last, which has no upper edge.
inline constexpr std::int64_t size_bucket_upper_edges[size_bucket_count - 1] = {
    100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824};

// Counter name suffixes of the buckets, in order ("POSIX_SIZE_READ" + "_0_100").
inline constexpr const char* size_bucket_suffixes[size_bucket_count] = {
    "_0_100",  "_100_1K", "_1K_10K",   "_10K_100K", "_100K_1M",
    "_1M_4M", "_4M_10M", "_10M_100M", "_100M_1G",  "_1G_PLUS"};

// The bucket an access of `bytes` counts in (negative sizes count as 0 bytes).
constexpr std::size_t size_bucket(std::int64_t bytes) {
  std::size_t i = 0;
  while (i < size_bucket_count - 1 && bytes > size_bucket_upper_edges[i]) ++i;
  return i;
}

static_assert(size_bucket(0) == 0 && size_bucket(100) == 0 && size_bucket(101) == 1);
static_assert(size_bucket(1024) == 1 && size_bucket(1025) == 2);
static_assert(size_bucket(1073741824) == 8 && size_bucket(1073741825) == 9);

}  // namespace perfdm::darshan
