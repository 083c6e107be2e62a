// `perfdm top`'s screen as plain text: what the engine's replies say (PROFILE: the on-CPU
// profile and each thread's states; STACKS: one sample of every thread, whose blocked stacks
// make the off-CPU profile; FINDINGS: the search's answer) turned into at most `height` lines
// of at most `width` columns. The terminal (ncurses) only draws these lines
// (cli/top_command.cpp), so the screen can be tested without a terminal.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "messages/native_messages.hpp"

namespace perfdm::top {

enum class view { cpu, offcpu, threads, findings };
const char* view_name(view v);  // "on-CPU", "off-CPU", "threads", "findings"

struct function_row {
  std::string name;  // "crunch (pc_cpu)"
  double self = 0;   // share of the samples with it innermost
  double total = 0;  // share of the samples with it on the stack
};

class top_model {
 public:
  // A process's PROFILE (cumulative since it was watched): replaces what it said before.
  void profile(const cpu_profile_report& r);
  // A process's STACKS: counted once per sample time; its blocked threads feed off-CPU.
  void stacks(const stacks_report& r);
  // The search's findings, ranked (their TEXT).
  void findings(std::vector<std::string> lines) { findings_ = std::move(lines); }
  // The first line's right end ("12.3 s", "exited with status 0").
  void status(std::string s) { status_ = std::move(s); }

  std::vector<function_row> on_cpu() const;
  std::vector<function_row> off_cpu() const;
  std::uint64_t on_cpu_samples() const;
  std::uint64_t off_cpu_samples() const { return off_samples_; }

  std::vector<std::string> screen(view v, int width, int height) const;

 private:
  std::map<std::int32_t, cpu_profile_report> profiles_;  // by pid
  std::map<std::int32_t, double> stacks_seen_;            // pid: the last sample time counted
  std::map<std::int32_t, std::string> thread_state_;      // tid: its state at the last STACKS
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> off_;  // name: self, total
  std::uint64_t off_samples_ = 0;
  std::vector<std::string> findings_;
  std::string status_;
};

// "module@function" (PROFILE's names) as "function (module)"; "" for a source line item.
std::string function_name(const std::string& profile_name);
// The first `columns` columns of UTF-8 text `s`, padded with spaces to exactly `columns`.
std::string fit(const std::string& s, int columns);

}  // namespace perfdm::top
