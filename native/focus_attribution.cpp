#include "native/focus_attribution.hpp"

#include <algorithm>
#include <charconv>

#include "native/data_io.hpp"
#include "native/pc_resources.hpp"

namespace perfdm::native {

namespace {

std::vector<std::string> split_path(const std::string& resource) {
  std::vector<std::string> parts;
  std::size_t at = 1;
  while (at <= resource.size()) {
    auto slash = resource.find('/', at);
    if (slash == std::string::npos) slash = resource.size();
    parts.push_back(resource.substr(at, slash - at));
    at = slash + 1;
  }
  return parts;
}

// "name{123}" → name "name", id 123; without a well-formed id, the whole part is the name.
void split_id(const std::string& part, std::string& name, int& id) {
  name = part;
  id = 0;
  if (part.size() < 3 || part.back() != '}') return;
  auto open = part.rfind('{');
  if (open == std::string::npos) return;
  int x = 0;
  auto first = part.data() + open + 1, last = part.data() + part.size() - 1;
  auto [p, ec] = std::from_chars(first, last, x);
  if (ec != std::errc{} || p != last || x <= 0) return;
  name = part.substr(0, open);
  id = x;
}

}  // namespace

const std::array<pc_metric_definition, pc_metric_count>& pc_metric_definitions() {
  static const std::array<pc_metric_definition, pc_metric_count> all = {{
      {pc_metric::cpu, "cpu", true, "s"},
      {pc_metric::sync_wait, "sync_wait", true, "s"},
      {pc_metric::io_wait, "io_wait", true, "s"},
      {pc_metric::io_ops, "io_ops", true, "ops"},
      {pc_metric::io_bytes, "io_bytes", true, "bytes"},
      {pc_metric::active_threads, "active_threads", false, "threads"},
  }};
  return all;
}

std::optional<pc_metric> find_pc_metric(const std::string& name) {
  for (auto& d : pc_metric_definitions())
    if (name == d.name) return d.metric;
  return std::nullopt;
}

pc_focus parse_pc_focus(const std::vector<std::string>& resources) {
  pc_focus f;
  for (auto& r : resources) {
    if (r.empty() || r == "/") continue;
    if (r.front() != '/') {
      f.matches_nothing = true;
      continue;
    }
    auto parts = split_path(r);
    if (std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); })) {
      f.matches_nothing = true;
      continue;
    }
    const auto& root = parts[0];
    if (root == "Code" && parts.size() <= 3) {
      if (parts.size() >= 2) f.code.push_back({parts[1], parts.size() == 3 ? parts[2] : ""});
    } else if (root == "Machine" && parts.size() <= 4) {
      if (parts.size() >= 2) {
        pc_focus::machine_part m;
        m.host = parts[1];
        if (parts.size() >= 3) split_id(parts[2], m.process, m.pid);
        if (parts.size() == 4) split_id(parts[3], m.thread, m.tid);
        f.machine.push_back(std::move(m));
      }
    } else if (root == "File") {
      if (parts.size() >= 2) f.file.push_back(r);
    } else if (root == "SyncObject" && parts.size() <= 3) {
      if (parts.size() >= 2) f.sync.push_back({parts[1], parts.size() == 3 ? parts[2] : ""});
    } else {
      f.matches_nothing = true;
    }
  }
  return f;
}

bool seen_in_io_call(thread_activity activity, const std::vector<stack_frame>& frames,
                     const io_predicate& is_io) {
  if (activity == thread_activity::ios) return true;
  if (!is_io) return false;
  return std::any_of(frames.begin(), frames.end(), [&](const stack_frame& frame) {
    if (frame.function.empty()) return false;
    auto slash = frame.module.rfind('/');
    return is_io(slash == std::string::npos ? frame.module : frame.module.substr(slash + 1),
                 plain_function_name(frame.function));
  });
}

