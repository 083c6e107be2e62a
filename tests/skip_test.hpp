// A test that cannot run here (a program, a permission or the disk space it needs is missing)
// is counted as skipped, never as passed. skip_test prints why and marks the run; the test
// returns at once (`return skip_test("why");`) and main (tests/main.cpp) exits with
// skip_exit_code, which ctest counts as "Skipped" (SKIP_RETURN_CODE, tests/CMakeLists.txt).
// A run with a failed check still fails, skipped or not. The shell and node tests do the same
// through tests/needs.sh.
#pragma once

#include <iostream>
#include <string>

// Also the exit code of tests/needs.sh: one number for every kind of test.
constexpr int skip_exit_code = 77;

// Whether a test of this run skipped.
inline bool& any_test_skipped() {
  static bool skipped = false;
  return skipped;
}

inline void skip_test(const std::string& why) {
  std::cout << "SKIPPED: " << why << std::endl;
  any_test_skipped() = true;
}
