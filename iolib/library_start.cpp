#include "iolib/library_start.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <string>

#include "iocounters/path_exclusions.hpp"
#include "iojob/job_log.hpp"
#include "iojob/log_name.hpp"
#include "iolib/file_registry.hpp"
#include "iolib/library_state.hpp"
#include "iolib/inherited_files.hpp"
#include "iolib/real_calls.hpp"
#include "log/log_core.hpp"
#include "log/log_modules.hpp"

namespace perfdm::io::lib {

library_globals g;
std::int32_t fd_records[max_fds];
stream_record stream_records[max_stream_fds];
thread_local int in_library __attribute__((tls_model("initial-exec"))) = 0;
thread_local int library_io __attribute__((tls_model("initial-exec"))) = 0;

namespace {

alignas(path_exclusions) unsigned char exclusions_storage[sizeof(path_exclusions)];
path_exclusions* exclusions = nullptr;

char job_dir[4096];
char log_target[4096];  // the job's first process: where its log goes
bool job_root = false;
int finished = 0;
segment_plan plan;
std::uint32_t options = 0;

// Writes a line to standard error without stdio (which may be the program's).
void say(const char* text) {
  const std::size_t n = std::strlen(text);
  if (n > 0) (void)!real::write()(2, text, n);
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' ? v : nullptr;
}

bool env_flag(const char* name) {
  const char* v = env(name);
  return v != nullptr && std::strcmp(v, "0") != 0;
}

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = env(name);
  if (v == nullptr) return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0') {
    char line[256];
    std::snprintf(line, sizeof line, "perfdm io: %s=%s is not a number: %llu is used\n", name, v,
                  static_cast<unsigned long long>(fallback));
    say(line);
    return fallback;
  }
  return n;
}

bool directory_usable(const char* path) {
  struct stat st;
  return ::stat(path, &st) == 0 && S_ISDIR(st.st_mode) && access(path, W_OK | X_OK) == 0;
}

// The job directory: perfdm io's (PERFDM_IO_JOB), or a new one for this process and every
// process it starts (then this process writes the log at its end).
bool open_job() {
  if (const char* j = env("PERFDM_IO_JOB");
      j != nullptr && directory_usable(j) && std::strlen(j) < sizeof job_dir) {
    std::strcpy(job_dir, j);
    // The process that started the job, after an exec, is still the one that writes its log.
    const char* root = env("PERFDM_IO_ROOT");
    job_root = root != nullptr && std::atoi(root) == int(getpid());
    const char* l = env("PERFDM_IO_LOG");
    if (job_root && l != nullptr && std::strlen(l) < sizeof log_target) std::strcpy(log_target, l);
    return true;
  }
  const char* base = env("PERFDM_IO_SEGMENT_DIR");
  if (base == nullptr || !directory_usable(base)) base = "/dev/shm";
  if (!directory_usable(base)) base = env("TMPDIR");
  if (base == nullptr || !directory_usable(base)) base = "/tmp";
  std::snprintf(job_dir, sizeof job_dir, "%s/perfdm-io.%u.%d.%llx", base, unsigned(getuid()),
                int(getpid()), static_cast<unsigned long long>(read_ticks()));
  if (real::mkdir()(job_dir, 0700) != 0) return false;
  job_root = true;
  if (const char* l = env("PERFDM_IO_LOG"); l != nullptr && std::strlen(l) < sizeof log_target) {
    std::strcpy(log_target, l);
  } else if (getcwd(log_target, sizeof log_target) == nullptr) {
    log_target[0] = '\0';
  }
  // Every process this one starts joins the job; this process stays its root across exec.
  char pid[16];
  std::snprintf(pid, sizeof pid, "%d", int(getpid()));
  setenv("PERFDM_IO_JOB", job_dir, 1);
  setenv("PERFDM_IO_ROOT", pid, 1);
  if (log_target[0] != '\0') setenv("PERFDM_IO_LOG", log_target, 1);
  return true;
}

