// Printing a Darshan log as darshan-parser and darshan-dxt-parser print it (Darshan 3.5.0):
// the same job header, region and mount lines, and one tab-separated line per counter
//   <module> <rank> <record id> <counter> <value> <file name> <mount pt> <fs type>
// byte for byte for the counters both print, with --total, --perf and --file. Counters carry
// the names of the record's version (darshan-parser converts older records to the current
// counters, showing -1 for those the version lacks); the `#` comment text is this
// project's own. Streams: names in bounded memory (darshan_names.hpp), one record at a time.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include "darshan/darshan_log.hpp"

namespace perfdm::darshan {

struct text_options {
  bool base = true;          // the records (darshan-parser's --base, its default)
  bool total = false;        // --total: all records of POSIX, MPI-IO and STDIO folded into one
  bool perf = false;         // --perf: bytes and the slowest rank's time
  bool file = false;         // --file: files by kind
  bool show_incomplete = false;  // print modules the runtime marked partial
  std::size_t max_name_bytes = 64u << 20;  // names held at once (darshan_names.hpp)
  std::size_t lookahead_records = 16384;   // records per name fetch past that limit
};

// darshan-parser's output. Returns 0, or 1 when a module is partial and !show_incomplete
// (darshan-parser's error, then printing stops: the message goes to `err`).
int print_parser_text(const log_file& log, const text_options& options, std::ostream& out,
                      std::ostream& err);

// darshan-dxt-parser's output: the DXT_POSIX and DXT_MPIIO segments, with the Lustre
// stripes and OSTs of each POSIX segment when the log has LUSTRE records.
int print_dxt_text(const log_file& log, const text_options& options, std::ostream& out,
                   std::ostream& err);

}  // namespace perfdm::darshan
