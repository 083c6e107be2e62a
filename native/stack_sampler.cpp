#include "native/stack_sampler.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <functional>
#include <unordered_map>

#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <signal.h>
#include <unistd.h>

#include "native/native_error.hpp"
#include "native/proc_stats.hpp"

namespace perfdm::native {

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

bool process_alive(int pid) {
  if (pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH)) return false;
  try {
    auto s = parse_stat(read_proc_file(pid, "/proc/" + std::to_string(pid) + "/stat"));
    return s.state != 'Z' && s.state != 'X';
  } catch (const native_error& e) {
    return e.code != native_errc::no_such_process;
  }
}

namespace {

std::string demangled(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return name;
  std::string out(d);
  std::free(d);
  return out;
}

std::string dwfl_message() {
  const char* m = dwfl_errmsg(-1);
  return m ? m : "unknown libdw error";
}

const Dwfl_Callbacks proc_callbacks = {
    dwfl_linux_proc_find_elf,
    dwfl_standard_find_debuginfo,
    nullptr,  // section_address: not needed for a live process
    nullptr,  // debuginfo_path: the standard places
};

// The symbol part of a frame: everything but the pc, cached by (adjusted) pc.
struct symbol_info {
  std::string module, function, file;
  int line = 0;
};

}  // namespace

struct stack_sampler::impl {
  int pid;
  Dwfl* dwfl = nullptr;
  std::size_t maps_hash = 0;
  std::uint64_t reports = 0;
  std::unordered_map<Dwarf_Addr, symbol_info> symbols;

  explicit impl(int p) : pid(p) {
    if (!process_alive(pid))
      throw native_error(native_errc::no_such_process,
                         "process " + std::to_string(pid) + ": no such process");
    dwfl = dwfl_begin(&proc_callbacks);
    if (dwfl == nullptr)
      throw native_error(native_errc::unwind_failed, "cannot start libdw: " + dwfl_message());
    try {
      report_modules(read_maps());
      int rc = dwfl_linux_proc_attach(dwfl, pid, false);
      if (rc > 0) throw process_failure(pid, "prepare to unwind its threads", rc);
      if (rc < 0)
        throw native_error(native_errc::unwind_failed, "process " + std::to_string(pid) +
                                                           ": libdw cannot attach: " +
                                                           dwfl_message());
    } catch (...) {
      dwfl_end(dwfl);
      throw;
    }
  }
  ~impl() { dwfl_end(dwfl); }

  std::string read_maps() {
    return read_proc_file(pid, "/proc/" + std::to_string(pid) + "/maps");
  }

  void report_modules(const std::string& maps) {
    dwfl_report_begin(dwfl);
    int rc = dwfl_linux_proc_report(dwfl, pid);
    if (rc > 0) {
      dwfl_report_end(dwfl, nullptr, nullptr);
      throw process_failure(pid, "read its memory maps", rc);
    }
    if (rc < 0 || dwfl_report_end(dwfl, nullptr, nullptr) != 0)
      throw native_error(native_errc::unwind_failed, "process " + std::to_string(pid) +
                                                         ": libdw cannot read its modules: " +
                                                         dwfl_message());
    maps_hash = std::hash<std::string>{}(maps);
    symbols.clear();
    ++reports;
  }

