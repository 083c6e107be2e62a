// Asynchronous I/O. POSIX aio as Darshan counts it (aio_read/aio_write/lio_listio note when a
// request was submitted; aio_return counts it as a read or write of what it returned, at its
// offset, from submission to return). And what Darshan does not see, counted unless
// PERFDM_IO_DARSHAN_ONLY is set (docs/IO.md §3), all through syscall(), which libaio's
// io_submit and programs driving io_uring themselves (fio) call:
//   io_submit: each read or write iocb of a counted file is a POSIX read or write of the bytes
//     it asks for, at its offset, counted when submitted (the call's time);
//   io_uring_enter: each read or write SQE being submitted likewise (rings set up with
//     io_uring_setup and mapped with mmap through this library; SQPOLL rings, registered files
//     and liburing, which makes its system calls inline, are not seen);
//   openat2: as openat.
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "iolib/counting.hpp"
#include "iolib/spin_lock.hpp"

using namespace perfdm::io;
using namespace perfdm::io::lib;

namespace {

// Submitted POSIX aio requests: the control block, its record and submission time.
struct aio_request {
  const void* cb;
  std::int32_t record;
  std::uint64_t submitted;
};
constexpr int max_aio_requests = 4096;
aio_request aio_requests[max_aio_requests];
spin_lock aio_lock;

void aio_submitted(const void* cb, int fd) {
  const std::int32_t record = fd_record(fd);
  if (record == 0) return;
  const std::uint64_t now = read_ticks();
  library_guard guard;
  aio_lock.lock();
  for (auto& r : aio_requests) {
    if (r.cb == nullptr || r.cb == cb) {
      r = {cb, record, now};
      break;
    }
  }
  aio_lock.unlock();
}

// The request of `cb`, removed; record 0 when it was not noted.
aio_request aio_returned(const void* cb) {
  aio_request found{};
  library_guard guard;
  aio_lock.lock();
  for (auto& r : aio_requests) {
    if (r.cb == cb) {
      found = r;
      r = {};
      break;
    }
  }
  aio_lock.unlock();
  return found;
}

template <class Cb>
ssize_t aio_return_call(Cb* cb, ssize_t r) {
  const std::uint64_t t2 = read_ticks();
  if (!ready()) return r;
  const aio_request req = aio_returned(cb);
  if (req.record == 0 || r < 0) return r;
  const bool aligned = mem_aligned(const_cast<void*>(cb->aio_buf));
  if (cb->aio_lio_opcode == LIO_WRITE) {
    count_access(req.record, false, cb->aio_offset, r, aligned, req.submitted, t2);
  } else if (cb->aio_lio_opcode == LIO_READ) {
    count_access(req.record, true, cb->aio_offset, r, aligned, req.submitted, t2);
  }
  return r;
}

// io_uring rings this process set up through syscall(): their submission-queue layout and
// where it is mapped (fd + 1, so that zeroed entries are free).
struct ring {
  int fd_plus_one;
  io_sqring_offsets sq;
  unsigned char* sq_ring;
  io_uring_sqe* sqes;
};
constexpr int max_rings = 16;
ring rings[max_rings];
int ring_count = 0;

ring* find_ring(int fd) {
  for (auto& r : rings)
    if (r.fd_plus_one == fd + 1 && r.sq_ring != nullptr) return &r;
  return nullptr;
}

void ring_created(int fd, const io_uring_params* p) {
  library_guard guard;
  aio_lock.lock();
  for (auto& r : rings) {
    if (r.fd_plus_one == 0 || r.fd_plus_one == fd + 1) {
      r = ring{fd + 1, p->sq_off, nullptr, nullptr};
      __atomic_store_n(&ring_count, 1, __ATOMIC_RELEASE);
      break;
    }
  }
  aio_lock.unlock();
}

// A read or write asked of a counted descriptor: counts it at submission.
void submitted(int fd, bool is_read, std::int64_t offset, std::int64_t bytes, bool aligned,
               std::uint64_t t1, std::uint64_t t2) {
  const std::int32_t record = fd_record(fd);
  if (record != 0) count_access(record, is_read, offset, bytes, aligned, t1, t2);
}

std::int64_t iovec_bytes(const iovec* iov, std::uint64_t count) {
  std::int64_t n = 0;
  for (std::uint64_t i = 0; i < count && i < 1024; ++i) n += std::int64_t(iov[i].iov_len);
  return n;
}

void count_io_submit(long nr, iocb** cbs, std::uint64_t t1, std::uint64_t t2) {
  for (long i = 0; i < nr; ++i) {
    const iocb* cb = cbs[i];
    const auto* buf = reinterpret_cast<const void*>(cb->aio_buf);
    const auto fd = int(cb->aio_fildes);
    switch (cb->aio_lio_opcode) {
      case IOCB_CMD_PREAD:
        submitted(fd, true, cb->aio_offset, std::int64_t(cb->aio_nbytes), mem_aligned(buf), t1, t2);
        break;
      case IOCB_CMD_PWRITE:
        submitted(fd, false, cb->aio_offset, std::int64_t(cb->aio_nbytes), mem_aligned(buf), t1,
                  t2);
        break;
      case IOCB_CMD_PREADV:
        submitted(fd, true, cb->aio_offset,
                  iovec_bytes(static_cast<const iovec*>(buf), cb->aio_nbytes), true, t1, t2);
        break;
      case IOCB_CMD_PWRITEV:
        submitted(fd, false, cb->aio_offset,
                  iovec_bytes(static_cast<const iovec*>(buf), cb->aio_nbytes), true, t1, t2);
        break;
      default:
        break;
    }
  }
}

// The SQEs an io_uring_enter is about to submit, copied before the kernel consumes them.
struct pending_sqe {
  int fd;
  bool is_read;
  std::int64_t offset;
  std::int64_t bytes;
  bool aligned;
};

int pending_sqes(const ring& r, unsigned to_submit, pending_sqe* out, int capacity) {
  const unsigned head =
      __atomic_load_n(reinterpret_cast<unsigned*>(r.sq_ring + r.sq.head), __ATOMIC_ACQUIRE);
  const unsigned mask = *reinterpret_cast<unsigned*>(r.sq_ring + r.sq.ring_mask);
  const auto* array = reinterpret_cast<const unsigned*>(r.sq_ring + r.sq.array);
  int n = 0;
  for (unsigned i = 0; i < to_submit && n < capacity; ++i) {
    const io_uring_sqe& s = r.sqes[array[(head + i) & mask] & mask];
    if ((s.flags & IOSQE_FIXED_FILE) != 0) continue;
    const auto* addr = reinterpret_cast<const void*>(s.addr);
    const std::int64_t off = s.off == ~0ull ? -1 : std::int64_t(s.off);
    switch (s.opcode) {
      case IORING_OP_READ:
      case IORING_OP_READ_FIXED:
        out[n++] = {s.fd, true, off, std::int64_t(s.len), mem_aligned(addr)};
        break;
      case IORING_OP_WRITE:
      case IORING_OP_WRITE_FIXED:
        out[n++] = {s.fd, false, off, std::int64_t(s.len), mem_aligned(addr)};
        break;
      case IORING_OP_READV:
        out[n++] = {s.fd, true, off, iovec_bytes(static_cast<const iovec*>(addr), s.len), true};
        break;
      case IORING_OP_WRITEV:
        out[n++] = {s.fd, false, off, iovec_bytes(static_cast<const iovec*>(addr), s.len), true};
        break;
      default:
        break;
    }
  }
  return n;
}

}  // namespace

