// REPORT's THREADS section as DyPer's agent writes it, from its struct: each thread's states
// over the stack samples with what the system says of it now, and the threads that ended. It
// reads back with its parser (RapidXML).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/agent_reply_xml.hpp"

namespace perfdm {

// THREADDATA: the class DyPer files a thread under.
struct report_thread_class {
  std::int64_t tid = 0;
  std::string class_name;
  bool operator==(const report_thread_class& o) const {
    return tid == o.tid && class_name == o.class_name;
  }
};

// What a live thread has used so far (an ended one has no such attributes).
struct report_thread_cpu {
  double user_s = 0, system_s = 0;  // finite
  std::uint64_t switches = 0;       // voluntary context switches
  std::uint64_t preemptions = 0;    // involuntary ones
  bool operator==(const report_thread_cpu& o) const {
    return user_s == o.user_s && system_s == o.system_s && switches == o.switches &&
           preemptions == o.preemptions;
  }
};

// The sample counts of one thread: all, and by state.
struct report_thread_states {
  std::uint64_t total = 0, blocked_total = 0, waits_total = 0;  // TOTAL TOTBLKS TOTWAITS
  std::uint64_t samples = 0, blocks = 0, runs = 0, waits = 0, ios = 0, sleeps = 0;
  bool operator==(const report_thread_states& o) const {
    return total == o.total && blocked_total == o.blocked_total && waits_total == o.waits_total &&
           samples == o.samples && blocks == o.blocks && runs == o.runs && waits == o.waits &&
           ios == o.ios && sleeps == o.sleeps;
  }
};

struct report_thread {
  std::int64_t id = 0;
  std::string name;
  std::string state;                     // running, sleeping, …, ended
  std::optional<report_thread_cpu> cpu;  // a live thread's
  std::string thread;                    // THREAD: how the thread is shown
  std::int64_t start_ms = 0, last_ms = 0;
  std::optional<std::int64_t> end_ms;  // an ended thread's: END, and TERMINATED='true'
  report_thread_states states;
  bool operator==(const report_thread& o) const {
    return id == o.id && name == o.name && state == o.state && cpu == o.cpu && thread == o.thread &&
           start_ms == o.start_ms && last_ms == o.last_ms && end_ms == o.end_ms &&
           states == o.states;
  }
};

struct agent_report_threads {
  std::uint64_t count = 0;  // the live threads
  std::vector<report_thread_class> classes;
  std::vector<report_thread> threads;
  bool operator==(const agent_report_threads& o) const {
    return count == o.count && classes == o.classes && threads == o.threads;
  }
};

// `<THREADS COUNT><THREADDATA TID CLASS/>…<THREAD ID NAME STATE [USER SYSTEM SWITCHES
// PREEMPTIONS] THREAD START LAST [END TERMINATED] TOTAL TOTBLKS TOTWAITS SAMPLES BLOCKS RUNS
// WAITS IOS SLEEPS/>…</THREADS>`.
std::string print_agent_report_threads(const agent_report_threads& x);
// The section of print_agent_report_threads's text; nothing when `text` is not one.
std::optional<agent_report_threads> parse_agent_report_threads(std::string_view text);
// The same, of an element already read (the MONITOR parser's child).
std::optional<agent_report_threads> read_agent_report_threads(const agent_xml::node* n);

}  // namespace perfdm