// Darshan's command line: the arguments joined by spaces, "<TRUNCATED>" at the end when long.
std::uint32_t read_command_line(char* out, std::size_t size) {
  const int fd = real::open()("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t n = 0;
  for (ssize_t r; n < size - 1 && (r = real::read()(fd, out + n, size - 1 - n)) > 0;)
    n += std::size_t(r);
  char extra;
  const bool longer = real::read()(fd, &extra, 1) > 0;
  real::close()(fd);
  while (n > 0 && out[n - 1] == '\0') --n;
  for (std::size_t i = 0; i < n; ++i)
    if (out[i] == '\0') out[i] = ' ';
  out[n] = '\0';
  if (longer && size > 12) {
    std::strcpy(out + size - 12, "<TRUNCATED>");
    n = size - 1;
  }
  return std::uint32_t(n);
}

// Creates and maps a segment laid out by `plan`; fills the parts of the header every
// process has. Null on failure.
segment_header* create_segment() {
  char path[4200];
  std::snprintf(path, sizeof path, "%s/%d.%llx.seg", job_dir, int(getpid()),
                static_cast<unsigned long long>(read_ticks()));
  const int fd = real::open()(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  const std::uint64_t size = plan.size();
  void* p = MAP_FAILED;
  if (real::ftruncate()(fd, off_t(size)) == 0) {
    p = real::mmap()(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  real::close()(fd);
  if (p == MAP_FAILED) {
    unlink(path);
    return nullptr;
  }
  auto* h = static_cast<segment_header*>(p);
  h->version = segment_version;
  h->header_size = segment_header_size;
  h->size = size;
  h->pid = getpid();
  h->ppid = getppid();
  h->tick_kind = std::uint32_t(native_tick_kind());
  h->options = options;
  h->start_realtime_ns = realtime_ns();
  h->start_ticks = read_ticks();
  h->posix_offset = plan.posix_offset();
  h->posix_capacity = plan.posix_capacity;
  h->stdio_offset = plan.stdio_offset();
  h->stdio_capacity = plan.stdio_capacity;
  h->mpiio_offset = plan.mpiio_offset();
  h->mpiio_capacity = plan.mpiio_capacity;
  h->posix_more_offset = plan.posix_more_offset();
  h->mpiio_more_offset = plan.mpiio_more_offset();
  h->mpi_rank = -1;
  h->names_offset = plan.names_offset();
  h->names_capacity = plan.names_capacity;
  h->mounts_offset = plan.mounts_offset();
  h->heatmaps_offset = plan.heatmaps_offset();
  auto* heatmaps =
      reinterpret_cast<heatmap_bins*>(static_cast<unsigned char*>(p) + h->heatmaps_offset);
  for (std::uint32_t i = 0; i < heatmap_count; ++i) heatmaps[i].origin = h->start_ticks;
  if (plan.trace_entries != 0) {
    h->trace_offset = plan.trace_offset();
    h->trace_bytes = plan.trace_bytes();
    reinterpret_cast<trace_area*>(static_cast<unsigned char*>(p) + h->trace_offset)->capacity =
        plan.trace_entries;
  }
  const ssize_t e = readlink("/proc/self/exe", h->exe, sizeof h->exe - 1);
  h->exe[e > 0 ? e : 0] = '\0';
  h->command_line_size = read_command_line(h->command_line, sizeof h->command_line);
  h->mem_alignment = g.mem_alignment;
  std::memcpy(h->magic, segment_magic, sizeof h->magic);  // last: the header is complete
  return h;
}

void use_segment(segment_header* h) {
  auto* base = reinterpret_cast<unsigned char*>(h);
  g.header = h;
  g.posix_base = base + h->posix_offset;
  g.stdio_base = base + h->stdio_offset;
  g.mpiio_base = base + h->mpiio_offset;
  g.posix_more_base = base + h->posix_more_offset;
  g.mpiio_more_base = base + h->mpiio_more_offset;
  g.heatmaps = reinterpret_cast<heatmap_bins*>(base + h->heatmaps_offset);
  g.trace = h->trace_bytes != 0 ? reinterpret_cast<trace_area*>(base + h->trace_offset) : nullptr;
  g.pid = h->pid;
}

// Sizes the segment: each module's records out of one pool, as the log core grants them.
void plan_segment() {
  const std::uint64_t records = env_number("PERFDM_IO_MAX_RECORDS", 16384);
  log_core_options lo;
  lo.module_memory_bytes = std::size_t(env_number("PERFDM_IO_MODMEM", 64)) << 20;
  log_core grants(lo);
  const std::size_t posix_bytes =
      grants.register_module(posix_log_module_name, posix_log_module_id, posix_log_module_version,
                             records * posix_slot_size);
  const std::size_t stdio_bytes =
      grants.register_module(stdio_log_module_name, stdio_log_module_id, stdio_log_module_version,
                             records * stdio_slot_size);
  plan.posix_capacity = std::uint32_t(posix_bytes / posix_slot_size);
  plan.stdio_capacity = std::uint32_t(stdio_bytes / stdio_slot_size);
  // MPI-IO records cost only address space in a program without MPI: the segment's pages
  // are touched when a record is made.
  const std::size_t mpiio_bytes =
      grants.register_module(mpiio_log_module_name, mpiio_log_module_id, mpiio_log_module_version,
                             records * mpiio_slot_size);
  plan.mpiio_capacity = std::uint32_t(mpiio_bytes / mpiio_slot_size);
  plan.names_capacity = (env_number("PERFDM_IO_NAMEMEM", 4) << 20);
  if (env_flag("PERFDM_IO_TRACE")) {
    options |= option_trace;
    plan.trace_entries = (env_number("PERFDM_IO_TRACE_MEM", 2) << 20) / sizeof(trace_segment);
  }
}

void configure_exclusions() {
  exclusions = new (exclusions_storage) path_exclusions;
  const char* ex = env("PERFDM_IO_EXCLUDE");
  const char* in = env("PERFDM_IO_INCLUDE");
  char error[512];
  if (!exclusions->configure(ex ? ex : "", in ? in : "", !env_flag("PERFDM_IO_NO_DEFAULT_EXCLUDES"),
                             error, sizeof error)) {
    char line[600];
    std::snprintf(line, sizeof line, "perfdm io: PERFDM_IO_EXCLUDE/INCLUDE: %s\n", error);
    say(line);
  }
}

void before_fork() {
  registry_lock();
}
void after_fork_parent() {
  registry_unlock();
}

// A forked child counts into a segment of its own: a copy of its parent's records (the files
// its inherited descriptors and streams point at) with every count at zero.
void after_fork_child() {
  registry_unlock();
  if (!ready()) return;
  library_io_guard guard;
  job_root = false;
  finished = 0;
  segment_header* old = g.header;
  segment_header* h = create_segment();
  if (h == nullptr) {
    // No segment: the child runs uncounted rather than adding to its parent's counts.
    for (auto& r : fd_records) r = 0;
    for (auto& s : stream_records) s = {};
    __atomic_store_n(&g.state, int(state_off), __ATOMIC_RELEASE);
    return;
  }
  h->fork_parent = old->pid;
  h->partial = old->partial;
  auto* from = reinterpret_cast<unsigned char*>(old);
  auto* to = reinterpret_cast<unsigned char*>(h);
  std::memcpy(to + h->names_offset, from + old->names_offset, old->names_used);
  h->names_used = old->names_used;
  std::memcpy(to + h->mounts_offset, from + old->mounts_offset, sizeof(mount_entry) * max_mounts);
  h->mounts_count = old->mounts_count;
  h->mounts_ready = old->mounts_ready;
  for (std::uint32_t i = 0; i < old->posix_count; ++i) {
    auto& f = *reinterpret_cast<posix_file*>(to + h->posix_offset + i * posix_slot_size);
    const auto& p =
        *reinterpret_cast<const posix_file*>(from + old->posix_offset + i * posix_slot_size);
    posix_init(f, p.id, p.name_offset, p.mount, p.counters[POSIX_MEM_ALIGNMENT],
               p.counters[POSIX_FILE_ALIGNMENT], !g.darshan_only,
               reinterpret_cast<posix_file_more*>(to + h->posix_more_offset) + i);
    f.flags = record_inherited;
    f.offset = p.offset;
  }
  h->posix_count = old->posix_count;
  for (std::uint32_t i = 0; i < old->stdio_count; ++i) {
    auto& f = *reinterpret_cast<stdio_file*>(to + h->stdio_offset + i * stdio_slot_size);
    const auto& p =
        *reinterpret_cast<const stdio_file*>(from + old->stdio_offset + i * stdio_slot_size);
    stdio_init(f, p.id, p.name_offset, p.mount);
    f.flags = record_inherited;
    f.offset = p.offset;
  }
  h->stdio_count = old->stdio_count;
  use_segment(h);
  munmap(old, old->size);
}

void end_of_job() {
  const std::int64_t begin_ns = realtime_ns();
  std::vector<std::string> errors;
  const std::vector<segment_snapshot> segments = read_job_segments(job_dir, errors);
  const std::string exe(g.header->exe);
  const std::string path = log_path_for(log_target, exe, int(getpid()), std::time(nullptr));
  try {
    write_job_log(segments, path);
  } catch (const std::exception& e) {
    errors.push_back(path + ": " + e.what());
  }
  for (const auto& e : errors) say(("perfdm io: " + e + "\n").c_str());
  if (DIR* d = opendir(job_dir)) {
    while (const dirent* e = readdir(d)) {
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
        unlinkat(dirfd(d), e->d_name, 0);
      }
    }
    closedir(d);
  }
  rmdir(job_dir);
  if (env_flag("PERFDM_IO_TIMING")) {
    char line[160];
    std::snprintf(line, sizeof line, "perfdm io: shutdown %.3f ms (%zu processes)\n",
                  double(realtime_ns() - begin_ns) * 1e-6, segments.size());
    say(line);
  }
}

}  // namespace

bool excluded_name(const char* cleaned) {
  return exclusions != nullptr ? exclusions->excluded(cleaned) : default_excluded(cleaned);
}

bool start() {
  int expected = state_unset;
  if (!__atomic_compare_exchange_n(&g.state, &expected, int(state_starting), false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    return expected == state_ready;
  }
  library_io_guard guard;
  if (env_flag("PERFDM_IO_DISABLE")) {
    __atomic_store_n(&g.state, int(state_off), __ATOMIC_RELEASE);
    return false;
  }
  g.darshan_only = env_flag("PERFDM_IO_DARSHAN_ONLY");
  if (g.darshan_only) options |= option_darshan_only;
  g.mem_alignment = std::int64_t(env_number("PERFDM_IO_MEMALIGN", 8));
  g.alignment_pow2 = g.mem_alignment > 0 && (g.mem_alignment & (g.mem_alignment - 1)) == 0;
  g.alignment_mask = g.alignment_pow2 ? std::uint64_t(g.mem_alignment - 1) : 0;
  configure_exclusions();
  plan_segment();
  segment_header* h = open_job() ? create_segment() : nullptr;
  if (h == nullptr ||
      !registry_allocate(plan.posix_capacity + plan.stdio_capacity + plan.mpiio_capacity)) {
    say("perfdm io: cannot create the I/O segment: this process is not counted\n");
    __atomic_store_n(&g.state, int(state_off), __ATOMIC_RELEASE);
    return false;
  }
  use_segment(h);
  add_standard_streams();
  mark_inherited_files();
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
  __atomic_store_n(&g.state, int(state_ready), __ATOMIC_RELEASE);
  return true;
}

void finish_process() {
  if (!ready() || getpid() != g.pid) return;
  if (__atomic_exchange_n(&finished, 1, __ATOMIC_ACQ_REL) != 0) return;
  library_io_guard guard;
  segment_header& h = *g.header;
  h.end_ticks = read_ticks();
  h.end_realtime_ns = realtime_ns();
  __atomic_store_n(&h.state, std::uint32_t(segment_finished), __ATOMIC_RELEASE);
  if (job_root) end_of_job();
}

bool image_ending() {
  if (!ready() || getpid() != g.pid) return false;
  segment_header& h = *g.header;
  h.end_ticks = read_ticks();
  h.end_realtime_ns = realtime_ns();
  __atomic_store_n(&h.state, std::uint32_t(segment_execed), __ATOMIC_RELEASE);
  return true;
}

void image_goes_on() {
  segment_header& h = *g.header;
  __atomic_store_n(&h.state, std::uint32_t(segment_running), __ATOMIC_RELEASE);
  h.end_ticks = 0;
  h.end_realtime_ns = 0;
}

namespace {
__attribute__((constructor)) void at_load() {
  start();
}
__attribute__((destructor)) void at_unload() {
  finish_process();
}
}  // namespace

}  // namespace perfdm::io::lib