namespace perfdm::io::lib {
void note_ring_mapping(int fd, off64_t offset, void* at) {
  if (at == MAP_FAILED || __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE) == 0) return;
  library_guard guard;
  aio_lock.lock();
  for (auto& r : rings) {
    if (r.fd_plus_one != fd + 1) continue;
    if (offset == off64_t(IORING_OFF_SQ_RING)) {
      r.sq_ring = static_cast<unsigned char*>(at);
    } else if (offset == off64_t(IORING_OFF_SQES)) {
      r.sqes = static_cast<io_uring_sqe*>(at);
    }
  }
  aio_lock.unlock();
}
}  // namespace perfdm::io::lib

PERFDM_IO_WRAP(int, aio_read, (struct aiocb * cb)) {
  const int r = real::aio_read()(cb);
  if (r == 0 && ready()) aio_submitted(cb, cb->aio_fildes);
  return r;
}

PERFDM_IO_WRAP(int, aio_write, (struct aiocb * cb)) {
  const int r = real::aio_write()(cb);
  if (r == 0 && ready()) aio_submitted(cb, cb->aio_fildes);
  return r;
}

PERFDM_IO_WRAP(int, aio_read64, (struct aiocb64 * cb)) {
  const int r = real::aio_read64()(cb);
  if (r == 0 && ready()) aio_submitted(cb, cb->aio_fildes);
  return r;
}

