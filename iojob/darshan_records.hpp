// The records of the job's log (log/log_io_records.hpp: Darshan's layouts) made from what the
// library counted in ticks: timestamps in seconds since the process's time 0 (the job's start,
// or an MPI rank's MPI_Init as Darshan's), times in seconds.
#pragma once

#include <cstdint>

#include "iocounters/io_clock.hpp"
#include "iocounters/mpiio_file.hpp"
#include "iocounters/posix_file.hpp"
#include "iocounters/stdio_file.hpp"
#include "log/log_io_records.hpp"

namespace perfdm::io {

using posix_record = log_posix_record;
using stdio_record = log_stdio_record;
using mpiio_record = log_mpiio_record;

// The smallest timestamp the log holds: a call made before the process's time 0 (an MPI rank's
// I/O before MPI_Init, which Darshan never sees) is written at 1 µs, the first value
// darshan-parser's %f prints as non-zero, since Darshan's format has no negative times and
// reads 0 as "never".
inline constexpr double earliest_timestamp = 1e-6;

// How one process's ticks become the log's seconds.
struct time_base {
  tick_calibration clock;     // the process's ticks to realtime
  std::int64_t origin_ns;  // time 0 of the process's timestamps
  double timestamp(std::int64_t ticks) const {
    if (ticks == 0) return 0;
    const double t = double(clock.realtime_of(std::uint64_t(ticks)) - origin_ns) * 1e-9;
    return t < earliest_timestamp ? earliest_timestamp : t;
  }
  double duration(std::int64_t ticks) const { return clock.seconds(ticks); }
};

posix_record to_record(const posix_file& f, std::int64_t rank, const time_base& t);
stdio_record to_record(const stdio_file& f, std::int64_t rank, const time_base& t);
mpiio_record to_record(const mpiio_file& f, std::int64_t rank, const time_base& t);

// Whether a record a forked child copied from its parent saw any call in the child.
bool used_in_child(const posix_file& f);
bool used_in_child(const stdio_file& f);

// Darshan drops <STDIN>, <STDOUT>, <STDERR> STDIO records that were never read or written.
bool unused_standard_stream(const stdio_record& r);

}  // namespace perfdm::io
