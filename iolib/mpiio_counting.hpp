// What the MPI-IO wrappers do around the real call (Darshan's MPIIO module,
// darshan-runtime/lib/darshan-mpiio.c). The library never links libmpi: it is preloaded into
// every program, most of which have no MPI. The real calls are the PMPI_ functions of the
// libmpi the program loaded, found with dlsym when a wrapper first runs; Open MPI's handles
// (MPI_COMM_WORLD, MPI_INFO_NULL, MPI_DATATYPE_NULL) are addresses of its globals, found by
// dlsym too, so the library has no undefined reference to libmpi. A program without MPI never
// calls a wrapper.
#pragma once

#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>

#include "iocounters/mpiio_file.hpp"
#include "iolib/counting.hpp"

namespace perfdm::io::lib {

// The address of `name` in the libraries after this one (the program's libmpi), or of any
// loaded library; null when none has it.
void* mpi_symbol(const char* name);

// The real PMPI_ function `name` (resolved once per call site), or null.
template <class F>
F real_pmpi(F& cache, const char* name) {
  F f = __atomic_load_n(&cache, __ATOMIC_ACQUIRE);
  if (f == nullptr) {
    f = reinterpret_cast<F>(mpi_symbol(name));
    __atomic_store_n(&cache, f, __ATOMIC_RELEASE);
  }
  return f;
}

// Whether the calling thread should count an MPI-IO call: the library is ready and the thread
// is not already inside an MPI-IO wrapper (MPI_File_write calling PMPI_File_write through a
// second wrapper is one call).
bool mpiio_counting();

// Marks the thread inside an MPI-IO wrapper for its lifetime.
struct mpiio_depth {
  mpiio_depth();
  ~mpiio_depth();
  mpiio_depth(const mpiio_depth&) = delete;
  mpiio_depth& operator=(const mpiio_depth&) = delete;
};

// Notes the process's rank in MPI_COMM_WORLD and the world's size in its segment header, once
// MPI is initialised (after MPI_Init, and at each MPI_File_open should MPI_Init be missed).
void note_mpi_rank();

// Notes in the segment header when MPI_Init returned (`ticks`, `realtime`, read right after
// the real call, where Darshan starts its clock), then the rank.
void note_mpi_init(std::uint64_t ticks, std::int64_t realtime);
// Notes in the segment header when MPI_Finalize was called, before the real call (where
// Darshan stops its clock).
void note_mpi_finalize(std::uint64_t ticks, std::int64_t realtime);

// After a successful MPI_File_open of `filename` on `comm`.
void count_mpiio_open(MPI_File fh, MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                      std::uint64_t t1, std::uint64_t t2);
// The record of an open file handle (index + 1), or 0.
std::int32_t mpiio_handle_record(MPI_File fh);
// After MPI_File_close of `fh` (the handle the program passed, before MPI freed it).
void count_mpiio_close(MPI_File fh, std::uint64_t t1, std::uint64_t t2);
// Bytes of `count` items of `datatype` (Darshan: count x MPI_Type_size; 0 for a null type).
std::int64_t mpiio_bytes(int count, MPI_Datatype datatype);
// Whether `info` is an info object (not MPI_INFO_NULL).
bool mpiio_has_info(MPI_Info info);

// Runs `update(record&)` on MPI-IO record `record` (index + 1) under its lock.
template <class Update>
void update_mpiio(std::int32_t record, Update&& update) {
  update_locked(mpiio_at(record - 1), update);
}

// A read or write call on `fh` counted in `kind` (MPIIO_INDEP_READS, ...), timed around
// `call`; counted when it returned MPI_SUCCESS, and traced with --trace (DXT_MPIIO).
// Non-blocking calls are timed as Darshan times them: the initiation only.
template <class Call>
int mpiio_access_call(MPI_File fh, bool is_read, int kind, int count, MPI_Datatype datatype,
                      Call&& call) {
  if (!mpiio_counting()) return call();
  mpiio_depth depth;
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r != MPI_SUCCESS) return r;
  const std::int32_t record = mpiio_handle_record(fh);
  if (record == 0) return r;
  const std::int64_t bytes = mpiio_bytes(count, datatype);
  update_mpiio(record, [&](mpiio_file& f) { mpiio_access(f, is_read, kind, bytes, t1, t2); });
  heatmap_add(g.heatmaps[heatmap_mpiio], is_read, bytes, t1, t2);
  // DXT_MPIIO's offset is -1 under Open MPI: Darshan asks MPI_File_get_byte_offset for it
  // with other MPIs only (an Open MPI bug, darshan-runtime/lib/darshan-mpiio.c).
  if (g.trace != nullptr &&
      !trace_append(*g.trace, {std::uint32_t(record - 1),
                               is_read ? std::uint32_t(trace_mpiio_read)
                                       : std::uint32_t(trace_mpiio_write),
                               -1, bytes, t1, t2, std::uint64_t(pthread_self())})) {
    mark_partial(darshan::DXT_MPIIO_MOD);
  }
  return r;
}

}  // namespace perfdm::io::lib
