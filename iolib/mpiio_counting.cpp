#include "iolib/mpiio_counting.hpp"

#include <fcntl.h>
#include <limits.h>

#include <cstring>

#include "iolib/spin_lock.hpp"

namespace perfdm::io::lib {

namespace {

thread_local int mpiio_nesting __attribute__((tls_model("initial-exec"))) = 0;

// Open file handles -> record (index + 1): open addressing on the handle's address, one
// spin lock (opens and closes are rare next to reads and writes, which only look up).
struct handle_entry {
  MPI_File fh;
  std::int32_t record;
};
constexpr unsigned handle_slots = 4096;
handle_entry handles[handle_slots];
spin_lock handles_lock;

unsigned slot_of(MPI_File fh) {
  const auto a = reinterpret_cast<std::uintptr_t>(fh);
  return unsigned((a >> 4) ^ (a >> 16)) & (handle_slots - 1);
}

// Points `fh` at `record` (0 forgets it). A table that is full leaves the handle uncounted.
void set_handle(MPI_File fh, std::int32_t record) {
  handles_lock.lock();
  for (unsigned i = slot_of(fh), n = 0; n < handle_slots; i = (i + 1) & (handle_slots - 1), ++n) {
    handle_entry& e = handles[i];
    if (e.fh == fh) {
      e.record = record;  // a forgotten entry keeps its handle so probing goes past it
      break;
    }
    if (e.fh == nullptr) {
      if (record != 0) e = {fh, record};
      break;
    }
  }
  handles_lock.unlock();
}

// The address of libmpi's global `name` as the program uses it: the first definition in
// lookup order, which is the program's own copy when the program refers to the global (a
// copy relocation: libmpi then uses that copy too, and its own stays unused).
template <class T>
T mpi_global(const char* name) {
  return reinterpret_cast<T>(dlsym(RTLD_DEFAULT, name));
}

int (*pmpi_initialized)(int*);
int (*pmpi_comm_rank)(MPI_Comm, int*);
int (*pmpi_comm_size)(MPI_Comm, int*);
int (*pmpi_type_size)(MPI_Datatype, int*);

}  // namespace

// The process's rank and the world's size, once MPI is initialised (Darshan's records carry
// the rank in MPI_COMM_WORLD; the job's log counts the ranks as its processes).
void note_mpi_rank() {
  segment_header& h = *g.header;
  if (__atomic_load_n(&h.mpi_rank, __ATOMIC_RELAXED) >= 0) return;
  int initialized = 0;
  auto initialized_fn = real_pmpi(pmpi_initialized, "PMPI_Initialized");
  if (initialized_fn == nullptr || initialized_fn(&initialized) != MPI_SUCCESS || !initialized)
    return;
  auto world = mpi_global<MPI_Comm>("ompi_mpi_comm_world");
  auto rank_fn = real_pmpi(pmpi_comm_rank, "PMPI_Comm_rank");
  auto size_fn = real_pmpi(pmpi_comm_size, "PMPI_Comm_size");
  int rank = -1, size = 0;
  if (world == nullptr || rank_fn == nullptr || size_fn == nullptr) return;
  if (rank_fn(world, &rank) != MPI_SUCCESS || size_fn(world, &size) != MPI_SUCCESS) return;
  h.mpi_size = size;
  __atomic_store_n(&h.mpi_rank, rank, __ATOMIC_RELEASE);
}

void* mpi_symbol(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  return p != nullptr ? p : dlsym(RTLD_DEFAULT, name);
}

void note_mpi_init(std::uint64_t ticks, std::int64_t realtime) {
  segment_header& h = *g.header;
  if (__atomic_load_n(&h.mpi_init_ticks, __ATOMIC_RELAXED) == 0) {
    h.mpi_init_realtime_ns = realtime;
    __atomic_store_n(&h.mpi_init_ticks, ticks, __ATOMIC_RELEASE);
  }
  note_mpi_rank();
}

void note_mpi_finalize(std::uint64_t ticks, std::int64_t realtime) {
  segment_header& h = *g.header;
  h.mpi_finalize_realtime_ns = realtime;
  __atomic_store_n(&h.mpi_finalize_ticks, ticks, __ATOMIC_RELEASE);
}

bool mpiio_counting() {
  if (__builtin_expect(!ready(), 0) && !start()) return false;
  if (in_library != 0 || mpiio_nesting != 0) return false;
  return true;
}

mpiio_depth::mpiio_depth() {
  ++mpiio_nesting;
}
mpiio_depth::~mpiio_depth() {
  --mpiio_nesting;
}

bool mpiio_has_info(MPI_Info info) {
  return info != mpi_global<MPI_Info>("ompi_mpi_info_null");
}

std::int64_t mpiio_bytes(int count, MPI_Datatype datatype) {
  if (count <= 0 || datatype == mpi_global<MPI_Datatype>("ompi_mpi_datatype_null")) return 0;
  int size = 0;
  auto type_size = real_pmpi(pmpi_type_size, "PMPI_Type_size");
  if (type_size == nullptr || type_size(datatype, &size) != MPI_SUCCESS) return 0;
  return std::int64_t(size) * count;
}

void count_mpiio_open(MPI_File fh, MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                      std::uint64_t t1, std::uint64_t t2) {
  note_mpi_rank();
  // ROMIO's file-system prefix ("ufs:/path"): the name is what follows, unless the colon is
  // the second character (a drive letter), as Darshan strips it.
  if (const char* colon = std::strchr(filename, ':'); colon != nullptr && colon > filename + 1)
    filename = colon + 1;
  int comm_size = 1;
  if (auto size_fn = real_pmpi(pmpi_comm_size, "PMPI_Comm_size")) size_fn(comm, &comm_size);
  const bool hints = mpiio_has_info(info);
  library_guard guard;
  char name[2 * PATH_MAX];
  if (!clean_name(AT_FDCWD, filename, name, sizeof name)) return;
  const std::int32_t record = mpiio_record(name);
  if (record == 0) return;
  set_handle(fh, record);
  update_mpiio(record, [&](mpiio_file& f) { mpiio_open(f, amode, comm_size, hints, t1, t2); });
}

std::int32_t mpiio_handle_record(MPI_File fh) {
  for (unsigned i = slot_of(fh), n = 0; n < handle_slots; i = (i + 1) & (handle_slots - 1), ++n) {
    const handle_entry& e = handles[i];
    const MPI_File at = __atomic_load_n(&e.fh, __ATOMIC_ACQUIRE);
    if (at == fh) return __atomic_load_n(&e.record, __ATOMIC_RELAXED);
    if (at == nullptr) return 0;
  }
  return 0;
}

void count_mpiio_close(MPI_File fh, std::uint64_t t1, std::uint64_t t2) {
  const std::int32_t record = mpiio_handle_record(fh);
  if (record == 0) return;
  set_handle(fh, 0);
  update_mpiio(record, [&](mpiio_file& f) { mpiio_close(f, t1, t2); });
}

}  // namespace perfdm::io::lib
