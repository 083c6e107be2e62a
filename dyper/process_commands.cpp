#include "dyper/process_commands.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "dyper/command_argument.hpp"
#include "dyper/process_variables.hpp"
#include "messages/agent_classmodel_reply.hpp"
#include "messages/agent_list_reply.hpp"
#include "messages/agent_threads_reply.hpp"
#include "messages/agent_whoru_reply.hpp"
#include "messages/dypatch_replies.hpp"
#include "messages/xml_codec.hpp"
#include "shm/codegen.hpp"
#include "shm/schema.hpp"
#include "shm/shm_error.hpp"
#include "proc/process_facts.hpp"

namespace perfdm {

namespace {

// ---------------------------------------------------------------------------------------
// Code classes.

const char* const class_types[] = {"NORMAL", "SYSTEM", "IO", "SYSTEM_IO"};

std::string class_type(const xml_node* n) {
  auto t = upper(need_attr(n, "TYPE"));
  for (auto* x : class_types)
    if (t == x) return t;
  bad_argument("TYPE='" + t + "' is not NORMAL, SYSTEM, IO or SYSTEM_IO");
}

std::string classes_element(const std::vector<code_class>& classes, const std::string& type,
                            const std::string& prefix) {
  agent_classes_reply out;
  for (auto& c : classes) {
    if (!type.empty() && c.type != type) continue;
    if (c.name.compare(0, prefix.size(), prefix) != 0) continue;
    out.classes.push_back(c);
  }
  return print_agent_classes_reply(out);
}

void set_class(std::vector<code_class>& classes, code_class c) {
  // A package setting replaces the class settings it covers (the seed's rule).
  if (c.package)
    classes.erase(std::remove_if(classes.begin(), classes.end(),
                                 [&](const code_class& x) {
                                   return !x.package &&
                                          x.name.compare(0, c.name.size(), c.name) == 0;
                                 }),
                  classes.end());
  for (auto& x : classes)
    if (x.package == c.package && x.name == c.name) {
      x.type = c.type;
      return;
    }
  classes.push_back(std::move(c));
}

std::string run_classes(process_command_state& st, const argument& arg) {
  auto* e = arg.element({"CLASSES"}, true);
  auto entries = children(e, {"PACKAGE", "CLASS"});
  bool clear = flag_attr(e, "CLEAR", false), clear_io = flag_attr(e, "CLEARIO", false),
       clear_system = flag_attr(e, "CLEARSYSTEM", false);
  std::vector<code_class> parsed;
  for (auto* x : entries) {
    auto name = need_attr(x, "NAME");
    if (name.empty()) bad_argument("a class NAME is empty");
    parsed.push_back({upper(x->name()) == "PACKAGE", name, class_type(x)});
  }
  auto& cs = st.classes;
  if (clear) cs.clear();
  cs.erase(std::remove_if(cs.begin(), cs.end(),
                          [&](const code_class& c) {
                            return (clear_io && (c.type == "IO" || c.type == "SYSTEM_IO")) ||
                                   (clear_system && (c.type == "SYSTEM" || c.type == "SYSTEM_IO"));
                          }),
           cs.end());
  for (auto& c : parsed) set_class(cs, c);
  return classes_element(cs, "", "");
}

std::string run_getclasses(const process_command_state& st, const argument& arg) {
  auto* e = arg.element({"MATCH"}, false);
  std::string type, name;
  if (e != nullptr) {
    if (find_attr(e, "TYPE")) type = class_type(e);
    if (auto* n = find_attr(e, "NAME")) name = n;
  }
  return classes_element(st.classes, type, name);
}

// ---------------------------------------------------------------------------------------
// /proc.

std::string proc_path(std::int32_t pid, const char* what) {
  return "/proc/" + std::to_string(pid) + "/" + what;
}

std::string read_proc(std::int32_t pid, const char* what) {
  std::ifstream in(proc_path(pid, what), std::ios::binary);
  if (!in)
    refuse(dm_error::not_allowed,
           "cannot read " + proc_path(pid, what) + " (the process exited or is not ours)");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split_nul(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    auto end = s.find('\0', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The process start time in ns since the epoch.
std::int64_t start_time_ns(std::int32_t pid) {
  auto stat = proc::read_stat(pid);
  if (!stat) refuse(dm_error::internal, "unreadable /proc/PID/stat");
  return proc::start_time_ns(stat->start_ticks);
}

std::string run_whoru(const process_info& info) {
  agent_whoru_reply out;
  out.executable = info.executable;
  out.command_line = split_nul(read_proc(info.pid, "cmdline"));
  for (auto& e : split_nul(read_proc(info.pid, "environ"))) {
    auto eq = e.find('=');
    if (eq == std::string::npos) continue;
    out.environment.emplace_back(e.substr(0, eq), e.substr(eq + 1));
  }
  out.start_ns = start_time_ns(info.pid);
  return print_agent_whoru_reply(out);
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// CLASSMODEL: the executable and every file-backed object mapped, at its lowest address.
std::string run_classmodel(const process_command_state& st, const process_info& info) {
  std::istringstream maps(read_proc(info.pid, "maps"));
  std::map<std::string, std::uint64_t> objects;
  std::vector<std::string> order;
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream f(line);
    std::string range, perms, offset, dev, inode, path;
    f >> range >> perms >> offset >> dev >> inode;
    std::getline(f >> std::ws, path);
    if (path.empty() || path[0] != '/') continue;  // anonymous, [heap], [stack], [vdso]
    std::uint64_t base = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    auto [i, added] = objects.emplace(path, base);
    if (added)
      order.push_back(path);
    else
      i->second = std::min(i->second, base);
  }
  agent_classmodel_reply out{info.executable, {}};
  for (auto& path : order)
    out.objects.push_back({path, objects[path], classify(st.classes, base_name(path))});
  return print_agent_classmodel_reply(out);
}

std::vector<std::string> thread_ids(std::int32_t pid) {
  std::vector<std::string> out;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(proc_path(pid, "task").c_str()), closedir);
  if (!dir) refuse(dm_error::not_allowed, "cannot read " + proc_path(pid, "task"));
  while (auto* e = readdir(dir.get()))
    if (e->d_name[0] != '.') out.push_back(e->d_name);
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return std::stoll(a) < std::stoll(b);
  });
  return out;
}

// USETHREAD: stores the choices, then lists every live thread and every thread chosen.
std::string run_usethread(process_command_state& st, const process_info& info,
                          const argument& arg) {
  auto* e = arg.element({"THREADS"}, false);
  if (e != nullptr) {
    std::vector<std::pair<std::string, bool>> choices;
    for (auto* t : children(e, {"THREAD"})) {
      auto id = need_attr(t, "ID");
      if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        bad_argument("THREAD ID='" + id + "' is not a thread id");
      bool ignore = flag_attr(t, "IGNORE", false), use = flag_attr(t, "USE", false);
      if (ignore && use) bad_argument("thread " + id + " is both IGNOREd and USEd");
      if (ignore || use)
        choices.emplace_back(id, use);
      else
        choices.emplace_back(id, st.variables.at("THREAD_DEFAULT") == "true");
    }
    for (auto& [id, use] : choices) st.threads[id] = use;
  }
  bool fallback = st.variables.at("THREAD_DEFAULT") == "true";
  std::map<std::string, bool> shown = st.threads;
  for (auto& id : thread_ids(info.pid)) shown.emplace(id, fallback);
  agent_threads_reply out{fallback, {}};
  for (auto& [id, use] : shown) out.threads.push_back({id, use});
  std::sort(out.threads.begin(), out.threads.end(), [](auto& a, auto& b) {
    return std::stoll(a.id) < std::stoll(b.id);
  });
  return print_agent_threads_reply(out);
}

const char* const known_agents[] = {"frames"};

// DyPer's agent classes and what stands for each in a native process (docs/NATIVE.md):
// the stack sampler (CPU: COUNTERS; THREADS: the thread states), /proc (TIMING, MEMORY,
// IOCOUNTERS) and the thread-state totals (REACTION). They are always on for a watched
// process: installing one only records it.
constexpr const char* dyper_agent_prefix = "edu.brown.cs.dyvise.dyper.DyperAgent";
const char* const dyper_agents[] = {"Cpu", "Threads", "Timing", "Memory", "IO", "Reaction"};

bool is_dyper_agent_class(const std::string& name) {
  if (name.rfind(dyper_agent_prefix, 0) != 0) return false;
  auto kind = name.substr(std::char_traits<char>::length(dyper_agent_prefix));
  return std::any_of(std::begin(dyper_agents), std::end(dyper_agents),
                     [&](const char* a) { return kind == a; });
}

std::string run_agent(process_command_state& st, const argument& arg) {
  auto name = need_attr(arg.element({"AGENT"}, true), "CLASS");
  bool dyper = is_dyper_agent_class(name);
  if (!dyper && std::none_of(std::begin(known_agents), std::end(known_agents),
                             [&](const char* k) { return name == k; }))
    bad_argument("unknown agent '" + name + "' (known: frames, and DyPer's " + dyper_agent_prefix +
                 "Cpu, Threads, Timing, Memory, IO, Reaction)");
  bool installed = std::find(st.agents.begin(), st.agents.end(), name) != st.agents.end();
  if (!installed) st.agents.push_back(name);
  // DyPer's answer: OK, or nothing when the agent is installed already.
  if (dyper) return installed ? "" : "OK";
  return print_agent_list_reply({st.agents});
}

std::vector<detail_setting> detail_settings_of(const argument& arg) {
  auto* e = arg.element({"SETTINGS", "DETAIL"}, true);
  auto items =
      upper(e->name()) == "DETAIL" ? std::vector<const xml_node*>{e} : children(e, {"DETAIL"});
  std::vector<detail_setting> parsed;
  for (auto* d : items) {
    auto item = need_attr(d, "ITEM");
    if (!find_attr(d, "VALUE")) bad_argument("<DETAIL> needs the attribute VALUE");
    auto* agent = find_attr(d, "AGENT");
    parsed.push_back({item, agent ? agent : "", flag_attr(d, "VALUE", false)});
  }
  return parsed;
}

std::string run_setdetail(process_command_state& st, const argument& arg) {
  auto parsed = detail_settings_of(arg);
  for (auto& p : parsed) {
    auto i = std::find_if(st.details.begin(), st.details.end(), [&](const detail_setting& d) {
      return d.item == p.item && d.agent == p.agent;
    });
    if (i != st.details.end())
      i->value = p.value;
    else
      st.details.push_back(p);
  }
  return print_agent_details_reply({st.details});
}

process_command_outcome run_instrument(const argument& arg) {
  auto* m = arg.element({"MODEL"}, true);
  need_attr(m, "NAME");
  if (!find_attr(m, "INSERT")) bad_argument("<MODEL> needs the attribute INSERT");
  process_command_outcome out;
  out.follow_up = flag_attr(m, "INSERT", false) ? process_command_outcome::attach
                                                : process_command_outcome::detach;
  return out;
}

// ---------------------------------------------------------------------------------------
// DYPATCH.

std::string run_model(process_command_state& st, const argument& arg) {
  auto* m = arg.element({"MODEL"}, true);
  auto name = need_attr(m, "NAME");
  if (name.empty() || name.find_first_of("/\\. ") != std::string::npos)
    bad_argument("MODEL NAME='" + name + "' must be a plain file stem (no '/', '.', spaces)");
  for (auto* c = m->first_node(); c != nullptr; c = c->next_sibling())
    if (c->type() == rapidxml::node_element)
      bad_argument("<MODEL> holds the schema as text, not <" + std::string(c->name()) + ">");
  std::string text = m->value();
  std::vector<shm::frame_layout> layouts;
  try {
    layouts = shm::parse_schema(text, name);
  } catch (const shm::schema_error& e) {
    bad_argument(e.what());
  }
  st.models[name] = text;
  dypatch_model_reply out{name, {}};
  for (auto& l : layouts) out.frames.push_back(l.struct_name);
  return print_dypatch_model_reply(out);
}

std::string run_patch(process_command_state& st, const argument& arg) {
  auto name = need_attr(arg.element({"PATCH"}, true), "MODEL");
  auto m = st.models.find(name);
  if (m == st.models.end()) bad_argument("no MODEL named '" + name + "' was given");
  if (st.directory.empty()) bad_argument("no DIRECTORY was set for the generated files");
  const auto schema = shm::parse_schema_text(m->second, name);
  auto files =
      shm::generate_frames_code(schema.layouts, name, name, shm::writer_clock::tsc, schema.c_types);
  dypatch_patch_reply out{name, {}};
  try {
    std::filesystem::create_directories(st.directory);
    for (auto& [file, text] :
         {std::pair{files.header_name, files.header}, std::pair{files.source_name, files.source}}) {
      auto path = (std::filesystem::path(st.directory) / file).string();
      std::ofstream f(path, std::ios::binary | std::ios::trunc);
      f << text;
      f.close();
      if (!f) throw std::runtime_error("cannot write " + path);
      out.files.push_back(path);
    }
  } catch (const std::exception& e) {
    refuse(dm_error::internal, e.what());
  }
  return print_dypatch_patch_reply(out);
}

process_command_outcome run_dypatch(process_command_state& st, const process_command& c) {
  argument arg(c.argument);
  process_command_outcome out;
  if (c.command == "PING") {
    arg.element({"NONE"}, false);
    out.body = "PONG";
  } else if (c.command == "MODEL") {
    out.body = run_model(st, arg);
  } else if (c.command == "DIRECTORY") {
    auto dir = arg.text();
    auto b = dir.find_first_not_of(" \t\r\n"), e = dir.find_last_not_of(" \t\r\n");
    if (b == std::string::npos) bad_argument("DIRECTORY needs a directory as its text");
    st.directory = dir.substr(b, e - b + 1);
    out.body = print_dypatch_directory_reply({st.directory});
  } else if (c.command == "PATCH") {
    out.body = run_patch(st, arg);
  } else {
    refuse(dm_error::unknown_command,
           "unknown DYPATCH command '" + c.command + "' (known: PING, MODEL, DIRECTORY, PATCH)");
  }
  return out;
}

}  // namespace

process_command_state::process_command_state() : variables(default_variables()) {
  // Native defaults: the C and C++ runtimes are system code; the libc entry points that
  // wait on files and sockets are I/O.
  for (auto* lib : {"libc.so", "libstdc++.so", "libm.so", "ld-linux", "libgcc_s", "libpthread"})
    classes.push_back({true, lib, "SYSTEM"});
  // glibc's 64-bit names (pread64) and the flushes a database waits in (fdatasync) too.
  for (auto* fn : {"read", "write", "pread", "pwrite", "pread64", "pwrite64", "readv", "writev",
                   "preadv", "pwritev", "recv", "recvfrom", "recvmsg", "send", "sendto", "sendmsg",
                   "poll", "ppoll", "select", "epoll_wait", "accept", "connect", "fsync",
                   "fdatasync", "sync_file_range"})
    classes.push_back({false, fn, "IO"});
}

bool is_dyper_agent_name(const std::string& name) {
  auto u = upper(name);
  return u == "CPU" || u == "THREADS" || u == "TIMING" || u == "MEMORY" || u == "IO" ||
         u == "REACTION";
}

std::string classify(const std::vector<code_class>& classes, const std::string& name) {
  const code_class* best = nullptr;
  for (auto& c : classes) {
    bool match = c.package ? name.compare(0, c.name.size(), c.name) == 0 : name == c.name;
    // A whole name beats any prefix; a longer prefix beats a shorter one.
    if (match && (best == nullptr || (!c.package && best->package) ||
                  (c.package == best->package && c.name.size() > best->name.size())))
      best = &c;
  }
  return best ? best->type : "NORMAL";
}

std::int64_t epoch_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

process_command_outcome run_process_command(process_command_state& st, const process_info& info,
                                            const process_command& c) {
  if (c.dypatch) return run_dypatch(st, c);
  argument arg(c.argument);
  process_command_outcome out;
  const auto& cmd = c.command;
  if (cmd == "PING") {
    arg.element({"NONE"}, false);
    // DyPer's PONG carries what observing the process has cost it so far, in ms.
    out.body = "PONG " + std::to_string(st.overhead_ms);
  } else if (cmd == "WHORU") {
    out.body = run_whoru(info);
  } else if (cmd == "SET") {
    out.body = run_set(st.variables, arg);
  } else if (cmd == "GET") {
    out.body = run_get(st.variables, arg);
  } else if (cmd == "GC" || cmd == "DUMPHEAP" || cmd == "DUMPMEMORY") {
    // A native process has no collector and no managed heap to dump: DyPer's answer for
    // what is not there.
    out.body = "NOT FOUND";
  } else if (cmd == "ACTIVATE") {
    // DyPer's agents switched on and off; perfdm's native counterparts are always on.
    arg.element({"ACTIVATE", "DEACTIVATE"}, false);
  } else if (cmd == "CLEAR") {
    if (auto* e = arg.element({"CLEAR"}, false); e != nullptr)
      if (auto* a = find_attr(e, "AGENT");
          a != nullptr && !is_dyper_agent_name(a) &&
          std::find(st.agents.begin(), st.agents.end(), a) == st.agents.end())
        bad_argument(std::string("no agent '") + a + "' was added");
    out.body = std::to_string(epoch_now_ms());
  } else if (cmd == "CLASSES") {
    out.body = run_classes(st, arg);
  } else if (cmd == "GETCLASSES") {
    out.body = run_getclasses(st, arg);
  } else if (cmd == "CLASSMODEL") {
    arg.element({"OPTIONS"}, false);
    out.body = run_classmodel(st, info);
  } else if (cmd == "USETHREAD") {
    out.body = run_usethread(st, info, arg);
  } else if (cmd == "AGENT") {
    out.body = run_agent(st, arg);
  } else if (cmd == "INSTRUMENT") {
    out = run_instrument(arg);
  } else if (cmd == "SETDETAIL") {
    out.body = run_setdetail(st, arg);
  } else if (cmd == "SHOWSTACK") {
    out.follow_up = process_command_outcome::showstack;
  } else if (cmd == "REPORT") {
    if (auto* e = arg.element({"REPORT"}, false); e != nullptr)
      if (auto* t = find_attr(e, "TYPE"); t != nullptr && upper(t) != "ALL")
        bad_argument(std::string("REPORT TYPE='") + t + "' is not ALL");
    out.follow_up = process_command_outcome::report;
  } else {
    refuse(dm_error::unknown_command,
           "unknown command '" + cmd + "' for process " + std::to_string(info.pid));
  }
  return out;
}

void add_process_report_parts(agent_report_monitor& report, const process_info& info,
                              const std::vector<frame_type_stats>& frames,
                              const status_info& status) {
  report.process = report_process{info.resource, info.active};
  agent_report_sections out;
  for (auto& mi : status.mis)
    if (mi.focus.find(info.resource) != std::string::npos)
      out.metrics.push_back({mi.id.id, mi.metric, mi.focus, mi.collecting});
  for (auto& t : frames)
    if (t.pid == info.pid) out.frame_types.push_back({t.frame_type, t.frames, t.lost, t.torn, t.late});
  report.perfdm = std::move(out);
}

std::vector<detail_setting> parse_detail_settings(const std::string& argument_text) {
  return detail_settings_of(argument(argument_text));
}

std::vector<detail_target> detail_targets(const std::string& item, const process_info& info,
                                          const std::vector<metric_info>& metrics) {
  std::vector<detail_target> out;
  auto defined = [&](const std::string& name) {
    return std::any_of(metrics.begin(), metrics.end(),
                       [&](const metric_info& m) { return m.name == name; });
  };
  for (auto& type : info.frames) {
    auto focus = info.resource + "/" + type;
    for (auto& m : metrics) {
      if (m.name.compare(0, type.size() + 1, type + ".") != 0) continue;
      auto field = m.name.substr(type.size() + 1);
      // The frame type (every field), the metric `type.field`, or the field alone.
      if (item == type || item == m.name || item == field) out.push_back({m.name, focus});
    }
  }
  // A watched process's /proc metrics, for the whole process.
  if (info.watched && item.compare(0, 5, "proc.") == 0 && defined(item))
    out.push_back({item, info.resource});
  return out;
}
}  // namespace perfdm
