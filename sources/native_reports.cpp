// See native_reports.hpp.
#include "sources/native_reports.hpp"

#include "messages/profile_item_name.hpp"
#include "native/proc_stats.hpp"

namespace perfdm {

cpu_profile_report profile_report(std::int32_t pid, const native::profile_summary& summary,
                                  const std::vector<native::thread_state_counts>& threads,
                                  const code_type_of& type_of) {
  cpu_profile_report r;
  r.pid = pid;
  r.montime = summary.montime;
  r.samples = summary.samples;
  r.active = summary.active;
  r.last = summary.last;
  r.stacks = summary.stacks;
  // A detailed function's lines follow it and share its code class.
  std::string function, type;
  for (auto& i : summary.items) {
    if (i.detailed) ++r.detailed;
    if (!names_line_of(i.name, function)) {
      function = i.name;
      auto at = i.name.find('@');
      type = at == std::string::npos
                 ? type_of("", native::plain_function_name(i.name))
                 : type_of(i.name.substr(0, at), native::plain_function_name(i.name.substr(at + 1)));
    }
    r.items.push_back(profile_entry{i.name, i.file, i.total, i.base, type});
  }
  for (auto& t : threads)
    r.threads.push_back(
        thread_state_entry{t.tid, t.name, t.samples, t.blocks, t.runs, t.waits, t.ios, t.sleeps});
  return r;
}

stacks_report stacks_report_of(std::int32_t pid, double time, const native::stack_snapshot& snap) {
  stacks_report r;
  r.pid = pid;
  r.time = time;
  for (auto& t : snap.threads) {
    thread_entry e{t.tid, t.name, native::state_name(t.state), {}};
    for (auto& f : t.frames)
      e.stack.push_back(stack_entry{f.function, f.file, f.line, f.module, f.pc});
    r.threads.push_back(std::move(e));
  }
  return r;
}

stacks_report stacks_report_of(std::int32_t pid, double time,
                               const std::vector<native::thread_stats>& threads) {
  stacks_report r;
  r.pid = pid;
  r.time = time;
  for (auto& t : threads)
    r.threads.push_back(thread_entry{t.tid, t.name, native::state_name(t.state), {}});
  return r;
}

}  // namespace perfdm
