#include "darshan/darshan_log_writer.hpp"

#include <bzlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace perfdm::darshan {

// One region's compressed stream.
struct log_file_writer::compressor {
  unsigned char type;
  z_stream z{};
  bz_stream bz{};
  bool open = false;
  std::vector<unsigned char> out = std::vector<unsigned char>(256u << 10);

  explicit compressor(unsigned char t) : type(t) {}
  ~compressor() { close(); }
  void start() {
    if (type == zlib && deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK)
      throw darshan_error("cannot start zlib's compressor");
    if (type == bzip2 && BZ2_bzCompressInit(&bz, 9, 0, 30) != BZ_OK)
      throw darshan_error("cannot start bzip2's compressor");
    open = true;
  }
  void close() {
    if (!open) return;
    if (type == zlib) deflateEnd(&z);
    if (type == bzip2) BZ2_bzCompressEnd(&bz);
    open = false;
  }
};

namespace {

int minor_of(const std::string& v) {
  if (v == "3.00") return 0;
  if (v == "3.10") return 10;
  if (v == "3.20") return 20;
  if (v == "3.21") return 21;
  if (v == "3.41") return 41;
  return -1;
}

// The header slot of current module id `id` in format 3.`minor`, or -1 when it has none.
int slot_of(int id, int minor) {
  if (minor < 20 && id == H5D_MOD) return -1;
  if (minor < 41 && id == PNETCDF_VAR_MOD) return -1;
  int slot = id;
  if (minor < 41 && id > PNETCDF_VAR_MOD) --slot;
  if (minor < 20 && id > H5D_MOD) --slot;
  const int slots = minor >= 41 ? static_cast<int>(max_modules) : static_cast<int>(max_modules_3_00);
  return slot < slots ? slot : -1;
}

void write_all(int fd, std::uint64_t offset, const void* data, std::size_t size,
               const std::string& path) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pwrite(fd, p + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw darshan_error("cannot write " + path + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

log_file_writer::log_file_writer(const std::string& path, writer_options options)
    : path_(path), options_(std::move(options)) {
  minor_ = minor_of(options_.version);
  if (minor_ < 0) throw darshan_error("cannot write format version " + options_.version);
  if (options_.compression != zlib && options_.compression != bzip2 &&
      options_.compression != none)
    throw darshan_error("cannot write compression type " + std::to_string(options_.compression));
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw darshan_error("cannot create " + path + ": " + std::strerror(errno));
  z_ = std::make_unique<compressor>(options_.compression);
  at_ = minor_ >= 41 ? header_size : header_size_3_00;
}

log_file_writer::~log_file_writer() {
  if (fd_ >= 0) ::close(fd_);
}

// Compresses `size` bytes into the current region, written at the end of the file as they
// come out; `finish` ends the region's stream.
void log_file_writer::put(const void* data, std::size_t size, bool finish) {
  if (options_.compression == none) {
    write_all(fd_, at_, data, size, path_);
    at_ += size;
    return;
  }
  compressor& c = *z_;
  if (!c.open) {
    if (size == 0 && finish) return;  // an empty region has no stream
    c.start();
  }
  const bool zl = options_.compression == zlib;
  if (zl) {
    c.z.next_in = static_cast<Bytef*>(const_cast<void*>(data));
    c.z.avail_in = static_cast<uInt>(size);
  } else {
    c.bz.next_in = static_cast<char*>(const_cast<void*>(data));
    c.bz.avail_in = static_cast<unsigned>(size);
  }
  for (;;) {
    std::size_t out = 0;
    bool done;
    if (zl) {
      c.z.next_out = c.out.data();
      c.z.avail_out = static_cast<uInt>(c.out.size());
      int rc = deflate(&c.z, finish ? Z_FINISH : Z_NO_FLUSH);
      out = c.out.size() - c.z.avail_out;
      done = finish ? rc == Z_STREAM_END : c.z.avail_in == 0;
    } else {
      c.bz.next_out = reinterpret_cast<char*>(c.out.data());
      c.bz.avail_out = static_cast<unsigned>(c.out.size());
      int rc = BZ2_bzCompress(&c.bz, finish ? BZ_FINISH : BZ_RUN);
      out = c.out.size() - c.bz.avail_out;
      done = finish ? rc == BZ_STREAM_END : c.bz.avail_in == 0;
    }
    write_all(fd_, at_, c.out.data(), out, path_);
    at_ += out;
    if (done) break;
  }
  if (finish) c.close();
}

void log_file_writer::start_region(region r, int module) {
  end_region();
  current_ = r;
  module_ = module;
  region_start_ = at_;
}

void log_file_writer::end_region() {
  if (current_ == region::none) return;
  put(nullptr, 0, true);
  std::uint64_t len = at_ - region_start_;
  if (current_ == region::names) {
    name_off_ = region_start_;
    name_len_ = len;
  } else if (current_ == region::module) {
    mod_off_[module_] = len ? region_start_ : 0;
    mod_len_[module_] = len;
  }
  current_ = region::none;
}

void log_file_writer::write_job(const job_info& job) {
  start_region(region::job, -1);
  record_bytes b = record();
  b.i64(job.uid).i64(job.start_time_sec);
  if (minor_ >= 41) b.i64(job.start_time_nsec);
  b.i64(job.end_time_sec);
  if (minor_ >= 41) b.i64(job.end_time_nsec);
  b.i64(job.nprocs).i64(job.jobid);
  std::string meta;
  for (const auto& [k, v] : job.metadata) meta += k + "=" + v + "\n";
  b.chars(meta, job_metadata_size);
  // The command line is the first line of the exe and mount area, each mount a line after it:
  // a newline inside an argument (`python3 -c` of a script) would start bogus mount entries.
  std::string tail = job.exe;
  std::replace(tail.begin(), tail.end(), '\n', ' ');
  for (const auto& m : job.mounts) tail += "\n" + m.type + "\t" + m.point;
  tail.push_back('\0');
  b.raw(tail.data(), tail.size());
  put(b.bytes().data(), b.bytes().size());
}

void log_file_writer::add_name(std::uint64_t id, std::string_view name) {
  if (current_ != region::names) start_region(region::names, -1);
  record_bytes b = record();
  b.u64(id);
  if (minor_ == 0) {
    std::uint32_t n = static_cast<std::uint32_t>(name.size());
    if (options_.other_byte_order) n = __builtin_bswap32(n);
    b.raw(&n, 4).raw(name.data(), name.size());
  } else {
    b.raw(name.data(), name.size());
    b.raw("", 1);
  }
  put(b.bytes().data(), b.bytes().size());
}

void log_file_writer::begin_module(int module, std::uint32_t version) {
  if (module < 0 || module >= static_cast<int>(max_modules) || slot_of(module, minor_) < 0)
    throw darshan_error("format " + options_.version + " has no place for module id " +
                        std::to_string(module));
  start_region(region::module, module);
  mod_ver_[module] = version;
}

void log_file_writer::add_bytes(const void* data, std::size_t size) {
  if (current_ != region::module) throw darshan_error("a record outside a module region");
  put(data, size);
}

std::uint64_t log_file_writer::finish() {
  if (finished_) return at_;
  end_region();
  const bool wide = minor_ >= 41;
  const std::size_t slots = wide ? max_modules : max_modules_3_00;
  std::vector<unsigned char> h(wide ? header_size : header_size_3_00, 0);
  const bool swap = options_.other_byte_order;
  auto put64 = [&](std::size_t at, std::uint64_t v) {
    if (swap) v = __builtin_bswap64(v);
    std::memcpy(h.data() + at, &v, 8);
  };
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    if (swap) v = __builtin_bswap32(v);
    std::memcpy(h.data() + at, &v, 4);
  };
  std::memcpy(h.data(), options_.version.data(), std::min<std::size_t>(options_.version.size(), 8));
  put64(header_magic_offset, static_cast<std::uint64_t>(magic_nr));
  h[header_comp_type_offset] = options_.compression;
  std::uint64_t partial = 0;
  for (int id = 0; id < static_cast<int>(max_modules); ++id)
    if ((partial_ >> id) & 1) {
      int slot = slot_of(id, minor_);
      if (slot >= 0) partial |= std::uint64_t{1} << slot;
    }
  const std::size_t name_at = wide ? header_name_map_offset : header_name_map_offset_3_00;
  const std::size_t map_at = wide ? header_mod_map_offset : header_mod_map_offset_3_00;
  const std::size_t ver_at = wide ? header_mod_ver_offset : header_mod_ver_offset_3_00;
  if (wide)
    put64(header_partial_flag_offset, partial);
  else
    put32(header_partial_flag_offset_3_00, static_cast<std::uint32_t>(partial));
  put64(name_at, name_off_);
  put64(name_at + 8, name_len_);
  for (int id = 0; id < static_cast<int>(max_modules); ++id) {
    int slot = slot_of(id, minor_);
    if (slot < 0 || static_cast<std::size_t>(slot) >= slots) continue;
    put64(map_at + 16 * static_cast<std::size_t>(slot), mod_off_[id]);
    put64(map_at + 16 * static_cast<std::size_t>(slot) + 8, mod_len_[id]);
    put32(ver_at + 4 * static_cast<std::size_t>(slot), mod_ver_[id]);
  }
  write_all(fd_, 0, h.data(), h.size(), path_);
  finished_ = true;
  return at_;
}

}  // namespace perfdm::darshan
