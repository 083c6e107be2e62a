// synthetic_darshan_log OUT RECORDS FILES: a Darshan 3.41 log (zlib) of RECORDS POSIX records
// over FILES files, one record per (file, rank) with ranks = RECORDS / FILES, counters varied
// by record so that every insight's counters are non-zero somewhere; for perfdm report's
// benchmark (bench/report/report_bench.sh).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "darshan/darshan_counters.hpp"
#include "darshan/darshan_layouts.hpp"
#include "darshan/darshan_log_writer.hpp"
#include "darshan/darshan_record_id.hpp"

namespace dz = perfdm::darshan;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: synthetic_darshan_log OUT RECORDS FILES\n";
    return 2;
  }
  const long long records = std::atoll(argv[2]), files = std::max(1LL, std::atoll(argv[3]));
  const long long ranks = std::max(1LL, records / files);
  try {
    dz::log_file_writer w(argv[1], {});
    dz::job_info j;
    j.nprocs = ranks;
    j.jobid = 1;
    j.start_time_sec = 1700000000;
    j.end_time_sec = 1700003600;
    j.exe = "/usr/bin/synthetic --records " + std::to_string(records);
    j.metadata = {{"lib_ver", "3.5.0"}};
    j.mounts = {{"/scratch", "lustre"}, {"/", "ext4"}};
    w.write_job(j);
    auto name = [](long long f) { return "/scratch/run/out." + std::to_string(f); };
    for (long long f = 0; f < files; ++f) w.add_name(dz::record_id(name(f)), name(f));
    w.begin_module(dz::POSIX_MOD, 4);
    const dz::record_layout* l = dz::current_layout(dz::POSIX_MOD);
    for (long long i = 0; i < records; ++i) {
      const long long f = i % files, rank = (i / files) % ranks;
      auto r = w.record();
      r.u64(dz::record_id(name(f))).i64(rank);
      const long long writes = 100 + i % 997, reads = 50 + i % 89;
      for (std::size_t c = 0; c < l->ints.size(); ++c) {
        long long v = 0;
        switch (c) {
          case dz::POSIX_OPENS: v = 2; break;
          case dz::POSIX_READS: v = reads; break;
          case dz::POSIX_WRITES: v = writes; break;
          case dz::POSIX_SEEKS: v = i % 7; break;
          case dz::POSIX_BYTES_READ: v = reads * 65536; break;
          case dz::POSIX_BYTES_WRITTEN: v = writes * 4096; break;
          case dz::POSIX_MAX_BYTE_READ: v = reads * 65536 - 1; break;
          case dz::POSIX_MAX_BYTE_WRITTEN: v = writes * 4096 - 1; break;
          case dz::POSIX_SEQ_READS: v = reads - i % 13; break;
          case dz::POSIX_CONSEC_READS: v = reads / 2; break;
          case dz::POSIX_SEQ_WRITES: v = writes; break;
          case dz::POSIX_CONSEC_WRITES: v = writes; break;
          case dz::POSIX_MEM_NOT_ALIGNED: v = i % 3; break;
          case dz::POSIX_FILE_NOT_ALIGNED: v = writes / 4; break;
          case dz::POSIX_SIZE_READ_10K_100K: v = reads; break;
          case dz::POSIX_SIZE_WRITE_1K_10K: v = writes; break;
          case dz::POSIX_ACCESS1_ACCESS: v = 4096; break;
          case dz::POSIX_ACCESS1_COUNT: v = writes; break;
          case dz::POSIX_ACCESS2_ACCESS: v = 65536; break;
          case dz::POSIX_ACCESS2_COUNT: v = reads; break;
          case dz::POSIX_MEM_ALIGNMENT: v = 8; break;
          case dz::POSIX_FILE_ALIGNMENT: v = 4096; break;
          default: v = 0;
        }
        r.i64(v);
      }
      for (std::size_t c = 0; c < l->floats.size(); ++c) {
        double v = 0;
        switch (c) {
          case dz::POSIX_F_READ_TIME: v = 0.001 * double(reads); break;
          case dz::POSIX_F_WRITE_TIME: v = 0.0005 * double(writes); break;
          case dz::POSIX_F_META_TIME: v = 0.01; break;
          case dz::POSIX_F_OPEN_START_TIMESTAMP: v = double(i % 100); break;
          case dz::POSIX_F_CLOSE_END_TIMESTAMP: v = 3500; break;
          default: v = 0;
        }
        r.f64(v);
      }
      w.add_record(r);
    }
    std::cout << w.finish() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "synthetic_darshan_log: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
