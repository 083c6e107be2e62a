#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "tests/skip_test.hpp"

// Catch2's exit code (failures, capped), or skip_exit_code when a test skipped and none
// failed (tests/skip_test.hpp).
int main(int argc, char* argv[]) {
  int failed = Catch::Session().run(argc, argv);
  if (failed != 0) return failed == skip_exit_code ? 1 : failed;
  return any_test_skipped() ? skip_exit_code : 0;
}
