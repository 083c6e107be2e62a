#include "iolib/real_calls.hpp"

#include <dlfcn.h>

namespace perfdm::io::real {

#define PERFDM_IO_REAL_DEFINE(name, ret, params) name##_type name##_slot = nullptr;
PERFDM_IO_REAL_CALLS(PERFDM_IO_REAL_DEFINE)
#undef PERFDM_IO_REAL_DEFINE

void* resolve(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  // glibc 2.33 and later keep __xstat & co. only as compatibility symbols for programs built
  // before; ask for their only version when the default lookup does not find them.
  if (f == nullptr) f = dlvsym(RTLD_NEXT, name, "GLIBC_2.2.5");
  return f;
}

}  // namespace perfdm::io::real
