#include "iolib/file_registry.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "darshan/darshan_record_id.hpp"
#include "iocounters/mount_table.hpp"
#include "iocounters/path_exclusions.hpp"
#include "iolib/library_start.hpp"
#include "iolib/library_state.hpp"
#include "iolib/real_calls.hpp"

namespace perfdm::io::lib {

namespace {

int registry_word = 0;

// id -> records, open addressing (ids are hashes already), in memory of its own. It starts
// small and doubles when half full, up to twice the records the segment holds: a table sized
// for every record at once would scatter a few files' entries over as many pages.
struct index_entry {
  std::uint64_t id;
  std::int32_t posix;  // index + 1
  std::int32_t stdio;
  std::int32_t mpiio;
  std::uint64_t name_offset;  // + 1 (0: no name yet)
};
index_entry* index_table = nullptr;
std::uint64_t index_mask = 0;
std::uint64_t index_used = 0;
std::uint64_t index_max_slots = 0;
constexpr std::uint64_t index_first_slots = 256;

index_entry* map_index(std::uint64_t slots) {
  void* p = real::mmap()(nullptr, slots * sizeof(index_entry), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<index_entry*>(p);
}

// Doubles the table, moving every entry; the table stays as it is when no memory is left
// (it then fills up to its last slot before a new name is refused).
bool grow_index() {
  const std::uint64_t slots = index_mask + 1;
  index_entry* bigger = map_index(2 * slots);
  if (bigger == nullptr) return false;
  const std::uint64_t mask = 2 * slots - 1;
  for (std::uint64_t i = 0; i < slots; ++i) {
    const index_entry& e = index_table[i];
    if (e.name_offset == 0) continue;
    std::uint64_t j = e.id & mask;
    while (bigger[j].name_offset != 0) j = (j + 1) & mask;
    bigger[j] = e;
  }
  munmap(index_table, slots * sizeof(index_entry));
  index_table = bigger;
  index_mask = mask;
  return true;
}

char working_directory[4096];
bool working_directory_known = false;

index_entry* find_entry(std::uint64_t id, bool insert) {
  if (index_table == nullptr) return nullptr;
  for (std::uint64_t i = id & index_mask, n = 0; n <= index_mask; i = (i + 1) & index_mask, ++n) {
    index_entry& e = index_table[i];
    if (e.name_offset != 0 && e.id == id) return &e;
    if (e.name_offset == 0) {
      if (!insert) return nullptr;
      if (2 * (index_used + 1) > index_mask + 1 && index_mask + 1 < index_max_slots &&
          grow_index()) {
        return find_entry(id, insert);
      }
      ++index_used;
      e.id = id;
      return &e;
    }
  }
  return nullptr;
}

// Appends a name entry; its offset + 1, or 0 when the name area is full.
std::uint64_t add_name(std::uint64_t id, const char* name) {
  segment_header& h = *g.header;
  const std::size_t length = std::strlen(name);
  const std::uint64_t at = h.names_used;
  const std::size_t need = name_entry_size(length);
  if (at + need > h.names_capacity) return 0;
  auto* e =
      reinterpret_cast<name_entry*>(reinterpret_cast<unsigned char*>(&h) + h.names_offset + at);
  e->id = id;
  e->length = static_cast<std::uint32_t>(length);
  std::memcpy(e->bytes, name, length + 1);
  __atomic_store_n(&h.names_used, at + need, __ATOMIC_RELEASE);
  return at + 1;
}

const char* name_at(std::uint64_t offset) {
  const segment_header& h = *g.header;
  return reinterpret_cast<const name_entry*>(reinterpret_cast<const unsigned char*>(&h) +
                                             h.names_offset + offset)
      ->bytes;
}

mount_entry* mounts() {
  return reinterpret_cast<mount_entry*>(reinterpret_cast<unsigned char*>(g.header) +
                                        g.header->mounts_offset);
}

// Reads the mount table once, before the first record needs its mount.
void load_mounts() {
  segment_header& h = *g.header;
  if (h.mounts_ready) return;
  h.mounts_ready = 1;
  static char text[64 * 1024];
  std::size_t n = 0;
  const int fd = real::open()("/proc/self/mounts", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  for (ssize_t r; n < sizeof text - 1 && (r = real::read()(fd, text + n, sizeof text - 1 - n)) > 0;)
    n += std::size_t(r);
  real::close()(fd);
  const std::uint32_t count = parse_mount_table(
      std::string_view(text, n), mounts(), max_mounts, [](const char* path, mount_entry& e) {
        struct statfs s;
        const bool ok = statfs(path, &s) == 0;
        e.fs_magic = ok ? std::int64_t(s.f_type) : 0;
        e.block_size = mount_block_size(ok, e.fs_magic, ok ? std::int64_t(s.f_bsize) : 0);
      });
  __atomic_store_n(&h.mounts_count, count, __ATOMIC_RELEASE);
}

// Darshan's POSIX_FILE_ALIGNMENT: the block size of the name's mount, -1 when none matches.
int mount_of(const char* name, std::int64_t& block_size) {
  block_size = -1;
  if (name[0] == '<') return -1;
  load_mounts();
  const int m = find_mount(mounts(), g.header->mounts_count, name);
  if (m >= 0) block_size = mounts()[m].block_size;
  return m;
}

// The entry of a name about to get a record of a module (Darshan's core: room first, then
// exclusions, then the name); null when it gets none.
index_entry* entry_for_new_record(std::uint64_t id, const char* name, int module_id,
                                  std::uint32_t count, std::uint32_t capacity) {
  if (count >= capacity) {
    mark_partial(module_id);
    return nullptr;
  }
  if (excluded_name(name)) return nullptr;
  index_entry* e = find_entry(id, true);
  if (e == nullptr) {
    mark_partial(module_id);
    return nullptr;
  }
  if (e->name_offset == 0) {
    e->name_offset = add_name(id, name);
    if (e->name_offset == 0) {
      mark_partial(module_id);
      return nullptr;
    }
  }
  return e;
}

}  // namespace

bool registry_allocate(std::uint32_t records) {
  std::uint64_t n = 64;
  while (n < 2 * std::uint64_t(records)) n *= 2;
  index_max_slots = n;
  const std::uint64_t first = n < index_first_slots ? n : index_first_slots;
  index_table = map_index(first);
  if (index_table == nullptr) return false;
  index_mask = first - 1;
  index_used = 0;
  return true;
}

void registry_lock() {
  for (int n = 0; __atomic_exchange_n(&registry_word, 1, __ATOMIC_ACQUIRE) != 0; ++n) {
    if (n > 100) {
      sched_yield();
    } else {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }
}

void registry_unlock() {
  __atomic_store_n(&registry_word, 0, __ATOMIC_RELEASE);
}

void forget_working_directory() {
  registry_lock();
  working_directory_known = false;
  registry_unlock();
}

bool descriptor_name(int fd, char* out) {
  char link[40];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, out, PATH_MAX - 1);
  if (n <= 0 || out[0] != '/') return false;
  out[n] = '\0';
  constexpr std::string_view deleted = " (deleted)";  // the name no longer leads to it
  const std::string_view name(out, std::size_t(n));
  return name.size() <= deleted.size() || name.substr(name.size() - deleted.size()) != deleted;
}

bool clean_name(int dirfd, const char* path, char* out, std::size_t size) {
  std::size_t n;
  if (path[0] == '/' || path[0] == '<' || path[0] == '\0') {
    n = darshan::clean_path_into(path, {}, out, size);
  } else {
    registry_lock();  // the working directory and the names of directories are shared
    char directory[PATH_MAX];
    if (dirfd != AT_FDCWD && static_cast<unsigned>(dirfd) < max_fds && fd_records[dirfd] > 0) {
      // Relative to a directory this library knows: its name is the working directory.
      n = darshan::clean_path_into(path, posix_name(fd_records[dirfd] - 1), out, size);
    } else if (dirfd != AT_FDCWD && !g.darshan_only && descriptor_name(dirfd, directory)) {
      // A directory opened out of sight (opendir, or under an excluded path): the kernel
      // names it. Darshan names the file as if relative to the working directory.
      n = darshan::clean_path_into(path, directory, out, size);
    } else {
      if (!working_directory_known) {
        working_directory_known = getcwd(working_directory, sizeof working_directory) != nullptr;
      }
      if (working_directory_known) {
        n = darshan::clean_path_into(path, working_directory, out, size);
      } else {  // Darshan keeps the name as given when the working directory cannot be read
        n = std::strlen(path);
        if (n < size) std::memcpy(out, path, n + 1);
      }
    }
    registry_unlock();
  }
  return n < size;
}

namespace {

// The record of module `module_id` for a cleaned name (index + 1), created by `init(index,
// entry)` when needed; `slot` is the entry's field for that module.
template <class Init>
std::int32_t record_of(const char* cleaned, bool create, std::int32_t index_entry::*slot,
                       int module_id, std::uint32_t& count, std::uint32_t capacity, Init&& init) {
  const std::uint64_t id = darshan::record_id(cleaned);
  registry_lock();
  index_entry* e = find_entry(id, false);
  std::int32_t r = e != nullptr ? e->*slot : 0;
  if (r == 0 && create) {
    e = entry_for_new_record(id, cleaned, module_id, count, capacity);
    if (e != nullptr) {
      const auto index = std::int32_t(count);
      init(index, *e);
      __atomic_store_n(&count, std::uint32_t(index + 1), __ATOMIC_RELEASE);
      e->*slot = r = index + 1;
    }
  }
  registry_unlock();
  return r;
}

}  // namespace

std::int32_t posix_record(const char* cleaned, bool create) {
  segment_header& h = *g.header;
  return record_of(cleaned, create, &index_entry::posix, darshan::POSIX_MOD, h.posix_count,
                   h.posix_capacity, [&](std::int32_t index, const index_entry& e) {
                     std::int64_t block_size;
                     const int mount = mount_of(cleaned, block_size);
                     posix_init(posix_at(index), e.id, e.name_offset - 1, mount, g.mem_alignment,
                                block_size, !g.darshan_only, posix_more_at(index));
                   });
}

std::int32_t stdio_record(const char* cleaned, bool create) {
  segment_header& h = *g.header;
  return record_of(cleaned, create, &index_entry::stdio, darshan::STDIO_MOD, h.stdio_count,
                   h.stdio_capacity, [&](std::int32_t index, const index_entry& e) {
                     std::int64_t block_size;
                     stdio_init(stdio_at(index), e.id, e.name_offset - 1,
                                mount_of(cleaned, block_size));
                   });
}

std::int32_t mpiio_record(const char* cleaned) {
  segment_header& h = *g.header;
  return record_of(cleaned, true, &index_entry::mpiio, darshan::MPIIO_MOD, h.mpiio_count,
                   h.mpiio_capacity, [&](std::int32_t index, const index_entry& e) {
                     std::int64_t block_size;
                     mpiio_init(mpiio_at(index), e.id, e.name_offset - 1,
                                mount_of(cleaned, block_size), mpiio_more_at(index));
                   });
}

const char* posix_name(std::int32_t index) {
  return name_at(posix_at(index).name_offset);
}
const char* stdio_name(std::int32_t index) {
  return name_at(stdio_at(index).name_offset);
}

unsigned highest_fd = 0;

void set_fd_record(int fd, std::int32_t record) {
  if (static_cast<unsigned>(fd) >= max_fds) return;
  __atomic_store_n(&fd_records[fd], record, __ATOMIC_RELAXED);
  unsigned seen = __atomic_load_n(&highest_fd, __ATOMIC_RELAXED);
  while (record != 0 && unsigned(fd) > seen &&
         !__atomic_compare_exchange_n(&highest_fd, &seen, unsigned(fd), true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
}

unsigned highest_fd_record() {
  return __atomic_load_n(&highest_fd, __ATOMIC_RELAXED);
}

void set_stream_record(FILE* fp, std::int32_t record) {
  const unsigned fd = static_cast<unsigned>(fp->_fileno);
  if (fd >= max_stream_fds) return;
  stream_record& s = stream_records[fd];
  __atomic_store_n(&s.owner, static_cast<FILE*>(nullptr), __ATOMIC_RELEASE);
  __atomic_store_n(&s.slot, record, __ATOMIC_RELAXED);
  if (record != 0) __atomic_store_n(&s.owner, fp, __ATOMIC_RELEASE);
}

void forget_stream(FILE* fp) {
  const unsigned fd = static_cast<unsigned>(fp->_fileno);
  if (fd >= max_stream_fds) return;
  stream_record& s = stream_records[fd];
  FILE* expected = fp;
  if (__atomic_compare_exchange_n(&s.owner, &expected, static_cast<FILE*>(nullptr), false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    __atomic_store_n(&s.slot, 0, __ATOMIC_RELAXED);
  }
}

void add_standard_streams() {
  FILE* streams[] = {stdin, stdout, stderr};
  const char* names[] = {"<STDIN>", "<STDOUT>", "<STDERR>"};
  for (int i = 0; i < 3; ++i) {
    const std::int32_t r = stdio_record(names[i]);
    if (r == 0) continue;
    stdio_open(stdio_at(r - 1), true, -1, 0, 0);
    set_stream_record(streams[i], r);
  }
}

}  // namespace perfdm::io::lib
