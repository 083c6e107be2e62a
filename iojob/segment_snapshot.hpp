// A copy of one process's I/O segment (iocounters/io_segment.hpp), taken while the process
// runs or after it ended, however it ended: the header, every published record (each copied
// whole under its sequence number, so no record is half old and half new unless its writer
// died mid-update), the names, the mount table, the heatmaps' non-empty bins and the trace.
// What perfdm io reduces at the end of a run, and what a live reader polls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iocounters/io_segment.hpp"

namespace perfdm::io {

struct heatmap_cell {
  std::uint32_t api;    // heatmap_api
  std::uint32_t level;  // heatmap_bins level
  std::uint32_t bin;
  std::int64_t read;
  std::int64_t write;
};

struct segment_snapshot {
  std::string path;
  segment_header header{};
  std::vector<posix_file> posix;
  std::vector<stdio_file> stdio;
  std::vector<mpiio_file> mpiio;
  std::vector<std::string> posix_names;  // by record
  std::vector<std::string> stdio_names;
  std::vector<std::string> mpiio_names;
  std::vector<mount_entry> mounts;
  std::uint64_t heatmap_origin = 0;
  std::vector<heatmap_cell> heatmap;
  std::vector<trace_segment> trace;
  std::uint64_t trace_dropped = 0;  // calls not traced: the trace area was full
  std::uint32_t torn_records = 0;   // records a writer held when copied (a killed writer)
};

// Copies the segment file at `path`. Throws std::runtime_error naming the problem: no such
// file, not a segment (magic), another version, sizes that do not fit the file.
segment_snapshot read_segment(const std::string& path);

// The segments of a job directory, oldest process first (by start ticks). Files that are not
// segments are skipped; `errors` gets one line per segment that could not be read.
std::vector<segment_snapshot> read_job_segments(const std::string& job_dir,
                                                std::vector<std::string>& errors);

}  // namespace perfdm::io
