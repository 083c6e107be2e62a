#include "darshan/darshan_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>

#include "darshan/darshan_counters.hpp"
#include "darshan/darshan_region_stream.hpp"

namespace perfdm::darshan {

namespace {

std::uint64_t bswap(std::uint64_t v) { return __builtin_bswap64(v); }

// Field readers over a byte buffer in the log's byte order.
struct fields {
  const unsigned char* p;
  bool swap;
  std::uint64_t u64(std::size_t at) const {
    std::uint64_t v;
    std::memcpy(&v, p + at, 8);
    return swap ? bswap(v) : v;
  }
  std::int64_t i64(std::size_t at) const { return static_cast<std::int64_t>(u64(at)); }
  std::uint32_t u32(std::size_t at) const {
    std::uint32_t v;
    std::memcpy(&v, p + at, 4);
    return swap ? __builtin_bswap32(v) : v;
  }
  double f64(std::size_t at) const {
    std::uint64_t u = u64(at);
    double d;
    std::memcpy(&d, &u, 8);
    return d;
  }
};

bool read_at(int fd, std::uint64_t offset, void* out, std::size_t size) {
  auto* p = static_cast<unsigned char*>(out);
  std::size_t got = 0;
  while (got < size) {
    ssize_t n = ::pread(fd, p + got, size - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

// The minor number of a format version "3.xx" (-1 when it is not one).
int minor_of(const std::string& v) {
  if (v.size() != 4 || v[0] != '3' || v[1] != '.' || v[2] < '0' || v[2] > '9' || v[3] < '0' ||
      v[3] > '9')
    return -1;
  return (v[2] - '0') * 10 + (v[3] - '0');
}

// The current module id of the header's slot `slot` in a log of format 3.`minor`: H5D
// arrived in 3.20 and PNETCDF_VAR in 3.41, each shifting the ids after it by one.
int current_id(int slot, int minor) {
  int id = slot;
  if (minor < 20 && id >= H5D_MOD) ++id;
  if (minor < 41 && id >= PNETCDF_VAR_MOD) ++id;
  return id;
}

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}

}  // namespace

std::string_view compression_name(unsigned char c) {
  switch (c) {
    case zlib: return "ZLIB";
    case bzip2: return "BZIP2";
    case none: return "NONE";
    default: return "UNKNOWN";
  }
}

std::int64_t record::counter(std::size_t i) const {
  if (!layout || i >= layout->current_ints.size()) return -1;
  const auto& from = layout->current_ints[i];
  if (from.empty()) return missing_int(module, i);
  // Damaged values may overflow: the sum wraps, as darshan-util's does on its machines.
  std::uint64_t v = 0;
  for (int k : from) v += static_cast<std::uint64_t>(ints[k]);
  return static_cast<std::int64_t>(v);
}

double record::fcounter(std::size_t i) const {
  if (!layout || i >= layout->current_floats.size()) return -1;
  const auto& from = layout->current_floats[i];
  if (from.empty()) return missing_float(module, i);
  double v = 0;
  for (int k : from) v += floats[k];
  return v;
}

bool log_file::is_darshan_log(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char b[16];
  bool ok = read_at(fd, 0, b, sizeof b);
  ::close(fd);
  if (!ok) return false;
  std::uint64_t m;
  std::memcpy(&m, b + header_magic_offset, 8);
  return m == static_cast<std::uint64_t>(magic_nr) ||
         bswap(m) == static_cast<std::uint64_t>(magic_nr);
}

log_file::log_file(const std::string& path, log_options options)
    : path_(path), options_(options) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw darshan_error(std::string("cannot open: ") + std::strerror(errno));
  try {
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
      throw darshan_error(std::string("cannot stat: ") + std::strerror(errno));
    size_ = static_cast<std::uint64_t>(st.st_size);
    read_header();
    read_job();
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

log_file::~log_file() {
  if (fd_ >= 0) ::close(fd_);
}

// A problem met twice (a name region read again, say) is noted once.
void log_file::note(std::string text) const {
  for (const auto& n : notes_)
    if (n == text) return;
  notes_.push_back(std::move(text));
}

const module_region* log_file::find(int module) const {
  for (const auto& m : modules_)
    if (m.id == module) return &m;
  return nullptr;
}

void log_file::read_header() {
  unsigned char head[darshan::header_size];
  if (size_ < 16 || !read_at(fd_, 0, head, 16))
    throw darshan_error("not a Darshan log: " + std::to_string(size_) +
                        " bytes, shorter than a header");
  std::uint64_t magic;
  std::memcpy(&magic, head + header_magic_offset, 8);
  if (magic == static_cast<std::uint64_t>(magic_nr)) {
    swapped_ = false;
  } else if (bswap(magic) == static_cast<std::uint64_t>(magic_nr)) {
    swapped_ = true;
  } else {
    throw darshan_error("not a Darshan log: no Darshan magic number at offset 8");
  }
  version_.assign(reinterpret_cast<const char*>(head), strnlen(reinterpret_cast<const char*>(head), 8));
  minor_ = minor_of(version_);
  if (minor_ != 0 && minor_ != 10 && minor_ != 20 && minor_ != 21 && minor_ != 41)
    throw darshan_error("unsupported Darshan log format version \"" + printable(version_) +
                        "\" (this reader reads 3.00, 3.10, 3.20, 3.21 and 3.41)");

  const bool wide = minor_ >= 41;
  header_size_ = wide ? darshan::header_size : header_size_3_00;
  if (size_ < header_size_ || !read_at(fd_, 0, head, header_size_))
    throw darshan_error("the header is cut short: the file has " + std::to_string(size_) +
                        " bytes, the header of format " + version_ + " needs " +
                        std::to_string(header_size_));
  fields f{head, swapped_};
  compression_ = head[header_comp_type_offset];
  if (compression_ != zlib && compression_ != bzip2 && compression_ != none)
    throw darshan_error("unsupported compression type " + std::to_string(compression_) +
                        " in the header (Darshan's are 0 zlib, 1 bzip2, 2 none)");
  std::uint64_t partial = wide ? f.u64(header_partial_flag_offset)
                               : f.u32(header_partial_flag_offset_3_00);
  std::size_t name_at = wide ? header_name_map_offset : header_name_map_offset_3_00;
  std::size_t map_at = wide ? header_mod_map_offset : header_mod_map_offset_3_00;
  std::size_t ver_at = wide ? header_mod_ver_offset : header_mod_ver_offset_3_00;
  std::size_t slots = wide ? max_modules : max_modules_3_00;
  name_offset_ = f.u64(name_at);
  name_length_ = f.u64(name_at + 8);

  partial_flags_ = 0;
  std::uint64_t first_module_offset = 0;
  for (std::size_t slot = 0; slot < slots; ++slot) {
    int id = current_id(static_cast<int>(slot), minor_);
    std::uint64_t off = f.u64(map_at + 16 * slot), len = f.u64(map_at + 16 * slot + 8);
    std::uint32_t ver = f.u32(ver_at + 4 * slot);
    bool is_partial = (partial >> slot) & 1;
    if (id >= static_cast<int>(max_modules)) continue;
    if (is_partial) partial_flags_ |= std::uint64_t{1} << id;
    if (off != 0 && first_module_offset == 0) first_module_offset = off;
    if (len == 0 && !is_partial) continue;
    module_region m;
    m.id = id;
    m.name = id < known_module_count ? std::string(module_name(id))
                                     : "<UNKNOWN> module (id " + std::to_string(id) + ")";
    m.version = ver;
    m.offset = off;
    m.length = len;
    m.partial = is_partial;
    m.layout = id < known_module_count ? find_layout(id, ver) : nullptr;
    modules_.push_back(m);
  }
  std::sort(modules_.begin(), modules_.end(),
            [](const module_region& a, const module_region& b) { return a.id < b.id; });

  // A region ends where the next one starts: a length claiming more (a damaged header) is
  // cut there, with a note, so that its reader does not run on into the next region.
  std::vector<std::uint64_t> starts = {name_offset_};
  for (const auto& m : modules_) starts.push_back(m.offset);
  auto clamp = [&](std::uint64_t off, std::uint64_t& len, const std::string& what) {
    if (off == 0 || len == 0) return;
    std::uint64_t next = UINT64_MAX;
    for (std::uint64_t s : starts)
      if (s > off && s < next) next = s;
    if (next != UINT64_MAX && len > next - off) {
      note(what + " claims " + std::to_string(len) + " bytes at offset " + std::to_string(off) +
           ", but the next region starts at offset " + std::to_string(next) +
           ": read as its " + std::to_string(next - off) + " bytes");
      len = next - off;
    }
  };
  clamp(name_offset_, name_length_, "the name region");
  for (auto& m : modules_) clamp(m.offset, m.length, "the " + m.name + " region");

  // The job region runs from the header to the name region (or the first module region,
  // or the end of the file).
  job_offset_ = header_size_;
  std::uint64_t job_end = name_offset_ != 0 ? name_offset_
                          : first_module_offset != 0 ? first_module_offset
                                                     : size_;
  if (job_end < job_offset_)
    throw darshan_error("corrupt header: the job region would end at offset " +
                        std::to_string(job_end) + ", inside the " +
                        std::to_string(header_size_) + "-byte header");
  job_length_ = job_end - job_offset_;
}

void log_file::read_job() {
  region_stream s(fd_, size_, job_offset_, job_length_, compression_, "the job region",
                  options_.chunk_bytes);
  unsigned char buf[job_record_region_size + 1] = {};
  std::size_t got = s.read(buf, job_record_region_size);
  const bool wide = minor_ >= 41;
  std::size_t fixed = wide ? job_size : job_size_3_00;
  if (got <= fixed)
    throw darshan_error("the job record cannot be read: " +
                        (s.problem().empty() ? "the job region holds " + std::to_string(got) +
                                                   " bytes, the record needs more than " +
                                                   std::to_string(fixed)
                                             : s.problem()));
  if (!s.problem().empty()) note(s.problem());
  fields f{buf, swapped_};
  std::size_t at = 0;
  auto next = [&] {
    std::int64_t v = f.i64(at);
    at += 8;
    return v;
  };
  job_.uid = next();
  job_.start_time_sec = next();
  if (wide) job_.start_time_nsec = next();
  job_.end_time_sec = next();
  if (wide) job_.end_time_nsec = next();
  job_.nprocs = next();
  job_.jobid = next();
  // Metadata: "key=value" lines, each split at its first '='.
  const char* meta = reinterpret_cast<const char*>(buf + at);
  std::string_view md(meta, strnlen(meta, job_metadata_size));
  for (std::size_t pos = 0; pos < md.size();) {
    std::size_t nl = md.find('\n', pos);
    if (nl == std::string_view::npos) nl = md.size();
    std::string_view line = md.substr(pos, nl - pos);
    pos = nl + 1;
    std::size_t eq = line.find('=');
    if (line.empty() || eq == std::string_view::npos) continue;
    job_.metadata.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  at += job_metadata_size;
  // The command line, then "\n<type>\t<mount point>" per mount, NUL-terminated.
  const char* tail = reinterpret_cast<const char*>(buf + at);
  std::string_view rest(tail, strnlen(tail, job_record_region_size - at));
  std::size_t first_nl = rest.find('\n');
  // Like darshan-util: without a newline there is no command line either.
  if (first_nl != std::string_view::npos) job_.exe = std::string(rest.substr(0, first_nl));
  for (std::size_t pos = first_nl; pos != std::string_view::npos && pos < rest.size();) {
    std::size_t end = rest.find('\n', pos + 1);
    std::string_view line =
        rest.substr(pos + 1, (end == std::string_view::npos ? rest.size() : end) - pos - 1);
    pos = end;
    auto token = [&line]() {
      std::size_t b = 0;
      while (b < line.size() && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
      std::size_t e = b;
      while (e < line.size() && !std::isspace(static_cast<unsigned char>(line[e]))) ++e;
      std::string t(line.substr(b, e - b));
      line.remove_prefix(e);
      return t;
    };
    mount m;
    m.type = token();
    m.point = token();
    if (m.type.empty() || m.point.empty()) {
      note("the mount table has a line that is not \"<type>\\t<mount point>\": \"" +
           printable(line) + "\"; the mounts after it are not read");
      break;
    }
    job_.mounts.push_back(std::move(m));
  }
  std::stable_sort(job_.mounts.begin(), job_.mounts.end(), [](const mount& a, const mount& b) {
    return a.point.size() > b.point.size();
  });
  if (wide)
    job_.run_time = (static_cast<double>(job_.end_time_sec) + job_.end_time_nsec / 1e9) -
                    (static_cast<double>(job_.start_time_sec) + job_.start_time_nsec / 1e9);
  else
    job_.run_time = static_cast<double>(job_.end_time_sec) - static_cast<double>(job_.start_time_sec) + 1;
}

void log_file::for_each_name(
    const std::function<void(std::uint64_t, std::string_view)>& fn) const {
  if (name_length_ == 0) return;
  region_stream s(fd_, size_, name_offset_, name_length_, compression_, "the name region",
                  options_.chunk_bytes);
  // Names are at most a few KiB; a run of this many bytes without one is corruption.
  constexpr std::size_t max_name = 1u << 20;
  std::vector<char> buf(1u << 18);
  std::size_t len = 0;
  const bool v300 = minor_ == 0;
  bool stopped = false;
  for (;;) {
    if (buf.size() - len < 65536) {
      if (buf.size() >= 2 * max_name + 8) {
        note("the name region holds a name longer than " + std::to_string(max_name) +
             " bytes: it is corrupt, the names after it are not read");
        stopped = true;
        break;
      }
      buf.resize(buf.size() * 2);
    }
    std::size_t n = s.read(buf.data() + len, buf.size() - len);
    len += n;
    std::size_t pos = 0;
    for (;;) {
      std::size_t left = len - pos;
      if (left < 8 + (v300 ? 4 : 1)) break;
      fields f{reinterpret_cast<const unsigned char*>(buf.data() + pos), swapped_};
      std::uint64_t id = f.u64(0);
      if (v300) {
        std::uint32_t nlen = f.u32(8);
        if (nlen > max_name) {
          note("the name region gives a name of " + std::to_string(nlen) +
               " bytes: it is corrupt, the names after it are not read");
          stopped = true;
          break;
        }
        if (left < 12 + std::size_t{nlen}) break;
        fn(id, std::string_view(buf.data() + pos + 12, nlen));
        pos += 12 + nlen;
      } else {
        const char* name = buf.data() + pos + 8;
        const void* nul = std::memchr(name, 0, left - 8);
        if (!nul) break;
        std::size_t nlen = static_cast<const char*>(nul) - name;
        fn(id, std::string_view(name, nlen));
        pos += 8 + nlen + 1;
      }
    }
    if (stopped) break;
    std::memmove(buf.data(), buf.data() + pos, len - pos);
    len -= pos;
    if (n == 0) break;
  }
  if (!stopped && len > 0)
    note("the name region ends inside a name record (" + std::to_string(len) +
         " bytes left over)");
  if (!s.problem().empty()) note(s.problem() + "; the names after it are not read");
}


void log_file::for_each_record(const module_region& region,
                               const std::function<void(const record&)>& fn) const {
  record_reader reader(*this, region);
  while (const record* r = reader.next()) fn(*r);
}

record_reader::record_reader(const log_file& log, const module_region& region)
    : log_(log), region_(region), what_("the " + region.name + " region") {
  if (!region.layout) {
    if (region.length > 0)
      log_.note(region.id < known_module_count
                    ? what_ + " has record version " + std::to_string(region.version) +
                          ", which this reader does not know: not read"
                    : "module id " + std::to_string(region.id) +
                          " is unknown: its region is not read");
    done_ = true;
    return;
  }
  if (region.length == 0) {
    done_ = true;
    return;
  }
  stream_ = std::make_unique<region_stream>(log.fd_, log.size_, region.offset, region.length,
                                            log.compression_, what_, log.options_.chunk_bytes);
  rec_.layout = region.layout;
  rec_.module = region.id;
}

record_reader::~record_reader() = default;

// Reads exactly `size` bytes of a record; false (with a note when the record was cut) when
// the region's data ends first. `started`: part of the record was read already.
bool record_reader::read_bytes(void* out, std::size_t size, bool started) {
  std::size_t got = stream_->read(out, size);
  if (got == size) return true;
  if (got > 0 || started)
    log_.note(what_ + " ends inside a record (" + std::to_string(got) + " of " +
              std::to_string(size) + " bytes): that record is not read");
  return false;
}

// Reads `count` int64 values into `into` (replacing its contents), a chunk at a time, so that
// a damaged count costs memory only for the values the data really holds.
bool record_reader::read_values(std::vector<std::int64_t>& into, std::uint64_t count) {
  into.clear();
  const bool swap = log_.swapped_;
  std::int64_t chunk[8192];
  while (count > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count, 8192));
    if (!read_bytes(chunk, 8 * n, true)) return false;
    for (std::size_t i = 0; i < n; ++i) {
      fields f{reinterpret_cast<const unsigned char*>(chunk + i), swap};
      into.push_back(f.i64(0));
    }
    count -= n;
  }
  return true;
}

// Reads the current DXT record's segments from the stream's position, in batches.
void record_reader::stream_segments(
    const std::function<void(const dxt_segment*, std::size_t)>& out,
    std::vector<dxt_segment>* keep) {
  const record_layout& l = *region_.layout;
  const std::size_t seg = l.dxt_segment_size;
  const bool swap = log_.swapped_;
  std::vector<unsigned char> bytes(4096 * seg);
  std::vector<dxt_segment> batch;
  std::uint64_t left = dxt_total_;
  while (left > 0) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, 4096));
    std::size_t got = stream_->read(bytes.data(), n * seg);
    std::size_t whole = got / seg;
    batch.resize(whole);
    for (std::size_t i = 0; i < whole; ++i) {
      fields g{bytes.data() + i * seg, swap};
      dxt_segment& d = batch[i];
      d.offset = l.dxt_offsets_unknown ? -1 : g.i64(0);
      d.length = g.i64(8);
      d.start_time = g.f64(16);
      d.end_time = g.f64(24);
      d.thread = seg >= 40 ? g.u64(32) : 0;
    }
    if (keep) keep->insert(keep->end(), batch.begin(), batch.end());
    if (out && whole > 0) out(batch.data(), whole);
    left -= whole;
    if (got < n * seg) {
      dxt_cut_ = true;
      break;
    }
  }
}

const record* record_reader::next() {
  if (done_) return nullptr;
  if (dxt_pending_) {
    // Leave the previous DXT record: past its segments, wherever the passes stopped.
    dxt_pending_ = false;
    if (!dxt_cut_) {
      stream_->seek(dxt_end_);
      if (stream_->position() < dxt_end_) dxt_cut_ = true;
    }
    if (dxt_cut_) {
      log_.note(what_ + ": record " + std::to_string(rec_.id) + " of rank " +
                std::to_string(rec_.rank) + " is cut short: it lists " +
                std::to_string(dxt_total_) + " segments, the data ends before all of them");
      done_ = true;
    }
  }
  const record* r = done_ ? nullptr : read_next();
  if (!r) {
    done_ = true;
    if (stream_ && !stream_->problem().empty())
      log_.note(stream_->problem() + " (" + std::to_string(count_) +
                " records read before it)");
    stream_.reset();
    return nullptr;
  }
  ++count_;
  return r;
}

const record* record_reader::read_next() {
  const record_layout& l = *region_.layout;
  const bool swap = log_.swapped_;
  record& r = rec_;
  r.components.clear();
  r.for_each_segment = nullptr;
  if (raw_.size() < 4096) raw_.resize(4096);

  if (l.kind == record_kind::counters) {
    std::size_t size = l.record_size();
    if (raw_.size() < size) raw_.resize(size);
    if (!read_bytes(raw_.data(), size, false)) return nullptr;
    fields f{raw_.data(), swap};
    r.id = f.u64(0);
    r.rank = f.i64(8);
    std::size_t at = base_record_size + l.pad_after_base;
    if (l.file_rec_id) {
      r.file_rec_id = f.u64(at);
      at += 8;
    }
    ints_.resize(l.ints.size());
    floats_.resize(l.floats.size());
    for (std::size_t i = 0; i < ints_.size(); ++i, at += 8) ints_[i] = f.i64(at);
    for (std::size_t i = 0; i < floats_.size(); ++i, at += 8) floats_[i] = f.f64(at);
    r.ints = ints_.data();
    r.floats = floats_.data();
    return &r;
  }

  if (l.kind == record_kind::heatmap) {
    // id, rank, bin width, nbins, then two pointers the runtime wrote with the record.
    if (!read_bytes(raw_.data(), 48, false)) return nullptr;
    fields f{raw_.data(), swap};
    r.id = f.u64(0);
    r.rank = f.i64(8);
    r.bin_width_seconds = f.f64(16);
    std::int64_t nbins = f.i64(24);
    constexpr std::int64_t max_bins = 1 << 22;
    if (nbins < 0 || nbins > max_bins) {
      log_.note(what_ + ": a record claims " + std::to_string(nbins) +
                " bins: it is corrupt, the records after it are not read");
      return nullptr;
    }
    if (!read_values(extra_, static_cast<std::uint64_t>(2 * nbins))) return nullptr;
    std::int64_t* write_bins = extra_.data();
    std::int64_t* read_bins = extra_.data() + nbins;
    // darshan-util evens out records one bin longer or shorter than the log's first (a
    // clock-skew bug of runtimes 3.4.0-3.4.3 with shared reductions disabled): the extra
    // bin is dropped, a missing one is added empty.
    if (first_nbins_ == 0) first_nbins_ = nbins;
    if (first_width_ == 0) first_width_ = r.bin_width_seconds;
    if (r.bin_width_seconds == first_width_ && nbins == first_nbins_ + 1) {
      --nbins;
    } else if (r.bin_width_seconds == first_width_ && nbins + 1 == first_nbins_) {
      std::vector<std::int64_t> grown(static_cast<std::size_t>(2 * (nbins + 1)), 0);
      std::copy(write_bins, write_bins + nbins, grown.begin());
      std::copy(read_bins, read_bins + nbins, grown.begin() + nbins + 1);
      extra_.assign(grown.begin(), grown.end());
      write_bins = extra_.data();
      read_bins = extra_.data() + nbins + 1;
      ++nbins;
    }
    r.nbins = nbins;
    r.write_bins = write_bins;
    r.read_bins = read_bins;
    return &r;
  }

  if (l.kind == record_kind::lustre) {
    if (!read_bytes(raw_.data(), 32, false)) return nullptr;
    fields f{raw_.data(), swap};
    r.id = f.u64(0);
    r.rank = f.i64(8);
    std::int64_t comps = f.i64(16), stripes = f.i64(24);
    if (comps < 0 || stripes < 0 || comps > 65536 || stripes > (1 << 24)) {
      log_.note(what_ + ": a record claims " + std::to_string(comps) + " components and " +
                std::to_string(stripes) +
                " stripes: it is corrupt, the records after it are not read");
      return nullptr;
    }
    const std::size_t comp_bytes = 7 * 8 + lustre_pool_name_size;
    // The runtime marks unused components with a stripe size of -1: they end the list.
    std::int64_t used_stripes = 0;
    bool unused = false;
    for (std::int64_t i = 0; i < comps; ++i) {
      if (!read_bytes(raw_.data(), comp_bytes, true)) return nullptr;
      fields c{raw_.data(), swap};
      lustre_component lc;
      for (int k = 0; k < 7; ++k) lc.counters[k] = c.i64(8 * static_cast<std::size_t>(k));
      if (lc.counters[0] == -1) unused = true;
      if (unused) continue;
      const char* pool = reinterpret_cast<const char*>(raw_.data() + 56);
      lc.pool_name.assign(pool, strnlen(pool, lustre_pool_name_size));
      used_stripes += std::clamp<std::int64_t>(lc.counters[1], 0, 1 << 24);
      r.components.push_back(std::move(lc));
    }
    if (!read_values(extra_, static_cast<std::uint64_t>(stripes))) return nullptr;
    // The OST ids of the components kept (those of unused components are dropped).
    if (used_stripes > stripes)
      log_.note(what_ + ": record " + std::to_string(r.id) + " lists " +
                std::to_string(stripes) + " OSTs but its components stripe over " +
                std::to_string(used_stripes) + ": the components' OSTs past the list are missing");
    extra_.resize(static_cast<std::size_t>(std::min(used_stripes, stripes)));
    r.ost_ids = extra_.data();
    r.ost_count = static_cast<std::int64_t>(extra_.size());
    return &r;
  }

  if (l.kind == record_kind::lustre_v1) {
    if (!read_bytes(raw_.data(), 56, false)) return nullptr;
    fields f{raw_.data(), swap};
    r.id = f.u64(0);
    r.rank = f.i64(8);
    r.v1_osts = f.i64(16);
    r.v1_mdts = f.i64(24);
    r.v1_stripe_offset = f.i64(32);
    std::int64_t stripe_size = f.i64(40), width = f.i64(48);
    if (width < 0 || width > (1 << 24)) {
      log_.note(what_ + ": a record claims a stripe width of " + std::to_string(width) +
                ": it is corrupt, the records after it are not read");
      return nullptr;
    }
    // As one component (darshan-util's reading of version 1).
    lustre_component lc;
    lc.counters[0] = stripe_size;
    lc.counters[1] = width;
    lc.counters[2] = -1;
    lc.counters[3] = -1;
    lc.counters[4] = 0;
    lc.counters[5] = -1;
    lc.counters[6] = -1;
    r.components.push_back(lc);
    if (!read_values(extra_, static_cast<std::uint64_t>(width))) return nullptr;
    r.ost_ids = extra_.data();
    r.ost_count = width;
    return &r;
  }

  // DXT: id, rank, shared flag, hostname[64], write and read counts, then the segments.
  constexpr std::size_t fixed = 16 + 8 + dxt_hostname_size + 16;
  if (!read_bytes(raw_.data(), fixed, false)) return nullptr;
  fields f{raw_.data(), swap};
  r.id = f.u64(0);
  r.rank = f.i64(8);
  r.shared_record = f.i64(16);
  const char* host = reinterpret_cast<const char*>(raw_.data() + 24);
  hostname_.assign(host, strnlen(host, dxt_hostname_size));
  r.hostname = hostname_;
  r.write_count = f.i64(24 + dxt_hostname_size);
  r.read_count = f.i64(32 + dxt_hostname_size);
  constexpr std::int64_t max_count = std::int64_t{1} << 40;
  if (r.write_count < 0 || r.read_count < 0 || r.write_count > max_count ||
      r.read_count > max_count) {
    log_.note(what_ + ": a record claims " + std::to_string(r.write_count) + " writes and " +
              std::to_string(r.read_count) +
              " reads: it is corrupt, the records after it are not read");
    return nullptr;
  }
  dxt_total_ =
      static_cast<std::uint64_t>(r.write_count) + static_cast<std::uint64_t>(r.read_count);
  dxt_start_ = stream_->position();
  dxt_end_ = dxt_start_ + dxt_total_ * l.dxt_segment_size;
  dxt_cut_ = false;
  dxt_pending_ = true;
  segments_.clear();
  if (dxt_total_ <= log_.options_.max_buffered_segments) {
    stream_segments(nullptr, &segments_);
    r.for_each_segment = [this](const std::function<void(const dxt_segment*, std::size_t)>& out) {
      if (!segments_.empty()) out(segments_.data(), segments_.size());
    };
  } else {
    r.for_each_segment = [this](const std::function<void(const dxt_segment*, std::size_t)>& out) {
      stream_->seek(dxt_start_);
      stream_segments(out, nullptr);
    };
  }
  return &r;
}

}  // namespace perfdm::darshan
