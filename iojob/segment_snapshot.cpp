#include "iojob/segment_snapshot.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace perfdm::io {

namespace {

struct mapping {
  void* p = MAP_FAILED;
  std::size_t size = 0;
  ~mapping() {
    if (p != MAP_FAILED) munmap(p, size);
  }
};

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error(path + ": " + why);
}

template <class Record>
void copy_records(const unsigned char* base, std::uint64_t offset, std::size_t slot_size,
                  std::uint32_t count, std::vector<Record>& out, std::uint32_t& torn) {
  out.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!read_record(base + offset + std::size_t(i) * slot_size, &out[i], sizeof(Record))) ++torn;
  }
}

std::string name_at(const unsigned char* base, const segment_header& h, std::uint64_t offset,
                    std::uint64_t used) {
  if (offset + 16 > used) return {};
  const auto* e = reinterpret_cast<const name_entry*>(base + h.names_offset + offset);
  if (offset + 16 + e->length > used) return {};
  return std::string(e->bytes, e->length);
}

}  // namespace

segment_snapshot read_segment(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    fail(path, std::strerror(e));
  }
  mapping m;
  m.size = std::size_t(st.st_size);
  if (m.size < segment_header_size) {
    ::close(fd);
    fail(path, "not an I/O segment (" + std::to_string(m.size) + " bytes)");
  }
  m.p = ::mmap(nullptr, m.size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m.p == MAP_FAILED) fail(path, std::string("cannot map it: ") + std::strerror(errno));
  const auto* base = static_cast<const unsigned char*>(m.p);

  segment_snapshot s;
  s.path = path;
  std::memcpy(&s.header, base, sizeof s.header);
  const segment_header& h = s.header;
  if (std::memcmp(h.magic, segment_magic, sizeof segment_magic) != 0) {
    fail(path, "not an I/O segment (wrong magic)");
  }
  if (h.version != segment_version) {
    fail(path, "I/O segment version " + std::to_string(h.version) + ", this perfdm reads " +
                   std::to_string(segment_version));
  }
  segment_plan plan;
  plan.posix_capacity = h.posix_capacity;
  plan.stdio_capacity = h.stdio_capacity;
  plan.mpiio_capacity = h.mpiio_capacity;
  plan.names_capacity = h.names_capacity;
  plan.trace_entries = h.trace_bytes == 0 ? 0 : (h.trace_bytes - 16) / sizeof(trace_segment);
  if (h.size > m.size || plan.size() > m.size || h.posix_offset != plan.posix_offset() ||
      h.stdio_offset != plan.stdio_offset() || h.mpiio_offset != plan.mpiio_offset() ||
      h.posix_more_offset != plan.posix_more_offset() ||
      h.mpiio_more_offset != plan.mpiio_more_offset() || h.names_offset != plan.names_offset() || h.mounts_offset != plan.mounts_offset() ||
      h.heatmaps_offset != plan.heatmaps_offset() ||
      (h.trace_bytes != 0 && h.trace_offset != plan.trace_offset())) {
    fail(path, "I/O segment layout does not match its file (" + std::to_string(m.size) + " bytes)");
  }
  const std::uint32_t posix_count =
      std::min(__atomic_load_n(&reinterpret_cast<const segment_header*>(base)->posix_count,
                               __ATOMIC_ACQUIRE),
               h.posix_capacity);
  const std::uint32_t stdio_count =
      std::min(__atomic_load_n(&reinterpret_cast<const segment_header*>(base)->stdio_count,
                               __ATOMIC_ACQUIRE),
               h.stdio_capacity);
  const std::uint32_t mpiio_count =
      std::min(__atomic_load_n(&reinterpret_cast<const segment_header*>(base)->mpiio_count,
                               __ATOMIC_ACQUIRE),
               h.mpiio_capacity);
  const std::uint64_t names_used = std::min(
      __atomic_load_n(&reinterpret_cast<const segment_header*>(base)->names_used, __ATOMIC_ACQUIRE),
      h.names_capacity);
  copy_records(base, h.posix_offset, posix_slot_size, posix_count, s.posix, s.torn_records);
  copy_records(base, h.stdio_offset, stdio_slot_size, stdio_count, s.stdio, s.torn_records);
  copy_records(base, h.mpiio_offset, mpiio_slot_size, mpiio_count, s.mpiio, s.torn_records);
  for (const auto& r : s.posix)
    s.posix_names.push_back(name_at(base, h, r.name_offset, names_used));
  for (const auto& r : s.stdio)
    s.stdio_names.push_back(name_at(base, h, r.name_offset, names_used));
  for (const auto& r : s.mpiio)
    s.mpiio_names.push_back(name_at(base, h, r.name_offset, names_used));

  const std::uint32_t mounts = std::min(h.mounts_count, max_mounts);
  const auto* mt = reinterpret_cast<const mount_entry*>(base + h.mounts_offset);
  s.mounts.assign(mt, mt + mounts);
  for (auto& e : s.mounts) {
    e.path[sizeof e.path - 1] = '\0';
    e.type[sizeof e.type - 1] = '\0';
  }

  const auto* heatmaps = reinterpret_cast<const heatmap_bins*>(base + h.heatmaps_offset);
  s.heatmap_origin = heatmaps[0].origin;
  for (std::uint32_t api = 0; api < heatmap_count; ++api) {
    for (std::uint32_t level = 0; level < heatmap_bins::levels; ++level) {
      for (std::uint32_t bin = 0; bin < heatmap_bins::bins; ++bin) {
        const std::int64_t r = __atomic_load_n(&heatmaps[api].read[level][bin], __ATOMIC_RELAXED);
        const std::int64_t w = __atomic_load_n(&heatmaps[api].write[level][bin], __ATOMIC_RELAXED);
        if (r != 0 || w != 0) s.heatmap.push_back({api, level, bin, r, w});
      }
    }
  }

  if (h.trace_bytes != 0) {
    const auto* t = reinterpret_cast<const trace_area*>(base + h.trace_offset);
    const std::uint64_t used = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);
    const std::uint64_t n = std::min(used, plan.trace_entries);
    s.trace_dropped = used - n;
    s.trace.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      const trace_segment& e = t->entries[i];
      if (e.start != 0 && e.end != 0) s.trace.push_back(e);  // skips entries never finished
    }
  }
  return s;
}

std::vector<segment_snapshot> read_job_segments(const std::string& job_dir,
                                                std::vector<std::string>& errors) {
  std::vector<segment_snapshot> out;
  DIR* d = ::opendir(job_dir.c_str());
  if (d == nullptr) {
    errors.push_back(job_dir + ": " + std::strerror(errno));
    return out;
  }
  std::vector<std::string> files;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".seg") == 0) {
      files.push_back(job_dir + "/" + name);
    }
  }
  ::closedir(d);
  for (const auto& f : files) {
    try {
      out.push_back(read_segment(f));
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
  }
  std::sort(out.begin(), out.end(), [](const segment_snapshot& a, const segment_snapshot& b) {
    if (a.header.start_realtime_ns != b.header.start_realtime_ns) {
      return a.header.start_realtime_ns < b.header.start_realtime_ns;
    }
    return a.header.pid < b.header.pid;
  });
  return out;
}

}  // namespace perfdm::io
