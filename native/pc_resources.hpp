// The resource names of the Performance Consultant's metrics (docs/NATIVE.md §8): three
// hierarchies, each a root resource with its levels below it.
//   /Code/<module>/<function>                       module: the ELF file's basename
//   /Machine/<host>/<process>{<pid>}/<thread>{<tid>} process, thread: their comm
//   /SyncObject/<kind>/<object>                      kind: Mutex, CondVar, Join, ...
//   /File/<path's directories>/<file>, /File/socket:[inode], /File/pipe:[inode]
// A name's parts are made safe for a resource name and a FOCUS list: `/` and `,` (which
// would split it) and white space become `_`; an empty part is `?`. Functions are named
// without their parameter list and without `(anonymous namespace)::`, so that
// `(anonymous namespace)::tokenize(std::string const&)` is `tokenize`; in a function's part
// those characters (and `%`) are written %XX instead, so that the name reads back whole
// (pc/findings.hpp readable_function): Go's `crypto/sha256.block` is
// `crypto%2Fsha256.block`, an unnamed JIT frame `[jit%20node]`. Plain C++.
#pragma once

#include <string>

#include "native/stack_sampler.hpp"

namespace perfdm::native {

inline constexpr const char* code_root = "/Code";
inline constexpr const char* machine_root = "/Machine";
inline constexpr const char* sync_object_root = "/SyncObject";
inline constexpr const char* file_root = "/File";

// One level of a resource name: `/`, `,` and white space replaced by `_`, "" as "?".
std::string resource_part(const std::string& text);

// A demangled function name as a person reads it: without its parameter list and
// `(anonymous namespace)::`; "" (unknown) is "?".
std::string function_name(const std::string& function);

// A demangled function name as its /Code part: function_name with %XX for `/ , %` and white
// space (see above).
std::string function_part(const std::string& function);

// A module's file name (a path) as its /Code part: the basename; "" is "?".
std::string module_part(const std::string& module);

// /Code/<module>/<function> of a stack frame.
std::string code_resource(const stack_frame& frame);

// /Machine/<host>/<process>{<pid>} and the thread below it.
std::string process_resource(const std::string& host, const std::string& process, int pid);
std::string thread_resource(const std::string& host, const std::string& process, int pid,
                            const std::string& thread, int tid);

// /SyncObject/<kind>/<object>; /SyncObject/<kind> when the object is "" (not known).
std::string sync_object_resource(const std::string& kind, const std::string& object);

// The /File resource of what a descriptor names (its /proc/PID/fd link): a path keeps its
// directories as levels (`/tmp/db/test.db` is /File/tmp/db/test.db); anything else is one
// level, as the kernel names it (`socket:[4711]`, `pipe:[812]`, `anon_inode:[eventfd]`).
// "" for "".
std::string file_resource(const std::string& target);

// This machine's host name (gethostname), as a resource part.
std::string host_part();

}  // namespace perfdm::native
