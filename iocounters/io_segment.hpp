// The shared segment in which the preloaded library keeps one process's I/O counters while
// the program runs (docs/IO.md §5): a file in the job's directory (under /dev/shm by default),
// created at the process's first call and mapped shared, so every count is in the file the
// moment it is made: a process killed with SIGKILL loses nothing already counted, and a reader
// (perfdm io at the end, the Data Manager while it runs) maps the same file read-only.
//
//   header (4 KiB) | POSIX records | STDIO records | MPI-IO records | common values past the
//   fourth (one table a POSIX and MPI-IO record) | names | mounts | heatmaps | trace
//
// The file is sized for every record at start-up and filled from the front of each area; the
// pages a process never touches (records it has not made, common-value tables of records with
// four values or fewer) take no memory.
//
// Records are appended; a record is visible to readers once the module's count includes it
// (published with a release store). Each record starts with its lock (record_lock.hpp), which
// readers use as a sequence number. Plain data, the same layout in the writer and the reader.
#pragma once

#include <cstddef>
#include <cstdint>

#include "darshan/darshan_format.hpp"
#include "iocounters/heatmap_bins.hpp"
#include "iocounters/io_clock.hpp"
#include "iocounters/mpiio_file.hpp"
#include "iocounters/posix_file.hpp"
#include "iocounters/stdio_file.hpp"
#include "iocounters/trace_segments.hpp"

namespace perfdm::io {

inline constexpr char segment_magic[8] = {'P', 'F', 'D', 'M', 'I', 'O', 'S', 'G'};
inline constexpr std::uint32_t segment_version = 4;
inline constexpr std::size_t segment_header_size = 4096;

enum segment_state : std::uint32_t {
  segment_running = 0,   // the process runs, or was killed
  segment_finished = 1,  // the process exited; end_* are set
  segment_execed = 2,    // the process exec'd another program (a new segment); end_* are set
};

enum segment_options : std::uint32_t {
  option_trace = 1,         // the per-call trace is on
  option_darshan_only = 2,  // only the calls Darshan 3.5.0 sees are counted
};

// Heatmaps, one per API, in this order (Darshan's names: "heatmap:POSIX", ...).
enum heatmap_api : std::uint32_t { heatmap_posix = 0, heatmap_stdio = 1, heatmap_mpiio = 2 };
inline constexpr std::uint32_t heatmap_count = 3;
inline constexpr const char* heatmap_names[heatmap_count] = {"heatmap:POSIX", "heatmap:STDIO",
                                                             "heatmap:MPIIO"};

// A mounted file system (Darshan reads them from /etc/mtab; see mount_table.hpp).
struct mount_entry {
  char path[256];
  char type[32];
  std::int64_t block_size;  // statfs f_bsize: POSIX_FILE_ALIGNMENT of files under it
  std::int64_t fs_magic;    // statfs f_type
};
inline constexpr std::uint32_t max_mounts = darshan::max_mounts;

// One entry of the name area: {u64 id, u32 length, u32 reserved, bytes, NUL}, padded to 8.
struct name_entry {
  std::uint64_t id;
  std::uint32_t length;
  std::uint32_t reserved;
  char bytes[1];
};
inline constexpr std::size_t name_entry_size(std::size_t length) {
  return (16 + length + 1 + 7) / 8 * 8;
}

struct segment_header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_size;
  std::uint64_t size;  // bytes of the whole segment
  std::int32_t pid;
  std::int32_t ppid;
  std::int32_t fork_parent;  // the pid this process forked from (no exec), 0 otherwise
  std::uint32_t state;       // segment_state
  std::uint32_t tick_kind;   // io_clock.hpp
  std::uint32_t options;     // segment_options
  std::uint64_t start_ticks;
  std::int64_t start_realtime_ns;
  std::uint64_t end_ticks;  // 0 until the process exits
  std::int64_t end_realtime_ns;
  std::int64_t mem_alignment;  // POSIX_MEM_ALIGNMENT
  std::uint64_t partial;       // bit per Darshan module id: records (or names) did not fit
  std::uint64_t uncounted;     // calls made inside the library (a signal handler): not counted
  std::uint64_t posix_offset;
  std::uint32_t posix_capacity;
  std::uint32_t posix_count;
  std::uint64_t stdio_offset;
  std::uint32_t stdio_capacity;
  std::uint32_t stdio_count;
  std::uint64_t mpiio_offset;
  std::uint32_t mpiio_capacity;
  std::uint32_t mpiio_count;
  // The process's rank in MPI_COMM_WORLD and the world's size, set when MPI_Init returns (or
  // at its first MPI-IO call; -1 and 0 until then, and in a program without MPI): the rank
  // Darshan gives its records.
  std::int32_t mpi_rank;
  std::int32_t mpi_size;
  // When MPI_Init (or MPI_Init_thread) returned and when MPI_Finalize was called, in ticks and
  // CLOCK_REALTIME ns (0: not yet, or no MPI): Darshan's clock starts as MPI_Init returns and
  // stops as MPI_Finalize starts, so the job's log of an MPI job counts its times from there.
  std::uint64_t mpi_init_ticks;
  std::int64_t mpi_init_realtime_ns;
  std::uint64_t mpi_finalize_ticks;
  std::int64_t mpi_finalize_realtime_ns;
  std::uint64_t names_offset;
  std::uint64_t names_capacity;  // bytes
  std::uint64_t names_used;
  std::uint64_t mounts_offset;
  std::uint32_t mounts_count;  // set once, before the first record
  std::uint32_t mounts_ready;
  std::uint64_t heatmaps_offset;
  std::uint64_t trace_offset;  // 0 when the trace is off
  std::uint64_t trace_bytes;
  std::uint64_t posix_more_offset;  // posix_file_more of each POSIX record, by index
  std::uint64_t mpiio_more_offset;  // common_values_more of each MPI-IO record, by index
  std::uint32_t command_line_size;
  std::uint32_t reserved;
  char exe[256];                            // the program's path (/proc/self/exe)
  char command_line[darshan::exe_len + 1];  // arguments joined by spaces, as Darshan keeps it
};
static_assert(sizeof(segment_header) <= segment_header_size);

