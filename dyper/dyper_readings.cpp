#include "dyper/dyper_readings.hpp"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "native/native_error.hpp"
#include "native/proc_stats.hpp"
#include "proc/process_facts.hpp"

namespace perfdm {

namespace {

// When a thread started, ms since the epoch; 0 when it cannot be read.
std::int64_t thread_start_ms(std::int32_t pid, std::int32_t tid) {
  auto stat = proc::read_stat(pid, tid);
  return stat ? proc::start_time_ns(stat->start_ticks) / 1'000'000 : 0;
}

// "VmRSS:\t  1234 kB" -> bytes; 0 when absent.
std::uint64_t status_bytes(const std::string& status, const char* key) {
  auto at = status.find(std::string("\n") + key + ":");
  if (at == std::string::npos) return 0;
  std::istringstream in(status.substr(at + std::char_traits<char>::length(key) + 2));
  std::uint64_t kb = 0;
  in >> kb;
  return kb * 1024;
}

}  // namespace

std::int64_t thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

dyper_report_readings read_dyper_readings(std::int32_t pid, const cpu_profile_report* profile) {
  dyper_report_readings r;
  r.pid = pid;
  r.now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  r.nano = std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
               .count();
  auto procs = sysconf(_SC_NPROCESSORS_ONLN);
  r.processors = procs > 0 ? static_cast<std::int32_t>(procs) : 1;
  if (profile) r.profile = *profile;
  try {
    auto st = native::read_process_stats(pid, {true, true});
    r.io_read = st.io_read_bytes;
    r.io_write = st.io_write_bytes;
    r.storage_read = st.storage_read_bytes;
    r.storage_write = st.storage_write_bytes;
    for (auto& t : st.per_thread)
      r.threads.push_back({t.tid, t.name, native::state_name(t.state), thread_start_ms(pid, t.tid),
                           static_cast<double>(t.cpu_user_ns) / 1e6,
                           static_cast<double>(t.cpu_system_ns) / 1e6, t.ctx_voluntary,
                           t.ctx_involuntary});
    auto status = "\n" + native::read_proc_file(pid, "/proc/" + std::to_string(pid) + "/status");
    r.memory = {status_bytes(status, "VmSize"),  status_bytes(status, "VmData"),
                status_bytes(status, "VmStk"),   status_bytes(status, "RssAnon"),
                status_bytes(status, "RssFile"), status_bytes(status, "RssShmem")};
    r.have_proc = true;
  } catch (const native::native_error&) {
    // Gone or not readable: the report holds what the sampler saw.
    r.threads.clear();
  }
  return r;
}

}  // namespace perfdm
