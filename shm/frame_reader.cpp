#include "shm/frame_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <new>
#include <utility>

#include "shm/shm_error.hpp"

namespace perfdm::shm {

namespace {

// Opens /dev/shm/<name> read-only; the name is one path component.
int open_segment(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    throw shm_error("'" + name + "' is not a segment name (perfdm.<pid>.<handle>)");
  const std::string path = "/" + name;
  const int fd = ::shm_open(path.c_str(), O_RDONLY, 0);
  if (fd < 0) {
    const int e = errno;
    throw shm_error("cannot open the segment " + name + ": " +
                    (e == ENOENT ? std::string("no such segment") : std::string(strerror(e))));
  }
  return fd;
}

}  // namespace

frame_reader::frame_reader(const std::string& segment_name)
    : name_(segment_name), clock_(format::clock_monotonic) {
  const int fd = open_segment(name_);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw shm_error("cannot read the size of the segment " + name_);
  }
  map_size_ = static_cast<std::size_t>(st.st_size);
  auto bad = [&](const std::string& why) -> shm_error {
    return shm_error("the segment " + name_ + " is not a valid frames segment: " + why);
  };
  if (map_size_ < format::page) {
    ::close(fd);
    throw bad("it holds " + std::to_string(map_size_) + " bytes, less than a header");
  }
  map_ = ::mmap(nullptr, map_size_, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw shm_error("cannot map the segment " + name_ + ": " + strerror(errno));
  }
  try {
    // The header is copied before it is checked: the writer updates its last words.
    format::header h;
    std::memcpy(&h, map_, sizeof h);
    header_ = static_cast<const format::header*>(map_);
    if (std::memcmp(h.magic, format::magic, sizeof h.magic) != 0) throw bad("wrong magic");
    if (h.version != format::version)
      throw bad("format version " + std::to_string(h.version) + ", expected " +
                std::to_string(format::version));
    if (h.header_size < format::page || h.header_size % format::page != 0 ||
        h.header_size > map_size_)
      throw bad("header size " + std::to_string(h.header_size) + " does not fit the segment");
    if (h.descriptor_size > h.header_size - format::descriptor_offset - 1)
      throw bad("descriptor size " + std::to_string(h.descriptor_size) + " exceeds the header");
    const char* text = static_cast<const char*>(map_) + format::descriptor_offset;
    if (text[h.descriptor_size] != '\0') throw bad("the descriptor is not NUL-terminated");
    const std::string_view descriptor(text, h.descriptor_size);
    try {
      layout_ = parse_layout_descriptor(descriptor);
    } catch (const schema_error& e) {
      throw bad(e.what());
    }
    if (layout_hash(descriptor) != h.layout_hash) throw bad("the layout hash does not match");
    if (h.frame_size != layout_.size)
      throw bad("frame size " + std::to_string(h.frame_size) + ", the layout says " +
                std::to_string(layout_.size));
    if (h.lane_count == 0 || h.lane_count > format::max_lanes)
      throw bad("lane count " + std::to_string(h.lane_count));
    if (h.lane_capacity == 0 || h.lane_capacity > format::max_capacity ||
        (h.lane_capacity & (h.lane_capacity - 1)) != 0)
      throw bad("lane capacity " + std::to_string(h.lane_capacity) + " is not a power of two");
    if (h.clock != format::clock_monotonic && h.clock != format::clock_tsc &&
        h.clock != format::clock_reader)
      throw bad("unknown clock " + std::to_string(h.clock));
    frame_size_ = h.frame_size;
    lanes_ = h.lane_count;
    capacity_ = h.lane_capacity;
    stride_ = format::lane_stride(frame_size_, capacity_);
    const std::uint64_t needed = h.header_size + std::uint64_t(lanes_) * stride_;
    if (needed > map_size_)
      throw bad("its lanes need " + std::to_string(needed) + " bytes, it holds " +
                std::to_string(map_size_));
    lanes_base_ = static_cast<const std::byte*>(map_) + h.header_size;
    next_.assign(lanes_, 0);
    buffer_.resize(frame_size_);
    clock_ = frame_clock(h.clock);
    clock_kind_ = h.clock;
    if (h.clock == format::clock_reader) map_reader_clock();
  } catch (...) {
    if (clock_map_) ::munmap(clock_map_, format::page);
    clock_map_ = nullptr;
    ::munmap(map_, map_size_);
    map_ = nullptr;
    throw;
  }
}

