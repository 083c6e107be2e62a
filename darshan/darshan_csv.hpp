// A Darshan log as CSV tables, one per module, for pandas: `pandas.read_csv("POSIX.csv")`
// gives the frame PyDarshan's `report.records["POSIX"].to_df()` gives, its "counters" and
// "fcounters" side by side: columns rank, id, every counter of the current record version
// (older records converted as darshan-util converts them, -1 where a version lacks a
// counter), then the file name. DXT tables have one row per segment, HEATMAP one per bin,
// LUSTRE one per layout component. Streams: memory does not grow with the log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "darshan/darshan_log.hpp"
#include "darshan/darshan_text.hpp"

namespace perfdm::darshan {

struct csv_table {
  std::string module;
  std::string path;
  std::uint64_t rows = 0;
};

// Writes `dir`/<MODULE>.csv for each module with records (the directory is made when
// missing). A module marked partial is written only with options.show_incomplete. Throws
// darshan_error when a file cannot be written.
std::vector<csv_table> write_csv_tables(const log_file& log, const std::string& dir,
                                        const text_options& options);

// `field` as one CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view field);

}  // namespace perfdm::darshan