  const symbol_info& symbolize(Dwarf_Addr pc) {
    if (auto i = symbols.find(pc); i != symbols.end()) return i->second;
    symbol_info s;
    if (Dwfl_Module* mod = dwfl_addrmodule(dwfl, pc)) {
      const char* mainfile = nullptr;
      const char* name = dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr,
                                          &mainfile, nullptr);
      s.module = mainfile ? mainfile : (name ? name : "");
      GElf_Off offset = 0;
      GElf_Sym sym;
      s.function = demangled(dwfl_module_addrinfo(mod, pc, &offset, &sym, nullptr, nullptr, nullptr));
      if (Dwfl_Line* line = dwfl_module_getsrc(mod, pc)) {
        int lineno = 0;
        const char* file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr);
        if (file) s.file = file;
        s.line = lineno;
      }
    }
    return symbols.emplace(pc, std::move(s)).first->second;
  }

  struct walk {
    impl* self;
    thread_stack* out;
    std::size_t max_depth;
  };

  static int on_frame(Dwfl_Frame* frame, void* arg) {
    auto* w = static_cast<walk*>(arg);
    Dwarf_Addr pc = 0;
    bool activation = false;
    if (!dwfl_frame_pc(frame, &pc, &activation)) return DWARF_CB_ABORT;
    // A return address points after the call: look up the call itself.
    Dwarf_Addr lookup = activation ? pc : pc - 1;
    auto& s = w->self->symbolize(lookup);
    w->out->frames.push_back(stack_frame{pc, s.module, s.function, s.file, s.line});
    return w->out->frames.size() < w->max_depth ? DWARF_CB_OK : DWARF_CB_ABORT;
  }

  [[noreturn]] void exited() {
    throw native_error(native_errc::no_such_process,
                       "process " + std::to_string(pid) + ": no such process (it exited)");
  }

  stack_snapshot sample(std::size_t max_depth) {
    stack_snapshot snap;
    snap.pid = pid;
    snap.monotonic_ns = monotonic_ns();
    std::string maps;
    try {
      maps = read_maps();
    } catch (const native_error& e) {
      if (e.code == native_errc::no_such_process) exited();
      throw;
    }
    if (std::hash<std::string>{}(maps) != maps_hash) report_modules(maps);
    // Names and states first: stopping a thread changes its state.
    for (int tid : thread_ids(pid)) {
      try {
        auto t = read_thread_stats(pid, tid);
        snap.threads.push_back(thread_stack{tid, t.name, t.state, {}, {}});
      } catch (const native_error& e) {
        if (e.code != native_errc::no_such_process) throw;
      }
    }
    std::size_t unwound = 0;
    std::string last_error;
    for (auto& t : snap.threads) {
      walk w{this, &t, max_depth == 0 ? 1 : max_depth};
      int rc = dwfl_getthread_frames(dwfl, t.tid, on_frame, &w);
      if (rc != 0 && t.frames.empty()) {
        // libdw reports the end of some stacks as an error: only no frame at all counts.
        t.error = dwfl_message();
        last_error = t.error;
      } else {
        ++unwound;
      }
    }
    if (!process_alive(pid)) exited();
    // Threads that exited meanwhile are left out.
    std::vector<thread_stack> kept;
    for (auto& t : snap.threads) {
      if (t.frames.empty() &&
          ::access(("/proc/" + std::to_string(pid) + "/task/" + std::to_string(t.tid)).c_str(),
                   F_OK) != 0)
        continue;
      kept.push_back(std::move(t));
    }
    snap.threads = std::move(kept);
    if (unwound == 0 && !snap.threads.empty()) {
      bool denied = last_error.find("not permitted") != std::string::npos ||
                    last_error.find("denied") != std::string::npos;
      throw native_error(denied ? native_errc::not_permitted : native_errc::unwind_failed,
                         "process " + std::to_string(pid) + ": cannot unwind any thread: " +
                             last_error +
                             (denied ? " (ptrace needs the same user, root or CAP_SYS_PTRACE)"
                                     : ""));
    }
    snap.cost_ns = monotonic_ns() - snap.monotonic_ns;
    return snap;
  }
};

stack_sampler::stack_sampler(int pid) : impl_(std::make_unique<impl>(pid)) {}
stack_sampler::~stack_sampler() = default;
int stack_sampler::pid() const { return impl_->pid; }
stack_snapshot stack_sampler::sample(std::size_t max_depth) { return impl_->sample(max_depth); }
std::uint64_t stack_sampler::module_reports() const { return impl_->reports; }

}  // namespace perfdm::native
