// Which loaded modules are the system's rather than the program's: code a process calls but a
// person does not change. Stack rules skip these frames to find the program's own caller, and
// findings never name them as the code to fix. A module is given by its file name or its path
// ("libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6").
#pragma once

#include <string_view>

namespace perfdm::proc {

// The C library: glibc's libc.so.6 (libc-2.x.so on older ones), and libpthread.so.0, a
// separate module before glibc 2.34.
bool c_library_module(std::string_view module);

// The dynamic loader (ld-linux-x86-64.so.2) and the kernel's vDSO ("[vdso]").
bool loader_module(std::string_view module);

// The C and C++ runtimes, the loader and the vDSO, and perfdm's own I/O library, preloaded
// between the program and the C library.
bool system_module(std::string_view module);

}  // namespace perfdm::proc
