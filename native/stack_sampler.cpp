#include "native/stack_sampler.hpp"

#include <cerrno>
#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <unordered_map>

#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "native/cfi_functions.hpp"
#include "native/jit_code.hpp"
#include "native/native_error.hpp"
#include "native/proc_stats.hpp"
#include "native/thread_proc_files.hpp"
#include "proc/process_facts.hpp"

namespace perfdm::native {

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
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

// Go's assembly functions that also have a Go-ABI twin carry the linker's `.abi0` in the ELF
// symbol table (crypto/sha256.block.abi0): one function, named as Go names it.
std::string without_go_abi_suffix(std::string name) {
  const std::string abi0 = ".abi0";
  if (name.size() > abi0.size() && name.compare(name.size() - abi0.size(), abi0.size(), abi0) == 0)
    name.resize(name.size() - abi0.size());
  return name;
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

// How long a sample waits for a thread to stop before it goes on without it (a thread that
// gets no CPU on a loaded machine, or one stuck in the kernel). The interrupt stays pending:
// the thread stops when it next runs, and is let go then (stack_sampler::release_late). Half
// a second: a sample must not keep its actor from answering the search for long (a tree of
// daemons waits 2 s for each round's answers), and a thread that waited that long for a CPU
// on a machine running 64 busy processes is caught by a later sample.
constexpr std::int64_t stop_timeout_ns = 500'000'000;

// The longest wait for a process's exec to finish before it can be read (stack_sampler::impl).
constexpr std::int64_t exec_wait_ns = 1'000'000'000;

// The one-letter state of a thread, '?' when it cannot be read.
char thread_state(int pid, int tid) {
  try {
    return read_thread_stats(pid, tid).state;
  } catch (const native_error&) {
    return '?';
  }
}

// late: seized and interrupted but not stopped within stop_timeout_ns. It cannot be detached
// until it stops (PTRACE_DETACH needs a stopped tracee; it fails on a running one and the
// thread would stay traced by this thread for ever, every later PTRACE_SEIZE refused with
// EPERM and the thread held stopped once it does stop): the sampler keeps it and lets it go
// once it stops.
enum class stop_outcome { stopped, gone, refused, late };

enum class seen { nothing, stopped, gone };

// What thread `tid`, traced by this thread, shows now: its stop or its end by its
// notification (taken here; `signal` set to the signal it stopped for instead of the
// interrupt), or, with `ask_proc`, by its /proc state: 't' is stopped, whoever took the
// notification; '?', 'Z', 'X' are gone, as is a thread this thread no longer traces (ECHILD:
// another waiter reaped its end).
seen look_for_stop(int pid, int tid, bool ask_proc, int& signal) {
  int status = 0;
  pid_t r = waitpid(tid, &status, __WALL | WNOHANG);
  if (r == tid) {
    if (WIFEXITED(status) || WIFSIGNALED(status)) return seen::gone;
    if (WIFSTOPPED(status)) {
      // The interrupt's stop (PTRACE_EVENT_STOP), or a signal that came first.
      if ((status >> 16) != PTRACE_EVENT_STOP) signal = WSTOPSIG(status);
      return seen::stopped;
    }
  }
  if (r < 0 && errno == ECHILD) return seen::gone;
  if (!ask_proc) return seen::nothing;
  char state = thread_state(pid, tid);
  if (state == 't') return seen::stopped;
  if (state == '?' || state == 'Z' || state == 'X') return seen::gone;
  return seen::nothing;
}

// Stops thread `tid` of `pid` for its unwind: PTRACE_SEIZE, PTRACE_INTERRUPT, and a wait for
// the stop on that tid alone (__WALL | WNOHANG, never -1). The stop notification may be taken
// by another thread of this process waiting for any child (waitpid(-1) sees the stops of every
// tracee of the thread group, which libdw's own blocking waitpid would wait for in vain): so
// the wait polls, and a thread that /proc shows in tracing stop ('t') is stopped, whoever
// reaped the notification. `signal`: a signal the thread was stopped for instead of the
// interrupt, to hand back when it is let go (detach_thread).
stop_outcome stop_thread(int pid, int tid, int& signal, std::string& error) {
  signal = 0;
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
    error = std::string("cannot stop it: ") + std::strerror(errno);
    return errno == ESRCH ? stop_outcome::gone : stop_outcome::refused;
  }
  if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) {
    int e = errno;
    ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    error = std::string("cannot interrupt it: ") + std::strerror(e);
    return e == ESRCH ? stop_outcome::gone : stop_outcome::refused;
  }
  auto start = monotonic_ns();
  auto next_look = start + 1'000'000;  // /proc is asked after 1 ms, then every millisecond
  std::int64_t pause_ns = 5'000;       // 5 µs, doubling up to 200 µs
  for (;;) {
    auto now = monotonic_ns();
    bool ask_proc = now >= next_look;
    if (ask_proc) next_look = now + 1'000'000;
    switch (look_for_stop(pid, tid, ask_proc, signal)) {
      case seen::stopped:
        return stop_outcome::stopped;
      case seen::gone:
        ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
        return stop_outcome::gone;
      case seen::nothing:
        break;
    }
    if (now - start > stop_timeout_ns) {
      error = "it did not stop within 0.5 s";
      return stop_outcome::late;
    }
    // Short sleeps, not sched_yield: on a loaded machine a yield gives away a whole time
    // slice, and the thread being stopped needs a CPU to stop.
    timespec pause{0, pause_ns};
    nanosleep(&pause, nullptr);
    pause_ns = std::min<std::int64_t>(pause_ns * 2, 200'000);
  }
}

// Lets a stopped thread go, with the signal it was stopped for, if any.
void detach_thread(int tid, int signal) {
  ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(static_cast<std::intptr_t>(signal)));
}

