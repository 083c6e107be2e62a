// What attach needs to know about, and do to, another running process: whether it exists,
// its executable and name, where its executable is loaded, and reading and writing bytes of
// its memory (process_vm_readv/writev, else /proc/PID/mem). docs/FRAMES.md §5.
// Every failure is an attach_error that names the pid and the action: ESRCH/ENOENT are
// no_such_process, EPERM/EACCES not_permitted, anything else memory_access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "shm/shm_error.hpp"

namespace perfdm::shm {

// The path of the program's executable, as the kernel reports it (readlink /proc/PID/exe;
// ends in " (deleted)" when the file was removed after the program started).
std::string process_executable(int pid);

// The path to open for reading the program's executable: /proc/PID/exe, which reaches the
// file even when it was deleted or lives in another mount namespace.
std::string process_executable_file(int pid);

// The program's name (/proc/PID/comm, without the newline).
std::string process_name(int pid);

// The start of the lowest mapping of the main executable in /proc/PID/maps: where the
// executable's lowest PT_LOAD segment (rounded down to a page) was loaded.
std::uint64_t executable_load_base(int pid);

// The run-time address of a symbol of the main executable, from its link-time value:
// `value` for a fixed-address executable; for a position-independent one, shifted by the
// distance between where the lowest PT_LOAD was linked (`lowest_load_address`, rounded down
// to a page as the loader maps it) and where it was loaded (`load_base`).
std::uint64_t runtime_address(std::uint64_t value, bool position_independent,
                              std::uint64_t lowest_load_address, std::uint64_t load_base);

// How read_memory/write_memory reach the other process. `automatic` uses
// process_vm_readv/writev and falls back to /proc/PID/mem when they are refused or missing;
// `proc_mem` uses /proc/PID/mem only (tests use it to exercise the fallback).
enum class memory_method { automatic, proc_mem };

void read_memory(int pid, std::uint64_t address, void* out, std::size_t size,
                 memory_method method = memory_method::automatic);
void write_memory(int pid, std::uint64_t address, const void* in, std::size_t size,
                  memory_method method = memory_method::automatic);

// The attach_error for a failed system call: the code from errno, and a message naming the
// pid, the action and the system's words.
attach_error process_error(int pid, const std::string& action, int errno_value);

}  // namespace perfdm::shm
