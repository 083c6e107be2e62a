// Darshan's log format, as facts: the module ids and names, the current module versions,
// the header and job record layouts of log format 3.41 and of the older formats 3.00-3.21,
// the compression codes and the runtime's limits (Darshan's include/darshan-log-format.h and
// darshan-util/darshan-logutils.c, version 3.5.0). Plain C++ without dependencies: usable
// from the reader and from a preload library compiled -fPIC.
#pragma once

#include <cstddef>
#include <cstdint>

namespace perfdm::darshan {

// The module ids of log format 3.41 (Darshan's DARSHAN_MODULE_IDS, in order): the index of a
// module's region in the header, its bit in the partial flag, and the order of the regions.
#define PERFDM_DARSHAN_MODULES(X)            \
  X(NULL_MOD, "NULL", 1)                     \
  X(POSIX_MOD, "POSIX", 4)                   \
  X(MPIIO_MOD, "MPI-IO", 3)                  \
  X(H5F_MOD, "H5F", 3)                       \
  X(H5D_MOD, "H5D", 2)                       \
  X(PNETCDF_FILE_MOD, "PNETCDF_FILE", 3)     \
  X(PNETCDF_VAR_MOD, "PNETCDF_VAR", 1)       \
  X(BGQ_MOD, "BG/Q", 2)                      \
  X(LUSTRE_MOD, "LUSTRE", 2)                 \
  X(STDIO_MOD, "STDIO", 2)                   \
  X(DXT_POSIX_MOD, "DXT_POSIX", 2)           \
  X(DXT_MPIIO_MOD, "DXT_MPIIO", 3)           \
  X(MDHIM_MOD, "MDHIM", 1)                   \
  X(APXC_MOD, "APXC", 0)                     \
  X(APMPI_MOD, "APMPI", 0)                   \
  X(HEATMAP_MOD, "HEATMAP", 1)               \
  X(DFS_MOD, "DFS", 1)                       \
  X(DAOS_MOD, "DAOS", 1)

#define PERFDM_DARSHAN_MODULE_ENUM(id, name, version) id,
enum module_id : int { PERFDM_DARSHAN_MODULES(PERFDM_DARSHAN_MODULE_ENUM) known_module_count };
#undef PERFDM_DARSHAN_MODULE_ENUM

#define PERFDM_DARSHAN_MODULE_NAME(id, name, version) name,
// Module names as darshan-parser prints them, by module id.
inline constexpr const char* module_names[] = {PERFDM_DARSHAN_MODULES(PERFDM_DARSHAN_MODULE_NAME)};
#undef PERFDM_DARSHAN_MODULE_NAME

#define PERFDM_DARSHAN_MODULE_VERSION(id, name, version) version,
// The record format version each module writes in Darshan 3.5.0 (0: not built by default).
inline constexpr std::uint32_t module_versions[] = {
    PERFDM_DARSHAN_MODULES(PERFDM_DARSHAN_MODULE_VERSION)};
#undef PERFDM_DARSHAN_MODULE_VERSION

static_assert(sizeof(module_names) / sizeof(module_names[0]) == known_module_count);

// The log format this project writes and the newest it reads.
inline constexpr char log_version[] = "3.41";
// Darshan's magic number: the second 8 bytes of the header, as an int64 in the writer's byte
// order, so a reader that sees it byte-swapped knows the log came from the other byte order.
inline constexpr std::int64_t magic_nr = 6567223;

// How every region after the header is compressed (header byte `comp_type`).
enum compression : unsigned char { zlib = 0, bzip2 = 1, none = 2 };

// Header of format 3.41 (1328 bytes, never compressed):
//   char version_string[8]; int64 magic_nr; uint8 comp_type (+7 padding); uint64 partial_flag;
//   {uint64 off, len} name_map; {uint64 off, len} mod_map[64]; uint32 mod_ver[64].
// Offsets and lengths are in the file (compressed bytes). The job region starts right after
// the header and ends where the name region starts.
inline constexpr std::size_t max_modules = 64;
inline constexpr std::size_t header_size = 1328;
inline constexpr std::size_t header_magic_offset = 8;
inline constexpr std::size_t header_comp_type_offset = 16;
inline constexpr std::size_t header_partial_flag_offset = 24;
inline constexpr std::size_t header_name_map_offset = 32;
inline constexpr std::size_t header_mod_map_offset = 48;
inline constexpr std::size_t header_mod_ver_offset = header_mod_map_offset + 16 * max_modules;
static_assert(header_mod_ver_offset + 4 * max_modules == header_size);

// Header of formats 3.00 to 3.21 (360 bytes): 16 modules and a 32-bit partial flag:
//   char version_string[8]; int64 magic_nr; uint8 comp_type (+3 padding);
//   uint32 partial_flag; name_map; mod_map[16]; uint32 mod_ver[16].
inline constexpr std::size_t max_modules_3_00 = 16;
inline constexpr std::size_t header_size_3_00 = 360;
inline constexpr std::size_t header_partial_flag_offset_3_00 = 20;
inline constexpr std::size_t header_name_map_offset_3_00 = 24;
inline constexpr std::size_t header_mod_map_offset_3_00 = 40;
inline constexpr std::size_t header_mod_ver_offset_3_00 =
    header_mod_map_offset_3_00 + 16 * max_modules_3_00;
static_assert(header_mod_ver_offset_3_00 + 4 * max_modules_3_00 == header_size_3_00);

// Module ids moved twice: logs before 3.20 have no H5D (ids from H5D on are one lower), and
// logs before 3.41 have no PNETCDF_VAR (ids from PNETCDF_VAR on are one lower). The older
// formats' module names: "HDF5" for H5F before 3.20, "PNETCDF" for PNETCDF_FILE before 3.41.

// The job record, first in the job region (format 3.41, 1080 bytes):
//   int64 uid, start_time_sec, start_time_nsec, end_time_sec, end_time_nsec, nprocs, jobid;
//   char metadata[1024] ("key=value\n" lines).
// Formats before 3.41 have no nsec fields (1064 bytes). The rest of the region (up to 4096
// bytes in all) is the command line, then "\n<fs type>\t<mount point>" per mount.
inline constexpr std::size_t job_record_region_size = 4096;
inline constexpr std::size_t job_metadata_size = 1024;
inline constexpr std::size_t job_size = 7 * 8 + job_metadata_size;
inline constexpr std::size_t job_size_3_00 = 5 * 8 + job_metadata_size;
inline constexpr std::size_t exe_len = job_record_region_size - job_size - 1;  // 3015

// Every record starts with {uint64 id; int64 rank}; rank -1 is a file every rank shared.
inline constexpr std::size_t base_record_size = 16;

// Name records: format 3.10 and later {uint64 id; NUL-terminated name}; format 3.00
// {uint64 id; uint32 length; name bytes}.

// The runtime's limits (darshan-runtime/lib/darshan.h, darshan-common.h, darshan-dxt.c).
inline constexpr std::size_t default_module_memory = 4u << 20;  // all modules together
inline constexpr std::size_t default_name_memory = 1u << 20;
inline constexpr std::size_t default_records_per_module = 1024;
inline constexpr std::size_t dxt_memory_per_module = 2u << 20;
inline constexpr std::size_t common_values_tracked = 32;  // distinct access sizes / strides
inline constexpr std::size_t max_heatmaps = 8;
inline constexpr std::size_t max_heatmap_bins = 200;
inline constexpr double initial_heatmap_bin_width = 0.1;  // seconds
inline constexpr std::size_t max_mounts = 64;
inline constexpr std::size_t dxt_hostname_size = 64;

}  // namespace perfdm::darshan