// A late thread (stop_outcome::late) now: let go if it has stopped since (true), forgotten if
// it is gone (true), kept otherwise (false).
bool release_if_stopped(int pid, int tid) {
  int signal = 0;
  switch (look_for_stop(pid, tid, true, signal)) {
    case seen::stopped:
      detach_thread(tid, signal);
      return true;
    case seen::gone:
      return true;
    case seen::nothing:
      break;
  }
  return false;
}

// The symbol part of a frame: everything but the pc, cached by (adjusted) pc.
struct symbol_info {
  std::string module, function, file;
  int line = 0;
  // In perfdm's own preloaded I/O library (libperfdm-io.so): its wrappers sit between the
  // program's call and the C library's, and are perfdm's measuring, not the program's code.
  bool measuring = false;
};

bool in_io_library(const std::string& module) {
  const auto slash = module.rfind('/');
  return module.compare(slash == std::string::npos ? 0 : slash + 1, 13, "libperfdm-io.") == 0;
}


}  // namespace

struct stack_sampler::impl {
  int pid;
  Dwfl* dwfl = nullptr;
  std::size_t maps_hash = 0;
  std::uint64_t reports = 0;
  std::unordered_map<Dwarf_Addr, symbol_info> symbols;
  jit_code jit;  // frames in code compiled at run time: never cached by pc (code moves)
  std::unordered_map<Dwfl_Module*, std::unique_ptr<cfi_function_table>> function_tables;
  std::vector<int> late;  // threads interrupted that had not stopped when their sample ended

  // A process in the middle of an exec cannot be read for a moment: the kernel shows no
  // auxiliary vector (/proc/PID/auxv) and no executable until the new program is set up, and
  // libdw finds no program there (ENOEXEC, or no architecture). That lasts milliseconds,
  // longer on a loaded machine; it is waited out (at most exec_wait_ns), so that a process
  // started just now (`perfdm search --pid $!` after `cmd &`) is watched, not refused.
  explicit impl(int p) : pid(p), jit(p) {
    const auto until = monotonic_ns() + exec_wait_ns;
    for (;;) {
      if (!proc::process_alive(pid))
        throw native_error(native_errc::no_such_process,
                           "process " + std::to_string(pid) + ": no such process");
      try {
        attach();
        return;
      } catch (const native_error& e) {
        if (e.code == native_errc::no_such_process || e.code == native_errc::not_permitted ||
            monotonic_ns() >= until)
          throw;
      }
      timespec pause{0, 1'000'000};
      nanosleep(&pause, nullptr);
    }
  }

