#include "darshan/darshan_layouts.hpp"

#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "darshan/darshan_counters.hpp"

namespace perfdm::darshan {

namespace {

using names = std::vector<const char*>;

template <std::size_t N>
names list(const char* const (&a)[N]) {
  return names(a, a + N);
}

// `head` followed by the current list from the counter named `from` on.
template <std::size_t N>
names head_then(names head, const char* const (&current)[N], const char* from) {
  std::size_t i = 0;
  while (i < N && std::strcmp(current[i], from) != 0) ++i;
  head.insert(head.end(), current + i, current + N);
  return head;
}

// Old names whose counter has another name (or is added into another) in the current list.
const std::map<std::string, std::string>& renamed() {
  static const std::map<std::string, std::string> m = {
      {"POSIX_F_OPEN_TIMESTAMP", "POSIX_F_OPEN_START_TIMESTAMP"},
      {"POSIX_F_CLOSE_TIMESTAMP", "POSIX_F_CLOSE_END_TIMESTAMP"},
      {"MPIIO_F_OPEN_TIMESTAMP", "MPIIO_F_OPEN_START_TIMESTAMP"},
      {"MPIIO_F_CLOSE_TIMESTAMP", "MPIIO_F_CLOSE_END_TIMESTAMP"},
      {"HDF5_OPENS", "H5F_OPENS"},
      {"HDF5_F_OPEN_TIMESTAMP", "H5F_F_OPEN_START_TIMESTAMP"},
      {"HDF5_F_CLOSE_TIMESTAMP", "H5F_F_CLOSE_END_TIMESTAMP"},
      // PnetCDF's file module counted independent and collective opens apart until its
      // version 3, which has one FILE_OPENS: both add into it.
      {"PNETCDF_INDEP_OPENS", "PNETCDF_FILE_OPENS"},
      {"PNETCDF_COLL_OPENS", "PNETCDF_FILE_OPENS"},
      {"PNETCDF_F_OPEN_TIMESTAMP", "PNETCDF_FILE_F_OPEN_START_TIMESTAMP"},
      {"PNETCDF_F_CLOSE_TIMESTAMP", "PNETCDF_FILE_F_CLOSE_END_TIMESTAMP"},
      {"PNETCDF_F_OPEN_START_TIMESTAMP", "PNETCDF_FILE_F_OPEN_START_TIMESTAMP"},
      {"PNETCDF_F_CLOSE_START_TIMESTAMP", "PNETCDF_FILE_F_CLOSE_START_TIMESTAMP"},
      {"PNETCDF_F_OPEN_END_TIMESTAMP", "PNETCDF_FILE_F_OPEN_END_TIMESTAMP"},
      {"PNETCDF_F_CLOSE_END_TIMESTAMP", "PNETCDF_FILE_F_CLOSE_END_TIMESTAMP"},
  };
  return m;
}

// For each name of `current`, the indexes of `old` that map onto it.
std::vector<std::vector<int>> mapping(const names& old, const names& current) {
  std::vector<std::vector<int>> m(current.size());
  for (std::size_t i = 0; i < old.size(); ++i) {
    std::string name = old[i];
    auto r = renamed().find(name);
    if (r != renamed().end()) name = r->second;
    for (std::size_t c = 0; c < current.size(); ++c)
      if (name == current[c]) m[c].push_back(static_cast<int>(i));
  }
  return m;
}

record_layout counters(int module, std::uint32_t version, names ints, names floats) {
  record_layout l;
  l.module = module;
  l.version = version;
  l.kind = record_kind::counters;
  l.ints = std::move(ints);
  l.floats = std::move(floats);
  return l;
}

record_layout other(int module, std::uint32_t version, record_kind kind) {
  record_layout l;
  l.module = module;
  l.version = version;
  l.kind = kind;
  return l;
}

std::vector<record_layout> build() {
  std::vector<record_layout> v;
  // POSIX: version 1 (3.0) had four stdio counters; version 2 dropped them; version 3 added
  // the close-start and open-end timestamps; version 4 the fileno, dup and rename counters.
  const names posix_ints_1 = head_then(
      {"POSIX_OPENS", "POSIX_READS", "POSIX_WRITES", "POSIX_SEEKS", "POSIX_STATS",
       "POSIX_MMAPS", "POSIX_FOPENS", "POSIX_FREADS", "POSIX_FWRITES", "POSIX_FSEEKS",
       "POSIX_FSYNCS", "POSIX_FDSYNCS"},
      posix_counter_names, "POSIX_MODE");
  const names posix_ints_2 = head_then(
      {"POSIX_OPENS", "POSIX_READS", "POSIX_WRITES", "POSIX_SEEKS", "POSIX_STATS",
       "POSIX_MMAPS", "POSIX_FSYNCS", "POSIX_FDSYNCS"},
      posix_counter_names, "POSIX_MODE");
  const names posix_floats_2 = head_then(
      {"POSIX_F_OPEN_TIMESTAMP", "POSIX_F_READ_START_TIMESTAMP",
       "POSIX_F_WRITE_START_TIMESTAMP", "POSIX_F_READ_END_TIMESTAMP",
       "POSIX_F_WRITE_END_TIMESTAMP", "POSIX_F_CLOSE_TIMESTAMP"},
      posix_f_counter_names, "POSIX_F_READ_TIME");
  v.push_back(counters(POSIX_MOD, 1, posix_ints_1, posix_floats_2));
  v.push_back(counters(POSIX_MOD, 2, posix_ints_2, posix_floats_2));
  v.push_back(counters(POSIX_MOD, 3, posix_ints_2, list(posix_f_counter_names)));
  v.push_back(counters(POSIX_MOD, 4, list(posix_counter_names), list(posix_f_counter_names)));

  // MPI-IO: versions 1 and 2 lack the close-start and open-end timestamps.
  const names mpiio_floats_2 = head_then(
      {"MPIIO_F_OPEN_TIMESTAMP", "MPIIO_F_READ_START_TIMESTAMP",
       "MPIIO_F_WRITE_START_TIMESTAMP", "MPIIO_F_READ_END_TIMESTAMP",
       "MPIIO_F_WRITE_END_TIMESTAMP", "MPIIO_F_CLOSE_TIMESTAMP"},
      mpiio_f_counter_names, "MPIIO_F_READ_TIME");
  v.push_back(counters(MPIIO_MOD, 1, list(mpiio_counter_names), mpiio_floats_2));
  v.push_back(counters(MPIIO_MOD, 2, list(mpiio_counter_names), mpiio_floats_2));
  v.push_back(counters(MPIIO_MOD, 3, list(mpiio_counter_names), list(mpiio_f_counter_names)));

  // STDIO: version 1 lacks STDIO_FDOPENS.
  names stdio_ints_1 = list(stdio_counter_names);
  stdio_ints_1.erase(stdio_ints_1.begin() + STDIO_FDOPENS);
  v.push_back(counters(STDIO_MOD, 1, stdio_ints_1, list(stdio_f_counter_names)));
  v.push_back(counters(STDIO_MOD, 2, list(stdio_counter_names), list(stdio_f_counter_names)));

  // H5F: version 1 was the "HDF5" module; version 2 has four timestamps; version 3 adds
  // flushes, the MPI-IO flag and the metadata time.
  v.push_back(counters(H5F_MOD, 1, {"HDF5_OPENS"},
                       {"HDF5_F_OPEN_TIMESTAMP", "HDF5_F_CLOSE_TIMESTAMP"}));
  v.push_back(counters(H5F_MOD, 2, {"H5F_OPENS"},
                       {"H5F_F_OPEN_START_TIMESTAMP", "H5F_F_CLOSE_START_TIMESTAMP",
                        "H5F_F_OPEN_END_TIMESTAMP", "H5F_F_CLOSE_END_TIMESTAMP"}));
  v.push_back(counters(H5F_MOD, 3, list(h5f_counter_names), list(h5f_f_counter_names)));

  // H5D: version 1 lacks the file record id.
  v.push_back(counters(H5D_MOD, 1, list(h5d_counter_names), list(h5d_f_counter_names)));
  v.push_back(counters(H5D_MOD, 2, list(h5d_counter_names), list(h5d_f_counter_names)));
  v.back().file_rec_id = "H5D_FILE_REC_ID";

  // PNETCDF_FILE: the "PNETCDF" module before format 3.41.
  v.push_back(counters(PNETCDF_FILE_MOD, 1, {"PNETCDF_INDEP_OPENS", "PNETCDF_COLL_OPENS"},
                       {"PNETCDF_F_OPEN_TIMESTAMP", "PNETCDF_F_CLOSE_TIMESTAMP"}));
  v.push_back(counters(PNETCDF_FILE_MOD, 2, {"PNETCDF_INDEP_OPENS", "PNETCDF_COLL_OPENS"},
                       {"PNETCDF_F_OPEN_START_TIMESTAMP", "PNETCDF_F_CLOSE_START_TIMESTAMP",
                        "PNETCDF_F_OPEN_END_TIMESTAMP", "PNETCDF_F_CLOSE_END_TIMESTAMP"}));
  v.push_back(counters(PNETCDF_FILE_MOD, 3, list(pnetcdf_file_counter_names),
                       list(pnetcdf_file_f_counter_names)));
  v.push_back(counters(PNETCDF_VAR_MOD, 1, list(pnetcdf_var_counter_names),
                       list(pnetcdf_var_f_counter_names)));
  v.back().file_rec_id = "PNETCDF_VAR_FILE_REC_ID";

  // BG/Q: version 1 has 8 bytes (an int and padding) after the base.
  v.push_back(counters(BGQ_MOD, 1, list(bgq_counter_names), list(bgq_f_counter_names)));
  v.back().pad_after_base = 8;
  v.push_back(counters(BGQ_MOD, 2, list(bgq_counter_names), list(bgq_f_counter_names)));

  v.push_back(other(LUSTRE_MOD, 1, record_kind::lustre_v1));
  v.push_back(other(LUSTRE_MOD, 2, record_kind::lustre));
  v.push_back(other(HEATMAP_MOD, 1, record_kind::heatmap));

  // DXT: segments gained the thread id in DXT_POSIX 2 and DXT_MPIIO 3; DXT_MPIIO 1 kept no
  // offsets.
  for (std::uint32_t ver = 1; ver <= 2; ++ver) {
    v.push_back(other(DXT_POSIX_MOD, ver, record_kind::dxt));
    v.back().dxt_segment_size = ver == 1 ? 32 : 40;
  }
  for (std::uint32_t ver = 1; ver <= 3; ++ver) {
    v.push_back(other(DXT_MPIIO_MOD, ver, record_kind::dxt));
    v.back().dxt_segment_size = ver < 3 ? 32 : 40;
    v.back().dxt_offsets_unknown = ver == 1;
  }

  // Each counters layout maps onto its module's newest one.
  for (auto& l : v) {
    if (l.kind != record_kind::counters) continue;
    const record_layout* cur = nullptr;
    for (const auto& c : v)
      if (c.module == l.module && c.version == module_versions[l.module]) cur = &c;
    l.current_ints = mapping(l.ints, cur->ints);
    l.current_floats = mapping(l.floats, cur->floats);
  }
  return v;
}

const std::vector<record_layout>& layouts() {
  static const std::vector<record_layout> v = build();
  return v;
}

}  // namespace

const record_layout* find_layout(int module, std::uint32_t version) {
  for (const auto& l : layouts())
    if (l.module == module && l.version == version) return &l;
  return nullptr;
}

const record_layout* current_layout(int module) {
  if (module < 0 || module >= known_module_count) return nullptr;
  const record_layout* l = find_layout(module, module_versions[module]);
  return l && l->kind == record_kind::counters ? l : nullptr;
}

std::int64_t missing_int(int module, std::size_t current_index) {
  if (module == POSIX_MOD && current_index == POSIX_RENAMED_FROM) return 0;
  return -1;
}

double missing_float(int, std::size_t) { return -1; }

std::string_view module_name(int module) {
  if (module < 0 || module >= known_module_count) return "<UNKNOWN>";
  return module_names[module];
}

}  // namespace perfdm::darshan
