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
#include "darshan/darshan_fields.hpp"
#include "darshan/darshan_region_stream.hpp"

namespace perfdm::darshan {

namespace {

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

}  // namespace perfdm::darshan
