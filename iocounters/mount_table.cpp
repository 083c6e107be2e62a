#include "iocounters/mount_table.hpp"

#include <cstring>

namespace perfdm::io {

bool mount_type_excluded(std::string_view type) {
  static constexpr std::string_view excluded[] = {
      "tmpfs",      "proc", "sysfs", "devpts",     "binfmt_misc", "fusectl", "debugfs",
      "securityfs", "nfsd", "none",  "rpc_pipefs", "hugetlbfs",   "cgroup"};
  for (const auto e : excluded)
    if (type == e) return true;
  return false;
}

std::int64_t mount_block_size(bool statfs_ok, std::int64_t fs_magic, std::int64_t f_bsize) {
  constexpr std::int64_t lustre_magic = 0x0BD00BD0;
  if (!statfs_ok) return 4096;
  return fs_magic == lustre_magic ? 1024 * 1024 : f_bsize;
}

int find_mount(const mount_entry* table, std::uint32_t count, std::string_view name) {
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::string_view p(table[i].path);
    if (name.substr(0, p.size()) == p) return int(i);
  }
  return -1;
}

namespace detail {

namespace {

// The next space-separated field of `line`, advancing it.
std::string_view field(std::string_view& line) {
  std::size_t b = line.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(b);
  const std::size_t e = line.find_first_of(" \t");
  const std::string_view f = line.substr(0, e);
  line = e == std::string_view::npos ? std::string_view() : line.substr(e);
  return f;
}

// Copies `f` into `out`, turning the kernel's \ooo escapes back into bytes.
void unescape(std::string_view f, char* out, std::size_t size) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < f.size() && n + 1 < size; ++i) {
    if (f[i] == '\\' && i + 3 < f.size() && f[i + 1] >= '0' && f[i + 1] <= '3' && f[i + 2] >= '0' &&
        f[i + 2] <= '7' && f[i + 3] >= '0' && f[i + 3] <= '7') {
      out[n++] = char((f[i + 1] - '0') * 64 + (f[i + 2] - '0') * 8 + (f[i + 3] - '0'));
      i += 3;
    } else {
      out[n++] = f[i];
    }
  }
  out[n] = '\0';
}

}  // namespace

bool parse_mount_line(std::string_view line, char* path, std::size_t path_size, char* type,
                      std::size_t type_size) {
  const std::string_view device = field(line);
  const std::string_view p = field(line);
  const std::string_view t = field(line);
  if (device.empty() || p.empty() || t.empty()) return false;
  unescape(p, path, path_size);
  unescape(t, type, type_size);
  return true;
}

void sort_mounts(mount_entry* table, std::uint32_t count) {
  // Insertion sort, longest path first, stable (at most 64 entries, no allocation).
  for (std::uint32_t i = 1; i < count; ++i) {
    mount_entry e = table[i];
    const std::size_t len = std::strlen(e.path);
    std::uint32_t j = i;
    while (j > 0 && std::strlen(table[j - 1].path) < len) {
      table[j] = table[j - 1];
      --j;
    }
    table[j] = e;
  }
}

}  // namespace detail

}  // namespace perfdm::io
