// How each module's records are laid out in each record version a Darshan log can hold (log
// formats 3.00 to 3.41), with the counter names of that version, and how each version's
// counters map onto the current version's (darshan_counters.hpp). The older names and
// layouts are those of Darshan's earlier releases; darshan-util's up-conversion code
// (darshan-*-logutils.c, 3.5.0) gives the same layouts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "darshan/darshan_format.hpp"

namespace perfdm::darshan {

// How a record is stored after its {id, rank} base.
enum class record_kind : std::uint8_t {
  counters,   // [pad][file_rec_id] int64 ints[], double floats[]: fixed size
  heatmap,    // double bin width, int64 nbins, 16 bytes of pointers, write bins, read bins
  lustre,     // int64 num_comps, num_stripes, components, OST ids (version 2)
  lustre_v1,  // int64 osts, mdts, stripe offset, stripe size, stripe width, OST ids
  dxt,        // int64 shared, char hostname[64], int64 write_count, read_count, segments
};

struct record_layout {
  int module = 0;  // module id in the current numbering
  std::uint32_t version = 0;
  record_kind kind = record_kind::counters;
  // counters: names in record order (this version's names).
  std::vector<const char*> ints;
  std::vector<const char*> floats;
  std::size_t pad_after_base = 0;       // bytes skipped after the base (BG/Q version 1)
  const char* file_rec_id = nullptr;    // name of the uint64 after the base, printed last
  std::size_t dxt_segment_size = 0;     // dxt: 32 (no thread id) or 40 bytes
  bool dxt_offsets_unknown = false;     // DXT_MPIIO version 1 stored no offsets: print -1
  // For each current int / float counter: the indexes of this version's counters whose sum
  // gives it (one index usually; none when this version lacks it, see missing_int/float).
  std::vector<std::vector<int>> current_ints;
  std::vector<std::vector<int>> current_floats;

  // Bytes of a fixed-size record, base included (counters kind only).
  std::size_t record_size() const {
    return base_record_size + pad_after_base + (file_rec_id ? 8 : 0) + 8 * ints.size() +
           8 * floats.size();
  }
};

// The layout of `module`'s records in `version`, or null when this reader does not know it
// (an unknown module, a version newer than Darshan 3.5.0 writes, or 0).
const record_layout* find_layout(int module, std::uint32_t version);

// The layout of the current version of `module` (null for modules without counters).
const record_layout* current_layout(int module);

// What the current layout holds where an older version has no counter: -1 ("not
// monitored"), except POSIX_RENAMED_FROM (a record id, 0) as darshan-util fills them.
std::int64_t missing_int(int module, std::size_t current_index);
double missing_float(int module, std::size_t current_index);

// darshan-parser's name of `module` ("<UNKNOWN>" for ids it does not know). The older formats
// called H5F "HDF5" and PNETCDF_FILE "PNETCDF"; their counters keep those names.
std::string_view module_name(int module);

}  // namespace perfdm::darshan
