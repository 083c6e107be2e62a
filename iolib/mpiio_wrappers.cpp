// The MPI-IO calls Darshan 3.5.0's MPIIO module wraps (darshan-runtime/lib/darshan-mpiio.c),
// counted by its rules (iocounters/mpiio_file.hpp), and MPI_Init, MPI_Init_thread and
// MPI_Finalize, which make the process a rank and bound its time. Each is exported under its MPI_ name (the
// program's C calls) and its PMPI_ name (Open MPI's Fortran bindings and tools call those),
// as Darshan's preload library exports both; either calls libmpi's PMPI_ function. The `*_end`
// calls of split collectives and MPI-4's large-count `_c` calls (not in Open MPI 4.1) are not
// wrapped.
#include "iolib/mpiio_counting.hpp"

using namespace perfdm::io;
using namespace perfdm::io::lib;

// Defines MPI_<name> and PMPI_<name> with parameters `params`, both running `body` with
// `real` bound to libmpi's PMPI_<name>.
#define PERFDM_MPIIO_WRAP(name, params, body)                                         \
  namespace {                                                                         \
  int(*real_##name) params;                                                           \
  int wrapped_##name params;                                                          \
  }                                                                                   \
  PERFDM_IO_WRAP(int, MPI_##name, params) {                                           \
    return wrapped_##name(PERFDM_MPIIO_ARGS);                                         \
  }                                                                                   \
  PERFDM_IO_WRAP(int, PMPI_##name, params) {                                          \
    return wrapped_##name(PERFDM_MPIIO_ARGS);                                         \
  }                                                                                   \
  namespace {                                                                         \
  int wrapped_##name params {                                                         \
    auto real = real_pmpi(real_##name, "PMPI_" #name);                                \
    if (real == nullptr) return MPI_ERR_INTERN;                                       \
    body                                                                              \
  }                                                                                   \
  }

// Reads and writes: (fh, [offset,] buf, count, datatype, status-or-request).
#define PERFDM_MPIIO_ACCESS(name, is_read, kind, buf_type, last_type)                        \
  PERFDM_MPIIO_WRAP(name, (MPI_File fh, buf_type buf, int count, MPI_Datatype type,          \
                           last_type last),                                                  \
                    return mpiio_access_call(fh, is_read, kind, count, type,                 \
                                             [&] { return real(fh, buf, count, type, last); });)
#define PERFDM_MPIIO_ACCESS_AT(name, is_read, kind, buf_type, last_type)                      \
  PERFDM_MPIIO_WRAP(name, (MPI_File fh, MPI_Offset at, buf_type buf, int count,               \
                           MPI_Datatype type, last_type last),                                \
                    return mpiio_access_call(fh, is_read, kind, count, type, [&] {            \
                      return real(fh, at, buf, count, type, last);                            \
                    });)

#define PERFDM_MPIIO_ARGS fh, buf, count, type, last
PERFDM_MPIIO_ACCESS(File_read, true, MPIIO_INDEP_READS, void*, MPI_Status*)
PERFDM_MPIIO_ACCESS(File_write, false, MPIIO_INDEP_WRITES, const void*, MPI_Status*)
PERFDM_MPIIO_ACCESS(File_read_shared, true, MPIIO_INDEP_READS, void*, MPI_Status*)
PERFDM_MPIIO_ACCESS(File_write_shared, false, MPIIO_INDEP_WRITES, const void*, MPI_Status*)
PERFDM_MPIIO_ACCESS(File_read_all, true, MPIIO_COLL_READS, void*, MPI_Status*)
PERFDM_MPIIO_ACCESS(File_write_all, false, MPIIO_COLL_WRITES, const void*, MPI_Status*)
PERFDM_MPIIO_ACCESS(File_read_ordered, true, MPIIO_COLL_READS, void*, MPI_Status*)
PERFDM_MPIIO_ACCESS(File_write_ordered, false, MPIIO_COLL_WRITES, const void*, MPI_Status*)
PERFDM_MPIIO_ACCESS(File_iread, true, MPIIO_NB_READS, void*, MPI_Request*)
PERFDM_MPIIO_ACCESS(File_iwrite, false, MPIIO_NB_WRITES, const void*, MPI_Request*)
PERFDM_MPIIO_ACCESS(File_iread_shared, true, MPIIO_NB_READS, void*, MPI_Request*)
PERFDM_MPIIO_ACCESS(File_iwrite_shared, false, MPIIO_NB_WRITES, const void*, MPI_Request*)
PERFDM_MPIIO_ACCESS(File_iread_all, true, MPIIO_NB_READS, void*, MPI_Request*)
PERFDM_MPIIO_ACCESS(File_iwrite_all, false, MPIIO_NB_WRITES, const void*, MPI_Request*)
#undef PERFDM_MPIIO_ARGS

#define PERFDM_MPIIO_ARGS fh, at, buf, count, type, last
PERFDM_MPIIO_ACCESS_AT(File_read_at, true, MPIIO_INDEP_READS, void*, MPI_Status*)
PERFDM_MPIIO_ACCESS_AT(File_write_at, false, MPIIO_INDEP_WRITES, const void*, MPI_Status*)
PERFDM_MPIIO_ACCESS_AT(File_read_at_all, true, MPIIO_COLL_READS, void*, MPI_Status*)
PERFDM_MPIIO_ACCESS_AT(File_write_at_all, false, MPIIO_COLL_WRITES, const void*, MPI_Status*)
PERFDM_MPIIO_ACCESS_AT(File_iread_at, true, MPIIO_NB_READS, void*, MPI_Request*)
PERFDM_MPIIO_ACCESS_AT(File_iwrite_at, false, MPIIO_NB_WRITES, const void*, MPI_Request*)
PERFDM_MPIIO_ACCESS_AT(File_iread_at_all, true, MPIIO_NB_READS, void*, MPI_Request*)
PERFDM_MPIIO_ACCESS_AT(File_iwrite_at_all, false, MPIIO_NB_WRITES, const void*, MPI_Request*)
#undef PERFDM_MPIIO_ARGS

// Split collectives: the `_begin` call is the one counted (no status, no request).
#define PERFDM_MPIIO_ARGS fh, buf, count, type
#define PERFDM_MPIIO_SPLIT(name, is_read, kind, buf_type)                                        \
  PERFDM_MPIIO_WRAP(name, (MPI_File fh, buf_type buf, int count, MPI_Datatype type),             \
                    return mpiio_access_call(fh, is_read, kind, count, type,                     \
                                             [&] { return real(fh, buf, count, type); });)
PERFDM_MPIIO_SPLIT(File_read_all_begin, true, MPIIO_SPLIT_READS, void*)
PERFDM_MPIIO_SPLIT(File_write_all_begin, false, MPIIO_SPLIT_WRITES, const void*)
PERFDM_MPIIO_SPLIT(File_read_ordered_begin, true, MPIIO_SPLIT_READS, void*)
PERFDM_MPIIO_SPLIT(File_write_ordered_begin, false, MPIIO_SPLIT_WRITES, const void*)
#undef PERFDM_MPIIO_ARGS

#define PERFDM_MPIIO_ARGS fh, at, buf, count, type
PERFDM_MPIIO_WRAP(File_read_at_all_begin,
                  (MPI_File fh, MPI_Offset at, void* buf, int count, MPI_Datatype type),
                  return mpiio_access_call(fh, true, MPIIO_SPLIT_READS, count, type,
                                           [&] { return real(fh, at, buf, count, type); });)
PERFDM_MPIIO_WRAP(File_write_at_all_begin,
                  (MPI_File fh, MPI_Offset at, const void* buf, int count, MPI_Datatype type),
                  return mpiio_access_call(fh, false, MPIIO_SPLIT_WRITES, count, type,
                                           [&] { return real(fh, at, buf, count, type); });)
#undef PERFDM_MPIIO_ARGS

// MPI_Init and MPI_Init_thread: a process that initialised MPI is a rank of the job, even
// one that never calls MPI-IO (the job's log counts ranks, not mpirun and its helpers). The
// clock is read first, as Darshan's initialisation reads its own right after the real call.
#define PERFDM_MPIIO_ARGS argc, argv
PERFDM_MPIIO_WRAP(Init, (int* argc, char*** argv), {
  const int r = real(argc, argv);
  const std::uint64_t ticks = read_ticks();
  const std::int64_t now = realtime_ns();
  if (r == MPI_SUCCESS && mpiio_counting()) note_mpi_init(ticks, now);
  return r;
})
#undef PERFDM_MPIIO_ARGS
#define PERFDM_MPIIO_ARGS argc, argv, required, provided
PERFDM_MPIIO_WRAP(Init_thread, (int* argc, char*** argv, int required, int* provided), {
  const int r = real(argc, argv, required, provided);
  const std::uint64_t ticks = read_ticks();
  const std::int64_t now = realtime_ns();
  if (r == MPI_SUCCESS && mpiio_counting()) note_mpi_init(ticks, now);
  return r;
})
#undef PERFDM_MPIIO_ARGS

// MPI_Finalize: the end of the rank's time as Darshan's log has it (its shutdown runs before
// the real call). The I/O that follows is still counted.
#define PERFDM_MPIIO_ARGS
PERFDM_MPIIO_WRAP(Finalize, (void), {
  if (mpiio_counting()) note_mpi_finalize(read_ticks(), realtime_ns());
  return real();
})
#undef PERFDM_MPIIO_ARGS

#define PERFDM_MPIIO_ARGS comm, filename, amode, info, fh
PERFDM_MPIIO_WRAP(File_open,
                  (MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh), {
                    if (!mpiio_counting()) return real(comm, filename, amode, info, fh);
                    mpiio_depth depth;
                    const std::uint64_t t1 = read_ticks();
                    const int r = real(comm, filename, amode, info, fh);
                    const std::uint64_t t2 = read_ticks();
                    if (r == MPI_SUCCESS && filename != nullptr)
                      count_mpiio_open(*fh, comm, filename, amode, info, t1, t2);
                    return r;
                  })
#undef PERFDM_MPIIO_ARGS

#define PERFDM_MPIIO_ARGS fh
PERFDM_MPIIO_WRAP(File_close, (MPI_File * fh), {
  if (!mpiio_counting()) return real(fh);
  mpiio_depth depth;
  const MPI_File handle = *fh;
  const std::uint64_t t1 = read_ticks();
  const int r = real(fh);
  const std::uint64_t t2 = read_ticks();
  // Darshan counts the close whatever it returned.
  count_mpiio_close(handle, t1, t2);
  return r;
})

PERFDM_MPIIO_WRAP(File_sync, (MPI_File fh), {
  if (!mpiio_counting()) return real(fh);
  mpiio_depth depth;
  const std::uint64_t t1 = read_ticks();
  const int r = real(fh);
  const std::uint64_t t2 = read_ticks();
  if (r != MPI_SUCCESS) return r;
  if (const std::int32_t record = mpiio_handle_record(fh))
    update_mpiio(record, [&](mpiio_file& f) { mpiio_sync(f, t1, t2); });
  return r;
})
#undef PERFDM_MPIIO_ARGS

#define PERFDM_MPIIO_ARGS fh, disp, etype, filetype, datarep, info
PERFDM_MPIIO_WRAP(File_set_view,
                  (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                   const char* datarep, MPI_Info info),
                  {
                    if (!mpiio_counting()) return real(fh, disp, etype, filetype, datarep, info);
                    mpiio_depth depth;
                    const std::uint64_t t1 = read_ticks();
                    const int r = real(fh, disp, etype, filetype, datarep, info);
                    const std::uint64_t t2 = read_ticks();
                    if (r != MPI_SUCCESS) return r;
                    const bool hints = mpiio_has_info(info);
                    if (const std::int32_t record = mpiio_handle_record(fh))
                      update_mpiio(record,
                                   [&](mpiio_file& f) { mpiio_set_view(f, hints, t1, t2); });
                    return r;
                  })
#undef PERFDM_MPIIO_ARGS
