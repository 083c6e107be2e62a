// The ends of a process image the library would not otherwise see: exec (the image is
// replaced: its segment is stamped "exec'd" with its end time, and stamped back running if
// exec fails), and _exit/_Exit (no destructor runs: the segment is stamped as at exit, and the
// process that started the job writes its log). glibc's own exec calls (execvp calling
// execve, posix_spawn) are internal: each public name is wrapped.
#include <stdarg.h>
#include <unistd.h>

#include <vector>

#include "iolib/counting.hpp"
#include "iolib/library_start.hpp"

using namespace perfdm::io;
using namespace perfdm::io::lib;

namespace {

template <class Call>
int exec_call(Call&& call) {
  const bool stamped = image_ending();
  const int r = call();
  if (stamped) image_goes_on();  // exec failed: this image runs on
  return r;
}

// The arguments of execl & co. after the first, up to the null pointer.
std::vector<char*> arguments(const char* first, va_list ap) {
  std::vector<char*> argv{const_cast<char*>(first)};
  while (char* a = va_arg(ap, char*)) argv.push_back(a);
  argv.push_back(nullptr);
  return argv;
}

}  // namespace

PERFDM_IO_WRAP(int, execve, (const char* path, char* const argv[], char* const envp[])) {
  return exec_call([&] { return real::execve()(path, argv, envp); });
}

PERFDM_IO_WRAP(int, execv, (const char* path, char* const argv[])) {
  return exec_call([&] { return real::execv()(path, argv); });
}

PERFDM_IO_WRAP(int, execvp, (const char* file, char* const argv[])) {
  return exec_call([&] { return real::execvp()(file, argv); });
}

PERFDM_IO_WRAP(int, execvpe, (const char* file, char* const argv[], char* const envp[])) {
  return exec_call([&] { return real::execvpe()(file, argv, envp); });
}

PERFDM_IO_WRAP(int, fexecve, (int fd, char* const argv[], char* const envp[])) {
  return exec_call([&] { return real::fexecve()(fd, argv, envp); });
}

PERFDM_IO_WRAP(int, execl, (const char* path, const char* arg, ...)) {
  va_list ap;
  va_start(ap, arg);
  std::vector<char*> argv = arguments(arg, ap);
  va_end(ap);
  return exec_call([&] { return real::execv()(path, argv.data()); });
}

PERFDM_IO_WRAP(int, execlp, (const char* file, const char* arg, ...)) {
  va_list ap;
  va_start(ap, arg);
  std::vector<char*> argv = arguments(arg, ap);
  va_end(ap);
  return exec_call([&] { return real::execvp()(file, argv.data()); });
}

// execle: the environment follows the null pointer that ends the arguments.
PERFDM_IO_WRAP(int, execle, (const char* path, const char* arg, ...)) {
  va_list ap;
  va_start(ap, arg);
  std::vector<char*> argv = arguments(arg, ap);
  char* const* envp = va_arg(ap, char* const*);
  va_end(ap);
  return exec_call([&] { return real::execve()(path, argv.data(), envp); });
}

PERFDM_IO_WRAP(void, _exit, (int status)) {
  finish_process();
  real::_exit()(status);
  __builtin_unreachable();
}

PERFDM_IO_WRAP(void, _Exit, (int status)) {
  finish_process();
  real::_Exit()(status);
  __builtin_unreachable();
}