  // A Dwfl with the process's modules, ready to unwind its threads; none if it throws.
  void attach() {
    dwfl = dwfl_begin(&proc_callbacks);
    if (dwfl == nullptr)
      throw native_error(native_errc::unwind_failed, "cannot start libdw: " + dwfl_message());
    try {
      report_modules(read_maps());
      // perfdm stops each thread itself (stop_thread), so that no wait can hang.
      int rc = dwfl_linux_proc_attach(dwfl, pid, true);
      if (rc > 0) throw process_failure(pid, "prepare to unwind its threads", rc);
      if (rc < 0)
        throw native_error(native_errc::unwind_failed, "process " + std::to_string(pid) +
                                                           ": libdw cannot attach: " +
                                                           dwfl_message());
    } catch (...) {
      dwfl_end(dwfl);
      dwfl = nullptr;
      throw;
    }
  }
  ~impl() {
    // A late thread still running is released by the kernel when this (the tracing) thread
    // exits; one that stopped meanwhile is let go now.
    release_late();
    dwfl_end(dwfl);
  }

  std::size_t release_late() {
    late.erase(std::remove_if(late.begin(), late.end(),
                              [this](int tid) { return release_if_stopped(pid, tid); }),
               late.end());
    return late.size();
  }

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
    jit.update(maps);
    symbols.clear();
    function_tables.clear();
    ++reports;
  }

  // A function without a symbol (a stripped executable's own code) named by its module and
  // the start of the .eh_frame entry that holds pc (cfi_functions.hpp): `xz+0x4a3f0`, so
  // that distinct functions stay distinct. "" when no entry holds it.
  std::string unnamed_function(Dwfl_Module* mod, Dwarf_Addr pc, const std::string& module) {
    auto& table = function_tables[mod];
    GElf_Addr bias = 0;
    Elf* elf = dwfl_module_getelf(mod, &bias);
    if (!table) table = std::make_unique<cfi_function_table>(elf);
    auto start = table->function_start(pc - bias);
    if (!start) return {};
    auto slash = module.rfind('/');
    char address[32];
    std::snprintf(address, sizeof address, "+0x%llx", static_cast<unsigned long long>(*start));
    return (slash == std::string::npos ? module : module.substr(slash + 1)) + address;
  }

  const symbol_info& symbolize(Dwarf_Addr pc) {
    if (auto i = symbols.find(pc); i != symbols.end()) return i->second;
    symbol_info s;
    if (Dwfl_Module* mod = dwfl_addrmodule(dwfl, pc)) {
      const char* mainfile = nullptr;
      const char* name = dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr,
                                          &mainfile, nullptr);
      s.module = mainfile ? mainfile : (name ? name : "");
      s.measuring = in_io_library(s.module);
      GElf_Off offset = 0;
      GElf_Sym sym;
      s.function = without_go_abi_suffix(
          demangled(dwfl_module_addrinfo(mod, pc, &offset, &sym, nullptr, nullptr, nullptr)));
      if (s.function.empty()) s.function = unnamed_function(mod, pc, s.module);
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
    if (auto jit = w->self->jit.frame(lookup)) {
      jit->pc = pc;
      w->out->frames.push_back(std::move(*jit));
    } else {
      auto& s = w->self->symbolize(lookup);
      if (!s.measuring) w->out->frames.push_back(stack_frame{pc, s.module, s.function, s.file, s.line});
    }
    return w->out->frames.size() < w->max_depth ? DWARF_CB_OK : DWARF_CB_ABORT;
  }

  // The system call of a stopped thread, read after its unwind, agrees with its stack: the
  // call it was in when the interrupt stopped it, with its arguments — also for a running
  // thread stopped on its way out of a call (write(fd, …): the file of /File), and for a thread
  // that left the futex it slept in at the first read for another (a condition variable's,
  // then its mutex's). It replaces the first read unless it names no call (-1: stopped in its
  // own code) or restart_syscall (a timed wait an earlier sample interrupted: the arguments
  // are gone), where the first read says more.
  void read_stopped_syscall(thread_stack& t) {
    auto text = read_thread_syscall(pid, t.tid);
    auto call = parse_thread_syscall(text);
    if (call.valid && !call.running && call.number >= 0 && call.number != SYS_restart_syscall)
      t.syscall = std::move(text);
  }

  [[noreturn]] void exited() {
    throw native_error(native_errc::no_such_process,
                       "process " + std::to_string(pid) + ": no such process (it exited)");
  }

  stack_snapshot sample(std::size_t max_depth, const std::function<bool(int)>& wanted) {
    // The waits for each thread's stop are short sleeps: let them be as short as asked
    // (the default timer slack adds 50 µs to each). Per thread: the sampling thread's only.
    prctl(PR_SET_TIMERSLACK, 1'000UL, 0UL, 0UL, 0UL);
    release_late();
    jit.refresh();
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
    if (std::hash<std::string>{}(maps) != maps_hash) {
      snap.modules_changed = maps_hash != 0;
      report_modules(maps);
    }
    // Names and states first: stopping a thread changes its state.
    for (int tid : thread_ids(pid)) {
      if (wanted && !wanted(tid)) continue;
      try {
        auto t = read_thread_stats(pid, tid);
        snap.threads.push_back(thread_stack{tid, t.name, t.state, {}, {}, {}});
        if (t.state == 'S' || t.state == 'D')
          snap.threads.back().syscall = read_thread_syscall(pid, tid);
      } catch (const native_error& e) {
        if (e.code != native_errc::no_such_process) throw;
      }
    }
    std::size_t unwound = 0;
    std::string last_error;
    for (auto& t : snap.threads) {
      if (std::find(late.begin(), late.end(), t.tid) != late.end()) {
        t.error = "it has not stopped since an earlier sample interrupted it";
        last_error = t.error;
        continue;
      }
      int signal = 0;
      auto stopped = stop_thread(pid, t.tid, signal, t.error);
      if (stopped == stop_outcome::late) late.push_back(t.tid);
      if (stopped != stop_outcome::stopped) {
        if (stopped != stop_outcome::gone) last_error = t.error;
        continue;  // a thread that is gone is left out below
      }
      // The cost is the time the thread is held stopped; the wait for it to stop (a thread
      // that waits for a CPU on a loaded machine) costs the program nothing.
      auto held_from = monotonic_ns();
      walk w{this, &t, max_depth == 0 ? 1 : max_depth};
      int rc = dwfl_getthread_frames(dwfl, t.tid, on_frame, &w);
      read_stopped_syscall(t);
      detach_thread(t.tid, signal);
      snap.cost_ns += monotonic_ns() - held_from;
      if (rc != 0 && t.frames.empty()) {
        // libdw reports the end of some stacks as an error: only no frame at all counts.
        t.error = dwfl_message();
        last_error = t.error;
      } else {
        ++unwound;
      }
    }
    if (!proc::process_alive(pid)) exited();
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
    return snap;
  }
};

stack_sampler::stack_sampler(int pid) : impl_(std::make_unique<impl>(pid)) {}
stack_sampler::~stack_sampler() = default;
int stack_sampler::pid() const { return impl_->pid; }
stack_snapshot stack_sampler::sample(std::size_t max_depth,
                                     const std::function<bool(int)>& wanted) {
  return impl_->sample(max_depth, wanted);
}
std::uint64_t stack_sampler::module_reports() const { return impl_->reports; }
std::size_t stack_sampler::late_threads() const { return impl_->late.size(); }
std::size_t stack_sampler::release_late() { return impl_->release_late(); }

}  // namespace perfdm::native
