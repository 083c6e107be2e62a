#include "native/perf_map.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <utility>
#include <vector>

namespace perfdm::native {

namespace {

bool space(char c) {
  return c == ' ' || c == '\t';
}

// A hex number with an optional 0x at the start of `s`, which it consumes with the blanks
// after it; nullopt when there is none, or it overflows.
std::optional<std::uint64_t> hex_field(std::string_view& s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  if (!s.empty() && !space(s.front())) return std::nullopt;  // "12g4": not a number
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  return v;
}

}  // namespace

std::optional<perf_map_entry> parse_perf_map_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  while (!line.empty() && space(line.front())) line.remove_prefix(1);
  auto start = hex_field(line);
  if (!start) return std::nullopt;
  auto size = hex_field(line);
  if (!size || *size == 0 || *start + *size < *start) return std::nullopt;
  while (!line.empty() && space(line.back())) line.remove_suffix(1);
  if (line.empty()) return std::nullopt;
  return perf_map_entry{*start, *size, std::string(line)};
}

perf_map::perf_map(std::string path, double process_start)
    : path_(std::move(path)), process_start_(process_start) {}

void perf_map::reset() {
  ranges_.clear();
  read_to_ = 0;
  malformed_ = 0;
}

// Inserts [start, start+size) over what it overlaps: the older entries keep the parts it
// does not cover.
void perf_map::add(const perf_map_entry& e) {
  const std::uint64_t start = e.start, end = e.start + e.size;
  auto i = ranges_.lower_bound(start);
  if (i != ranges_.begin()) {
    auto before = std::prev(i);
    if (before->second.end > start) {
      // It starts before the new entry and reaches into it: cut it, keep its tail past the end.
      if (before->second.end > end) ranges_.emplace(end, range{before->second.end, before->second.name});
      before->second.end = start;
    }
  }
  while (i != ranges_.end() && i->first < end) {
    if (i->second.end > end) ranges_.emplace(end, range{i->second.end, i->second.name});
    i = ranges_.erase(i);
  }
  ranges_.emplace(start, range{end, e.name});
}

void perf_map::look() {
  checked_ = true;
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    found_ = false;
    stale_ = false;
    reset();
    return;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    found_ = false;
    reset();
    return;
  }
  double modified = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9;
  stale_ = process_start_ > 0 && modified < process_start_ - 1.0;
  found_ = !stale_;
  auto size = static_cast<std::uint64_t>(st.st_size);
  if (stale_ || static_cast<std::uint64_t>(st.st_ino) != inode_ ||
      static_cast<std::uint64_t>(st.st_dev) != device_ || size < read_to_) {
    reset();
    inode_ = static_cast<std::uint64_t>(st.st_ino);
    device_ = static_cast<std::uint64_t>(st.st_dev);
  }
  if (stale_ || size == read_to_) {
    ::close(fd);
    return;
  }
  std::vector<char> buffer(64 * 1024);
  std::string pending;  // a line the previous block ended in the middle of
  std::uint64_t at = read_to_;
  for (;;) {
    ssize_t n = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(at));
    if (n <= 0) break;
    at += static_cast<std::uint64_t>(n);
    std::string_view block(buffer.data(), static_cast<std::size_t>(n));
    for (auto nl = block.find('\n'); nl != std::string_view::npos; nl = block.find('\n')) {
      pending.append(block.substr(0, nl));
      if (auto e = parse_perf_map_line(pending))
        add(*e);
      else if (!pending.empty())
        ++malformed_;
      read_to_ += pending.size() + 1;
      pending.clear();
      block.remove_prefix(nl + 1);
    }
    pending.append(block);  // half-written until its newline comes: read again next time
  }
  ::close(fd);
}

std::optional<std::string> perf_map::name(std::uint64_t pc) {
  auto find = [&]() -> std::optional<std::string> {
    auto i = ranges_.upper_bound(pc);
    if (i == ranges_.begin()) return std::nullopt;
    --i;
    if (pc < i->second.end) return i->second.name;
    return std::nullopt;
  };
  if (!checked_) look();
  if (!found_) return std::nullopt;
  return find();
}

}  // namespace perfdm::native
