// The readings of a small watched process for DyPer's periodic REPORT, shared by the tests of
// the report's arithmetic and of its printing: pid 7 ("app") on 2 processors, a profile of
// three items (main, burn, burn at line 12) over 100 samples 46 ms apart, a thread that ran
// and one that was only sampled and has ended, two live threads and their memory. Each test
// adds what it checks beyond that.
#pragma once

#include "dyper/dyper_report.hpp"

namespace perfdm::dyper_test {

inline dyper_report_readings report_readings() {
  cpu_profile_report profile;
  profile.pid = 7;
  profile.montime = 2.5;
  profile.samples = 100;
  profile.active = 40;
  profile.stacks = 300;
  profile.checktime = 0.046;
  profile.cost = 0.012;
  profile.items = {{"app@main", "", 40, 0, "NORMAL"},
                   {"app@burn", "", 40, 40, "NORMAL"},
                   {"app@burn@12", "app.c", 40, 40, "NORMAL"}};
  profile.threads = {{7, "app", 100, 0, 40, 0, 0, 60}, {8, "gone", 30, 0, 0, 30, 0, 0}};
  dyper_report_readings r;
  r.now_ms = 1'795'459'678'190;
  r.nano = 358'516'429'759;
  r.pid = 7;
  r.processors = 2;
  r.profile = profile;
  r.have_proc = true;
  r.threads = {{7, "app", "running", 1'795'459'668'176, 3930, 75, 10, 2},
               {9, "worker", "sleeping", 1'795'459'669'000, 0, 0.5, 100, 0}};
  r.memory = {100 << 20, 60 << 20, 132 << 10, 8 << 20, 4 << 20, 0};
  r.report_cost_ms = 0.4;
  return r;
}

}  // namespace perfdm::dyper_test