sampled_thread describe_thread(const thread_stack& thread, thread_activity activity,
                               const thread_syscall& syscall, sync_object_namer* namer) {
  sampled_thread t;
  t.tid = thread.tid;
  t.name = thread.name;
  t.activity = activity;
  t.in_io_call = activity == thread_activity::ios;
  t.sync_call = sync_call(thread.frames);
  for (auto& frame : thread.frames) {
    std::pair<std::string, std::string> f{module_part(frame.module), function_part(frame.function)};
    if (std::find(t.functions.begin(), t.functions.end(), f) == t.functions.end())
      t.functions.push_back(std::move(f));
  }
  auto runtime = match_runtime_wait(thread.state, thread.frames);
  t.role = runtime.role;
  t.serializer = runtime.serializer;
  bool waits = activity == thread_activity::blocks || activity == thread_activity::waits;
  if (runtime.role == wait_role::waiting && !runtime.kind.empty()) {
    // The runtime names its wait: its kind, and its object or the futex it sleeps on.
    auto o = identify_sync_object(thread.frames, syscall);
    t.waits_on = {runtime.kind, runtime.object.empty() ? o.object : runtime.object, o.call_site};
  } else if (waits || runtime.role == wait_role::waiting) {
    t.waits_on =
        namer ? namer->name(thread.frames, syscall) : identify_sync_object(thread.frames, syscall);
  }
  return t;
}

bool focus_matches(const pc_focus& focus, const sampled_process& process,
                   const sampled_thread& thread) {
  if (focus.matches_nothing) return false;
  for (auto& c : focus.code) {
    bool on_stack = std::any_of(thread.functions.begin(), thread.functions.end(), [&](auto& f) {
      return f.first == c.module && (c.function.empty() || f.second == c.function);
    });
    if (!on_stack) return false;
  }
  for (auto& m : focus.machine) {
    if (m.host != process.host) return false;
    if (m.pid != 0 ? m.pid != process.pid
                   : !m.process.empty() && m.process != resource_part(process.name))
      return false;
    if (m.tid != 0 ? m.tid != thread.tid
                   : !m.thread.empty() && m.thread != resource_part(thread.name))
      return false;
  }
  for (auto& s : focus.sync) {
    if (thread.waits_on.kind.empty() || s.kind != resource_part(thread.waits_on.kind)) return false;
    if (!s.object.empty() && (thread.waits_on.object.empty() ||
                              s.object != resource_part(thread.waits_on.object)))
      return false;
  }
  for (auto& f : focus.file) {
    auto& t = thread.file;
    if (t.size() < f.size() || t.compare(0, f.size(), f) != 0 ||
        (t.size() > f.size() && t[f.size()] != '/'))
      return false;
  }
  return true;
}

bool counts_as_cpu(const sampled_thread& thread) {
  return thread.activity == thread_activity::runs && thread.role == wait_role::none;
}

bool counts_as_sync_wait(const sampled_thread& thread) {
  if (thread.role == wait_role::waiting) return true;
  return (thread.activity == thread_activity::blocks ||
          thread.activity == thread_activity::waits) &&
         thread.role != wait_role::idle && !waits_for_own_work(thread.waits_on);
}

bool counts_as_io(const sampled_thread& thread) {
  return thread.activity == thread_activity::ios && thread.role == wait_role::none;
}

bool counts_as_idle(const sampled_thread& thread) {
  if (thread.role == wait_role::idle) return true;
  return (thread.activity == thread_activity::blocks ||
          thread.activity == thread_activity::waits) &&
         thread.role == wait_role::none && waits_for_own_work(thread.waits_on);
}

double thread_amount(pc_metric metric, const sampled_thread& thread, double covered, bool at_code) {
  switch (metric) {
    case pc_metric::cpu:
      return counts_as_cpu(thread) ? covered : 0;
    case pc_metric::sync_wait:
      return counts_as_sync_wait(thread) ? covered : 0;
    case pc_metric::io_wait:
      return counts_as_io(thread) ? covered : 0;
    case pc_metric::io_ops:
      return at_code ? thread.stack_io_ops : thread.io_ops;
    case pc_metric::io_bytes:
      return at_code ? thread.stack_io_bytes : thread.io_bytes;
    case pc_metric::active_threads:
      return 1;
  }
  return 0;
}

std::vector<std::string> thread_resources(const sampled_process& process,
                                          const sampled_thread& thread) {
  std::vector<std::string> out;
  for (auto& [module, function] : thread.functions)
    out.push_back(std::string(code_root) + "/" + module + "/" + function);
  out.push_back(thread_resource(process.host, process.name, process.pid, thread.name, thread.tid));
  if (!thread.waits_on.kind.empty())
    out.push_back(sync_object_resource(thread.waits_on.kind, thread.waits_on.object));
  if (!thread.file.empty()) out.push_back(thread.file);
  return out;
}

}  // namespace perfdm::native