// Record sizes rounded to cache lines, so that two records never share one.
inline constexpr std::size_t posix_slot_size = (sizeof(posix_file) + 63) / 64 * 64;
inline constexpr std::size_t stdio_slot_size = (sizeof(stdio_file) + 63) / 64 * 64;
inline constexpr std::size_t mpiio_slot_size = (sizeof(mpiio_file) + 63) / 64 * 64;

// How a segment is laid out for given capacities.
struct segment_plan {
  std::uint32_t posix_capacity = 0;
  std::uint32_t stdio_capacity = 0;
  std::uint32_t mpiio_capacity = 0;
  std::uint64_t names_capacity = 0;
  std::uint64_t trace_entries = 0;  // 0: no trace

  std::uint64_t posix_offset() const { return segment_header_size; }
  std::uint64_t stdio_offset() const {
    return posix_offset() + std::uint64_t(posix_capacity) * posix_slot_size;
  }
  std::uint64_t mpiio_offset() const {
    return stdio_offset() + std::uint64_t(stdio_capacity) * stdio_slot_size;
  }
  std::uint64_t posix_more_offset() const {
    return mpiio_offset() + std::uint64_t(mpiio_capacity) * mpiio_slot_size;
  }
  std::uint64_t mpiio_more_offset() const {
    return posix_more_offset() + std::uint64_t(posix_capacity) * sizeof(posix_file_more);
  }
  std::uint64_t names_offset() const {
    return mpiio_more_offset() + std::uint64_t(mpiio_capacity) * sizeof(common_values_more);
  }
  std::uint64_t mounts_offset() const { return (names_offset() + names_capacity + 63) / 64 * 64; }
  std::uint64_t heatmaps_offset() const {
    return (mounts_offset() + max_mounts * sizeof(mount_entry) + 4095) / 4096 * 4096;
  }
  std::uint64_t trace_offset() const {
    return heatmaps_offset() + heatmap_count * sizeof(heatmap_bins);
  }
  std::uint64_t trace_bytes() const {
    return trace_entries == 0 ? 0 : 16 + trace_entries * sizeof(trace_segment);
  }
  std::uint64_t size() const { return (trace_offset() + trace_bytes() + 4095) / 4096 * 4096; }
};

}  // namespace perfdm::io
