// Builds a job_summary from an io_source: one pass over each module's records (more for the
// per-file tables of a log with very many files, file_table.hpp), one record at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "iosummary/file_table.hpp"
#include "iosummary/io_source.hpp"
#include "iosummary/job_summary.hpp"

namespace perfdm::iosummary {

struct summary_options {
  file_table_options files;
  std::int64_t max_rank_rows = 128;    // rows of the heatmaps and the cost per process
  std::size_t dxt_bins = 100;          // time bins of a DXT heatmap
  std::size_t max_common_sizes = 65536;  // distinct access sizes held at once
};

// Throws what the source throws when it cannot be read at all; damage found while reading
// ends up in the summary's notes.
job_summary build_summary(io_source& source, const summary_options& options = {});

// The rows `nprocs` ranks are drawn in, at most `max_rows`.
rank_rows rows_for(std::int64_t nprocs, std::int64_t max_rows);

}  // namespace perfdm::iosummary
