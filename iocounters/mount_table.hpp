// The mounted file systems as Darshan records them (darshan-runtime/lib/darshan-core.c,
// darshan_get_exe_and_mounts): read from the mount table's text (/proc/self/mounts, which
// /etc/mtab links to), pseudo file systems left out, NFS mounts after the others, each
// (path, type) once, at most 64, sorted longest path first so that the first prefix match is
// a file's mount. A file's mount is the first entry whose path is a prefix of the file's name
// (a plain string prefix, as Darshan compares); its block size is the file's alignment.
#pragma once

#include <cstdint>
#include <string_view>

#include "iocounters/io_segment.hpp"

namespace perfdm::io {

// File system types Darshan leaves out of the table.
bool mount_type_excluded(std::string_view type);

// Parses `text` (lines of "device path type options dump pass", octal escapes such as \040 in
// paths) into at most `capacity` entries of `out` in Darshan's order; `stat(path, entry)`
// fills block_size and fs_magic (Darshan: statfs; 4096 when it fails, 1 MiB on Lustre).
// Returns the number of entries.
template <class Statfs>
std::uint32_t parse_mount_table(std::string_view text, mount_entry* out, std::uint32_t capacity,
                                Statfs&& stat);

// Index of the mount of `name` in a table parse_mount_table built, or -1.
int find_mount(const mount_entry* table, std::uint32_t count, std::string_view name);

// Darshan's block size for a mount: f_bsize, 1 MiB on Lustre, 4096 when statfs failed.
std::int64_t mount_block_size(bool statfs_ok, std::int64_t fs_magic, std::int64_t f_bsize);

namespace detail {
// One line's path and type, unescaped into `path`/`type` (NUL-terminated, truncated to fit).
bool parse_mount_line(std::string_view line, char* path, std::size_t path_size, char* type,
                      std::size_t type_size);
void sort_mounts(mount_entry* table, std::uint32_t count);
}  // namespace detail

template <class Statfs>
std::uint32_t parse_mount_table(std::string_view text, mount_entry* out, std::uint32_t capacity,
                                Statfs&& stat) {
  std::uint32_t n = 0;
  for (int pass = 0; pass < 2; ++pass) {  // other file systems first, then NFS
    std::string_view rest = text;
    while (!rest.empty() && n < capacity) {
      const std::size_t eol = rest.find('\n');
      const std::string_view line = rest.substr(0, eol);
      rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
      mount_entry e{};
      if (!detail::parse_mount_line(line, e.path, sizeof e.path, e.type, sizeof e.type)) continue;
      const std::string_view type(e.type);
      if (mount_type_excluded(type)) continue;
      if ((type == "nfs") != (pass == 1)) continue;
      bool seen = false;
      for (std::uint32_t i = 0; i < n && !seen; ++i)
        seen = std::string_view(out[i].path) == e.path && std::string_view(out[i].type) == type;
      if (seen) continue;
      stat(e.path, e);
      out[n++] = e;
    }
  }
  detail::sort_mounts(out, n);
  return n;
}

}  // namespace perfdm::io
