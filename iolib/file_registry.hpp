// Which record a file name belongs to, as Darshan's core decides it: the name is cleaned
// (relative paths made absolute with the working directory, "//" and "/./" folded), its id is
// Darshan's hash of the cleaned name, and the first call that names the file creates its
// record in the segment: unless the module is full (then the module is marked partial, even
// for a name that would have been left out, as Darshan's core checks room first), the name is
// excluded, or the name area is full (partial too). One name entry per file, shared by its
// POSIX, STDIO and MPI-IO records. Calls hold the registry lock, which fork also takes.
#pragma once

#include <stdio.h>

#include <cstdint>

namespace perfdm::io::lib {

// Sets up the id index for `records` records in all (at start-up).
bool registry_allocate(std::uint32_t records);

// The registry lock (a spin lock; fork takes it so a child never inherits it held).
void registry_lock();
void registry_unlock();

// Cleans `path` (opened relative to directory descriptor `dirfd`: AT_FDCWD or a descriptor
// whose record names the directory, as Darshan's openat does) into `out` (`size` bytes).
// Returns false when the result does not fit.
bool clean_name(int dirfd, const char* path, char* out, std::size_t size);

// The name of descriptor `fd` as /proc/self/fd gives it, into `out` (PATH_MAX bytes); false
// when it has none that leads to it (not a path, or the file was deleted).
bool descriptor_name(int fd, char* out);

// The POSIX record of a cleaned name (index + 1), created when needed; 0 when it is not
// counted. `create` false: only an existing record (rename's source).
std::int32_t posix_record(const char* cleaned, bool create = true);
std::int32_t stdio_record(const char* cleaned, bool create = true);
std::int32_t mpiio_record(const char* cleaned);

// The name of a POSIX or STDIO record (NUL-terminated, in the segment).
const char* posix_name(std::int32_t index);
const char* stdio_name(std::int32_t index);

// Points `fd` at POSIX record `record` (index + 1; 0 forgets the descriptor).
void set_fd_record(int fd, std::int32_t record);
// The highest descriptor ever pointed at a record (close_range scans no further).
unsigned highest_fd_record();
// Points `fp` (through its descriptor) at STDIO record `record` (index + 1), or forgets it.
void set_stream_record(FILE* fp, std::int32_t record);
void forget_stream(FILE* fp);

// The working directory changed: the next relative name reads it again.
void forget_working_directory();

// Creates the records of <STDIN>, <STDOUT> and <STDERR> (Darshan's STDIO module does at its
// start; they are left out of the log if never read or written).
void add_standard_streams();

}  // namespace perfdm::io::lib