PERFDM_IO_WRAP(int, aio_write64, (struct aiocb64 * cb)) {
  const int r = real::aio_write64()(cb);
  if (r == 0 && ready()) aio_submitted(cb, cb->aio_fildes);
  return r;
}

PERFDM_IO_WRAP(ssize_t, aio_return, (struct aiocb * cb)) {
  return aio_return_call(cb, real::aio_return()(cb));
}

PERFDM_IO_WRAP(ssize_t, aio_return64, (struct aiocb64 * cb)) {
  return aio_return_call(cb, real::aio_return64()(cb));
}

PERFDM_IO_WRAP(int, lio_listio,
               (int mode, struct aiocb* const list[], int n, struct sigevent* ev)) {
  const int r = real::lio_listio()(mode, list, n, ev);
  if (r == 0 && ready()) {
    for (int i = 0; i < n; ++i)
      if (list[i] != nullptr) aio_submitted(list[i], list[i]->aio_fildes);
  }
  return r;
}

PERFDM_IO_WRAP(int, lio_listio64,
               (int mode, struct aiocb64* const list[], int n, struct sigevent* ev)) {
  const int r = real::lio_listio64()(mode, list, n, ev);
  if (r == 0 && ready()) {
    for (int i = 0; i < n; ++i)
      if (list[i] != nullptr) aio_submitted(list[i], list[i]->aio_fildes);
  }
  return r;
}

PERFDM_IO_WRAP(long, syscall, (long number, ...)) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (auto& x : a) x = va_arg(ap, long);
  va_end(ap);
  auto call = [&] { return real::syscall()(number, a[0], a[1], a[2], a[3], a[4], a[5]); };
  if (!ready() || g.darshan_only || in_library != 0) return call();
  switch (number) {
    case SYS_io_submit: {
      const std::uint64_t t1 = read_ticks();
      const long r = call();
      const std::uint64_t t2 = read_ticks();
      if (r > 0) count_io_submit(r, reinterpret_cast<iocb**>(a[2]), t1, t2);
      return r;
    }
    case SYS_io_uring_setup: {
      const long r = call();
      if (r >= 0) ring_created(int(r), reinterpret_cast<const io_uring_params*>(a[1]));
      return r;
    }
    case SYS_io_uring_enter: {
      const ring* rg = find_ring(int(a[0]));
      if (rg == nullptr || rg->sqes == nullptr || a[1] <= 0) return call();
      pending_sqe pending[256];
      const int n = pending_sqes(*rg, unsigned(a[1]), pending, 256);
      const std::uint64_t t1 = read_ticks();
      const long r = call();
      const std::uint64_t t2 = read_ticks();
      // r SQEs were consumed, the first r of those noted.
      for (int i = 0; i < n && i < r; ++i) {
        submitted(pending[i].fd, pending[i].is_read, pending[i].offset, pending[i].bytes,
                  pending[i].aligned, t1, t2);
      }
      return r;
    }
    case SYS_openat2: {
      const auto* how = reinterpret_cast<const open_how*>(a[2]);
      const auto* path = reinterpret_cast<const char*>(a[1]);
      if (!counting_names(false)) return call();
      const std::uint64_t t1 = read_ticks();
      const long r = call();
      const std::uint64_t t2 = read_ticks();
      if (r >= 0) {
        count_open(int(r), int(a[0]), path,
                   (how->flags & O_CREAT) != 0 ? std::int64_t(how->mode) : 0, t1, t2);
      }
      return r;
    }
    default:
      return call();
  }
}
