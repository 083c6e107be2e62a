// Reading Darshan logs: perfdm log against Darshan's darshan-parser, run alternately as
// processes on the same logs, output to /dev/null; wall time and peak RSS (wait4) of each,
// medians and ratios. Logs: the largest sample log and synthetic logs of POSIX records (one
// file per record, 1024 ranks) written with darshan/darshan_log_writer.hpp.
//   darshan_parse_bench [--darshan PREFIX] [--runs K] [--records N,...] [--keep DIR] [LOG...]
// Defaults: /opt/darshan (../shared/peers/build-darshan.sh), 3 runs, 100000,1000000 records,
// the two largest logs of tests/darshan/logs/ (by bytes, by records). Results: bench/RESULTS.md.
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "darshan/darshan_counters.hpp"
#include "darshan/darshan_log_writer.hpp"
#include "darshan/darshan_record_id.hpp"

namespace fs = std::filesystem;
using namespace perfdm::darshan;

namespace {

// A synthetic job: `records` POSIX records, each its own file, over 1024 ranks.
void write_synthetic(const std::string& path, std::size_t records) {
  log_file_writer w(path, {});
  job_info job;
  job.uid = 1000;
  job.start_time_sec = 1700000000;
  job.end_time_sec = 1700003600;
  job.nprocs = 1024;
  job.jobid = 777;
  job.metadata = {{"lib_ver", "3.5.0"}};
  job.exe = "/scratch/app/bin/solver -i input.nml";
  job.mounts = {{"/", "ext4"}, {"/scratch", "lustre"}, {"/home", "nfs"}};
  w.write_job(job);
  auto name = [](std::size_t i) {
    char b[64];
    std::snprintf(b, sizeof b, "/scratch/job/r%04zu/part.%07zu.dat", i % 1024, i);
    return std::string(b);
  };
  for (std::size_t i = 0; i < records; ++i) w.add_name(record_id(name(i)), name(i));
  w.begin_module(POSIX_MOD, 4);
  std::mt19937_64 rng(42);
  record_bytes r = w.record();
  for (std::size_t i = 0; i < records; ++i) {
    r.clear();
    r.u64(record_id(name(i))).i64(static_cast<std::int64_t>(i % 1024));
    const std::int64_t ops = static_cast<std::int64_t>(rng() % 5000);
    for (int c = 0; c < POSIX_NUM_INDICES; ++c) {
      std::int64_t v = 0;
      if (c == POSIX_OPENS) v = 1 + static_cast<std::int64_t>(rng() % 4);
      else if (c == POSIX_READS || c == POSIX_WRITES) v = ops;
      else if (c == POSIX_BYTES_READ || c == POSIX_BYTES_WRITTEN) v = ops * 4096;
      else if (c == POSIX_MODE) v = 420;
      else if (c == POSIX_MEM_ALIGNMENT) v = 8;
      else if (c == POSIX_FILE_ALIGNMENT) v = 1048576;
      else if (c == POSIX_SIZE_READ_1K_10K || c == POSIX_SIZE_WRITE_1K_10K) v = ops;
      else if (c == POSIX_ACCESS1_ACCESS) v = 4096;
      else if (c == POSIX_ACCESS1_COUNT) v = 2 * ops;
      else if (c == POSIX_MMAPS) v = -1;
      r.i64(v);
    }
    for (int f = 0; f < POSIX_F_NUM_INDICES; ++f)
      r.f64(f < 8 ? static_cast<double>(rng() % 3600000) / 1000 : static_cast<double>(rng() % 10000) / 1e4);
    w.add_record(r);
  }
  w.finish();
}

struct run_result {
  double seconds;
  long peak_kib;
  int status;
};

run_result run(const std::vector<std::string>& argv) {
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    ::execv(a[0], a.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage ru {};
  ::wait4(pid, &status, 0, &ru);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {s, ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string darshan = "/opt/darshan", keep;
  int runs = 3;
  std::vector<std::size_t> sizes = {100000, 1000000};
  std::vector<std::string> logs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--darshan" && i + 1 < argc) darshan = argv[++i];
    else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--keep" && i + 1 < argc) keep = argv[++i];
    else if (a == "--records" && i + 1 < argc) {
      sizes.clear();
      std::string list = argv[++i];
      for (std::size_t at = 0; at <= list.size();) {
        std::size_t comma = list.find(',', at);
        if (comma == std::string::npos) comma = list.size();
        sizes.push_back(std::stoul(list.substr(at, comma - at)));
        at = comma + 1;
      }
    } else logs.push_back(a);
  }
  const std::string parser = darshan + "/bin/darshan-parser";
  const std::string perfdm = PERFDM_BINARY;
  if (::access(parser.c_str(), X_OK) != 0) {
    std::cerr << "darshan_parse_bench: no " << parser
              << " (../shared/peers/build-darshan.sh " << darshan << ")\n";
    return 2;
  }
  if (logs.empty()) {
    // The largest sample log by size (mostly DXT, which darshan-parser skips) and by records.
    const std::string samples = std::string(PERFDM_SOURCE_DIR) + "/tests/darshan/logs/";
    logs = {samples + "nonmpi_dxt_anonymized.darshan", samples + "imbalanced-io.darshan"};
  }
  const std::string dir =
      keep.empty()
          ? (fs::temp_directory_path() / ("darshan_parse_bench_" + std::to_string(::getpid()))).string()
          : keep;
  fs::create_directories(dir);
  for (std::size_t n : sizes) {
    std::string path = dir + "/synthetic_" + std::to_string(n) + ".darshan";
    if (!fs::exists(path)) {
      auto t0 = std::chrono::steady_clock::now();
      write_synthetic(path, n);
      std::cerr << "wrote " << path << " (" << fs::file_size(path) << " bytes) in "
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
                << " s\n";
    }
    logs.push_back(path);
  }
  std::printf("| log | bytes | darshan-parser s | perfdm log s | time ratio | darshan-parser peak RSS MiB | perfdm peak RSS MiB |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const auto& log : logs) {
    std::vector<double> tp, tf, mp, mf;
    for (int i = 0; i < runs; ++i) {
      auto p = run({parser, "--show-incomplete", log});
      auto f = run({perfdm, "log", "--show-incomplete", log});
      if (p.status != 0 || f.status != 0)
        std::cerr << log << ": darshan-parser exited " << p.status << ", perfdm " << f.status << "\n";
      tp.push_back(p.seconds);
      tf.push_back(f.seconds);
      mp.push_back(p.peak_kib / 1024.0);
      mf.push_back(f.peak_kib / 1024.0);
    }
    std::printf("| %s | %ju | %.2f | %.2f | %.2f | %.1f | %.1f |\n",
                fs::path(log).filename().c_str(), static_cast<std::uintmax_t>(fs::file_size(log)),
                median(tp), median(tf), median(tp) / median(tf), median(mp), median(mf));
    std::fflush(stdout);
  }
  if (keep.empty()) fs::remove_all(dir);
  return 0;
}
