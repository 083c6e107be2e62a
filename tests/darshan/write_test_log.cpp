// write_test_log OUT FORMAT COMPRESSION [swapped]: writes the test log of
// tests/darshan/test_log_contents.hpp (FORMAT 3.00..3.41, COMPRESSION zlib|bzip2|none,
// "swapped": in the other byte order).
#include <cstring>
#include <iostream>

#include "tests/darshan/test_log_contents.hpp"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: write_test_log OUT FORMAT zlib|bzip2|none [swapped]\n";
    return 2;
  }
  perfdm::darshan::writer_options o;
  o.version = argv[2];
  o.compression = std::strcmp(argv[3], "bzip2") == 0  ? perfdm::darshan::bzip2
                  : std::strcmp(argv[3], "none") == 0 ? perfdm::darshan::none
                                                      : perfdm::darshan::zlib;
  o.other_byte_order = argc > 4 && std::strcmp(argv[4], "swapped") == 0;
  try {
    perfdm::darshan_test::write_test_log(argv[1], o);
  } catch (const std::exception& e) {
    std::cerr << "write_test_log: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
