// A Darshan log with a record of every module the format can hold, in the record versions
// Darshan's runtime of that format wrote, every counter set to a value that says where it
// sits (record seed * 1000 + counter index; floats seed + index / 8). Written by the tests,
// by write_test_log (tests/darshan/write_test_log.cpp) for the comparison with
// darshan-parser, and by the fuzzer's seed maker.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "darshan/darshan_counters.hpp"
#include "darshan/darshan_layouts.hpp"
#include "darshan/darshan_log_writer.hpp"
#include "darshan/darshan_record_id.hpp"

namespace perfdm::darshan_test {

using namespace perfdm::darshan;

struct module_version {
  int module;
  std::uint32_t version;
};

// The modules, in record versions, a runtime of `format` wrote.
inline std::vector<module_version> modules_of(const std::string& format) {
  if (format == "3.00") return {{POSIX_MOD, 1}, {MPIIO_MOD, 1}};
  if (format == "3.10")
    return {{POSIX_MOD, 2},        {MPIIO_MOD, 2},  {H5F_MOD, 1},       {PNETCDF_FILE_MOD, 1},
            {BGQ_MOD, 2},          {LUSTRE_MOD, 1}, {STDIO_MOD, 1},     {DXT_POSIX_MOD, 1},
            {DXT_MPIIO_MOD, 1}};
  if (format == "3.20" || format == "3.21")
    return {{POSIX_MOD, format == "3.20" ? 3u : 4u},        {MPIIO_MOD, 3},  {H5F_MOD, 2},       {H5D_MOD, 1},
            {PNETCDF_FILE_MOD, 2}, {LUSTRE_MOD, 1}, {STDIO_MOD, 2},     {DXT_POSIX_MOD, 1},
            {DXT_MPIIO_MOD, 2},    {HEATMAP_MOD, 1}};
  return {{POSIX_MOD, 4},        {MPIIO_MOD, 3},       {H5F_MOD, 3},    {H5D_MOD, 2},
          {PNETCDF_FILE_MOD, 3}, {PNETCDF_VAR_MOD, 1}, {LUSTRE_MOD, 2}, {STDIO_MOD, 2},
          {DXT_POSIX_MOD, 2},    {DXT_MPIIO_MOD, 3},   {HEATMAP_MOD, 1}};
}

inline const std::vector<std::string>& test_names() {
  static const std::vector<std::string> n = {"/scratch/run/out.dat", "/home/u/in.txt",
                                             "heatmap:POSIX"};
  return n;
}

inline job_info test_job(const std::string& format) {
  job_info j;
  j.uid = 1000;
  j.start_time_sec = 1700000000;
  j.end_time_sec = 1700000042;
  if (format == "3.41") {
    j.start_time_nsec = 250000000;
    j.end_time_nsec = 750000000;
  }
  j.nprocs = 4;
  j.jobid = 4242;
  j.metadata = {{"lib_ver", "3.5.0"}, {"h", "romio_no_indep_rw=true;cb_nodes=4"}};
  j.exe = "/usr/bin/app --input /home/u/in.txt";
  j.mounts = {{"/", "ext4"}, {"/scratch", "lustre"}, {"/home", "nfs"}};
  return j;
}

// Counter values of record `seed`.
inline std::int64_t int_value(int seed, std::size_t i) {
  return seed * 1000 + static_cast<std::int64_t>(i);
}
inline double float_value(int seed, std::size_t i) { return seed + static_cast<double>(i) / 8; }

// One record of `mv` for file `name` of rank `rank`.
inline void add_test_record(log_file_writer& w, module_version mv, int seed, const std::string& name,
                            std::int64_t rank) {
  const record_layout* l = find_layout(mv.module, mv.version);
  record_bytes r = w.record();
  const std::uint64_t id = record_id(name);
  r.u64(id).i64(rank);
  switch (l->kind) {
    case record_kind::counters:
      if (l->pad_after_base) r.chars("", l->pad_after_base);
      if (l->file_rec_id) r.u64(record_id(test_names()[0]));
      for (std::size_t i = 0; i < l->ints.size(); ++i) {
        // darshan-parser drops POSIX version 1 records whose stdio counters are not 0.
        const std::string n = l->ints[i];
        const bool stdio_in_posix = n == "POSIX_FOPENS" || n == "POSIX_FREADS" ||
                                    n == "POSIX_FWRITES" || n == "POSIX_FSEEKS";
        r.i64(stdio_in_posix ? 0 : int_value(seed, i));
      }
      for (std::size_t i = 0; i < l->floats.size(); ++i) r.f64(float_value(seed, i));
      break;
    case record_kind::heatmap:
      r.f64(0.1).i64(3).u64(0).u64(0);
      for (int b = 0; b < 3; ++b) r.i64(seed * 100 + b);       // write bins
      for (int b = 0; b < 3; ++b) r.i64(seed * 100 + 50 + b);  // read bins
      break;
    case record_kind::lustre_v1:
      r.i64(16).i64(1).i64(3).i64(1048576).i64(2).i64(7).i64(11);
      break;
    case record_kind::lustre:
      // Two components, three OSTs.
      r.i64(2).i64(3);
      r.i64(1048576).i64(2).i64(0).i64(0).i64(0).i64(4194304).i64(1).chars("pool1", 16);
      r.i64(4194304).i64(1).i64(4).i64(1).i64(4194304).i64(-1).i64(1).chars("", 16);
      r.i64(5).i64(6).i64(9);
      break;
    case record_kind::dxt: {
      r.i64(0).chars("node" + std::to_string(seed), dxt_hostname_size).i64(2).i64(1);
      for (int s = 0; s < 3; ++s) {
        r.i64(s * 4096).i64(4096).f64(0.5 + s).f64(0.75 + s);
        if (l->dxt_segment_size == 40) r.u64(139000000000000ull + static_cast<unsigned>(s % 2));
      }
      break;
    }
  }
  w.add_record(r);
}

// Writes the test log of `options.version` to `path`.
inline void write_test_log(const std::string& path, const writer_options& options) {
  log_file_writer w(path, options);
  w.write_job(test_job(options.version));
  for (const auto& n : test_names()) w.add_name(record_id(n), n);
  for (const auto& mv : modules_of(options.version)) {
    w.begin_module(mv.module, mv.version);
    if (mv.module == HEATMAP_MOD) {
      add_test_record(w, mv, 1, "heatmap:POSIX", 0);
      add_test_record(w, mv, 2, "heatmap:POSIX", 1);
    } else {
      add_test_record(w, mv, 1, test_names()[0], 0);
      add_test_record(w, mv, 2, test_names()[1], -1);
    }
  }
  w.finish();
}

}  // namespace perfdm::darshan_test
