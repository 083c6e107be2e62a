// Tries to attach to a process as another user, for the "not permitted" test:
//   attach_probe UID PID
// drops to UID (group UID, no supplementary groups), calls perfdm::shm::attach(PID) and
// prints "attached" or "error <attach_errc words>" and, on the next line, the message.
// Exits 0 when it could try, 2 when it could not drop privileges or was misused.
#include <grp.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "shm/attach.hpp"
#include "shm/segment_format.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: attach_probe UID PID\n");
    return 2;
  }
  const auto uid = static_cast<uid_t>(std::atoi(argv[1]));
  const int pid = std::atoi(argv[2]);
  if (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0) {
    std::perror("attach_probe: cannot drop privileges");
    return 2;
  }
  perfdm::shm::attach_options options;
  options.create_segment = [](int p, const std::string&, const std::string&, std::uint64_t h,
                              std::uint32_t) {
    return perfdm::shm::format::segment_name(p, h);  // never reached when attach is refused
  };
  try {
    perfdm::shm::attach(pid, options);
    std::printf("attached\n");
  } catch (const perfdm::shm::attach_error& e) {
    std::printf("error %s\n%s\n", perfdm::shm::to_string(e.code), e.what());
  }
  return 0;
}
