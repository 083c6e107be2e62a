/* A statically linked program (tests/io_faults_test.cpp): LD_PRELOAD cannot reach it. It writes
 * "static" to the file named by its argument. */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0600);
  if (fd < 0) return 3;
  if (write(fd, "static", 6) != 6) return 4;
  return close(fd) == 0 ? 0 : 5;
}