// The frames stay mapped read-only; only the header's first page, which holds the clock
// word, is mapped writable, and only for a segment whose writer takes its time from it.
void frame_reader::map_reader_clock() {
  const int fd = ::shm_open(("/" + name_).c_str(), O_RDWR, 0);
  if (fd < 0)
    throw shm_error("the segment " + name_ +
                    " is stamped with its reader's clock, which its reader must write, but it "
                    "cannot be opened for writing: " +
                    strerror(errno));
  void* p = ::mmap(nullptr, format::page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int e = errno;
  ::close(fd);
  if (p == MAP_FAILED)
    throw shm_error("cannot map the header of the segment " + name_ +
                    " for writing: " + strerror(e));
  clock_map_ = p;
  reader_clock_ = reinterpret_cast<std::uint64_t*>(static_cast<char*>(p) +
                                                   offsetof(format::header, reader_clock_ns));
  advance_reader_clock();
}

void frame_reader::advance_reader_clock() {
  if (!reader_clock_) return;
  const auto now = static_cast<std::uint64_t>(monotonic_now_ns());
  // Never backwards: another reader of the same segment may have stored a later time.
  std::uint64_t seen = __atomic_load_n(reader_clock_, __ATOMIC_RELAXED);
  while (seen < now && !__atomic_compare_exchange_n(reader_clock_, &seen, now, true,
                                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

std::int64_t frame_reader::reader_clock_ns() const {
  if (!header_ || clock_kind_ != format::clock_reader) return 0;
  return static_cast<std::int64_t>(__atomic_load_n(&header_->reader_clock_ns, __ATOMIC_RELAXED));
}

frame_reader::~frame_reader() {
  if (clock_map_) ::munmap(clock_map_, format::page);
  if (map_) ::munmap(map_, map_size_);
}

frame_reader::frame_reader(frame_reader&& other) noexcept
    : name_(std::move(other.name_)),
      map_(std::exchange(other.map_, nullptr)),
      map_size_(std::exchange(other.map_size_, 0)),
      header_(std::exchange(other.header_, nullptr)),
      lanes_base_(std::exchange(other.lanes_base_, nullptr)),
      layout_(std::move(other.layout_)),
      frame_size_(other.frame_size_),
      lanes_(std::exchange(other.lanes_, 0)),
      capacity_(other.capacity_),
      stride_(other.stride_),
      next_(std::move(other.next_)),
      buffer_(std::move(other.buffer_)),
      counts_(other.counts_),
      gone_(other.gone_),
      clock_(other.clock_),
      clock_kind_(other.clock_kind_),
      clock_map_(std::exchange(other.clock_map_, nullptr)),
      reader_clock_(std::exchange(other.reader_clock_, nullptr)) {}

frame_reader& frame_reader::operator=(frame_reader&& other) noexcept {
  if (this != &other) {
    this->~frame_reader();
    new (this) frame_reader(std::move(other));
  }
  return *this;
}

void frame_reader::writer_gone() {
  if (gone_) return;
  gone_ = true;
  const std::uint64_t mask = capacity_ - 1;
  for (std::uint32_t l = 0; l < lanes_; ++l) {
    const std::byte* base = lane(l);
    const std::uint64_t head = load_acquire(base + format::lane_head);
    const std::byte* slot = base + format::lane_slots + (head & mask) * frame_size_;
    const std::uint64_t seq = load_acquire(slot);
    // Begun (WRITING mark) or written but not published in head: never committed.
    if (seq == (format::writing_bit | (head + 1)) || seq == head + 1) ++counts_.torn;
  }
}

frame_reader::counts frame_reader::counters() const {
  counts c = counts_;
  c.no_lane_drops = __atomic_load_n(&header_->no_lane_drops, __ATOMIC_RELAXED);
  c.transition_drops = __atomic_load_n(&header_->transition_drops, __ATOMIC_RELAXED);
  return c;
}

int frame_reader::writer_state() const {
  return static_cast<int>(__atomic_load_n(&header_->writer_state, __ATOMIC_ACQUIRE));
}

int frame_reader::writer_pid() const {
  return __atomic_load_n(&header_->writer_pid, __ATOMIC_ACQUIRE);
}

int frame_reader::target_pid() const {
  return header_->target_pid;
}

std::uint64_t frame_reader::committed() const {
  std::uint64_t sum = 0;
  for (std::uint32_t l = 0; l < lanes_; ++l) sum += load_acquire(lane(l) + format::lane_head);
  return sum;
}

}  // namespace perfdm::shm
