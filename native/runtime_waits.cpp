#include "native/runtime_waits.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>

#include "native/pc_resources.hpp"
#include "native/thread_states.hpp"
#include "proc/system_modules.hpp"

namespace perfdm::native {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool one_of(const std::string& name, std::initializer_list<std::string_view> names) {
  return std::any_of(names.begin(), names.end(), [&](std::string_view n) { return name == n; });
}

runtime_wait idle() {
  return {wait_role::idle, "", "", false};
}

runtime_wait waiting(std::string kind) {
  return {wait_role::waiting, std::move(kind), "", false};
}

// ------------------------------------------------------------------ OpenMP

bool openmp_module(const stack_frame& f) {
  auto m = module_part(f.module);
  return starts_with(m, "libgomp.so") || starts_with(m, "libomp.so") ||
         starts_with(m, "libomp5.so") || starts_with(m, "libiomp5.so");
}

// The kind of an OpenMP wait, from the runtime's symbols where it has them (libgomp's inner
// functions are hidden: a stripped library names them by address, and they read Barrier).
std::string openmp_kind(const std::vector<stack_frame>& frames, std::size_t from) {
  for (std::size_t i = from; i < frames.size() && openmp_module(frames[i]); ++i) {
    auto f = rule_name(frames[i].function);
    if (f.find("mutex") != std::string::npos || f.find("critical") != std::string::npos ||
        f.find("_lock") != std::string::npos)
      return "Mutex";
    if (f.find("sem_wait") != std::string::npos) return "Semaphore";
  }
  return "Barrier";
}

std::optional<runtime_wait> openmp_wait(char, const std::vector<stack_frame>& frames) {
  auto runtime = std::find_if(frames.begin(), frames.end(),
                              [](const stack_frame& f) { return !c_library_frame(f); });
  if (runtime == frames.end() || !openmp_module(*runtime)) return std::nullopt;
  bool program_outward = std::any_of(runtime, frames.end(), [](const stack_frame& f) {
    return !openmp_module(f) && !c_library_frame(f);
  });
  if (!program_outward) return idle();  // the pool's thread: docked, or done with its part
  return waiting(openmp_kind(frames, static_cast<std::size_t>(runtime - frames.begin())));
}

// ------------------------------------------------------------------ Go

bool go_runtime_name(const std::string& f) {
  return starts_with(f, "runtime.") || starts_with(f, "runtime/internal");
}

std::optional<runtime_wait> go_runtime_wait(char, const std::vector<stack_frame>& frames) {
  for (std::size_t i = 0; i < frames.size(); ++i) {
    auto f = rule_name(frames[i].function);
    if (one_of(f, {"runtime.lock2", "runtime.lockWithRank"})) return waiting("Mutex");
    if (!one_of(f, {"runtime.stopm", "runtime.mPark", "runtime.notesleep", "runtime.findrunnable",
                    "runtime.findRunnable", "runtime.templateThread", "runtime.sysmon",
                    "runtime.netpoll"}))
      continue;
    // The scheduler's own thread, with no goroutine of the program on it.
    bool program_outward = std::any_of(
        frames.begin() + static_cast<std::ptrdiff_t>(i), frames.end(), [](const stack_frame& fr) {
          auto n = rule_name(fr.function);
          return !n.empty() && !go_runtime_name(n) && !c_library_frame(fr) &&
                 n.find("+0x") == std::string::npos;
        });
    if (!program_outward) return idle();
    return std::nullopt;
  }
  return std::nullopt;
}

// ------------------------------------------------------------------ libuv, event loops

std::optional<runtime_wait> libuv_wait(char, const std::vector<stack_frame>& frames) {
  for (auto& f : frames)
    if (rule_name(f.function) == "uv_cond_wait") return idle();
  return std::nullopt;
}

bool event_wait(const std::string& f) {
  return one_of(f, {"epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll", "select",
                    "pselect", "pselect6"});
}

bool event_loop(const std::string& f) {
  return one_of(f, {"uv_run", "uv__io_poll", "event_base_loop", "event_base_dispatch", "ev_run",
                    "g_main_context_iterate", "g_main_context_poll", "g_main_loop_run",
                    "progress_engine", "runtime.netpoll"});
}

std::optional<runtime_wait> event_loop_wait(char, const std::vector<stack_frame>& frames) {
  // The innermost named call: the wait itself, in the C library.
  auto wait = std::find_if(frames.begin(), frames.end(), [](const stack_frame& f) {
    return !f.function.empty() && f.function.find("+0x") == std::string::npos;
  });
  if (wait == frames.end() || !event_wait(rule_name(wait->function))) return std::nullopt;
  if (std::any_of(wait, frames.end(),
                  [](const stack_frame& f) { return event_loop(rule_name(f.function)); }))
    return idle();
  return std::nullopt;
}

// ------------------------------------------------------------------ MPI

// The MPI call a frame is, as the standard names it ("MPI_Allreduce"), or "": C's MPI_X and
// its profiling entry PMPI_X (Open MPI and MPICH define one as a weak alias of the other, so a
// symboliser may print either), Fortran's mpi_x_, mpi_x__, pmpi_x_ and MPI_X. Open MPI's
// MPI_Init and MPI_Finalize tail-call their implementations, so a stack waiting there shows
// ompi_mpi_init or ompi_mpi_finalize under the program's frame, and no MPI_ frame at all.
std::string mpi_call(const std::string& f) {
  if (f == "ompi_mpi_init") return "MPI_Init";
  if (f == "ompi_mpi_finalize") return "MPI_Finalize";
  std::string_view n = f;
  if (starts_with(n, "PMPI_") || starts_with(n, "pmpi_")) n.remove_prefix(1);
  bool upper = starts_with(n, "MPI_"), lower = starts_with(n, "mpi_");
  if (!(upper || lower) || n.size() < 5) return "";
  std::string_view rest = n.substr(4);
  while (lower && !rest.empty() && rest.back() == '_') rest.remove_suffix(1);
  if (rest.empty() || !std::all_of(rest.begin(), rest.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      }))
    return "";
  // C names go as they are (MPI_Comm_rank) and start upper case after MPI_: an Open MPI
  // internal in lower case (mpi_errors_are_fatal_comm_handler) is no call of the program.
  // Fortran's (mpi_comm_rank_, MPI_COMM_RANK) read as C's would, but for case.
  bool fortran_lower = lower && f.back() == '_';
  bool fortran_upper = upper && std::none_of(rest.begin(), rest.end(), [](char c) {
                         return std::islower(static_cast<unsigned char>(c));
                       });
  if (upper && !fortran_upper)
    return std::isupper(static_cast<unsigned char>(rest.front())) ? "MPI_" + std::string(rest) : "";
  if (!fortran_lower && !fortran_upper) return "";
  std::string call = "MPI_";
  for (std::size_t i = 0; i < rest.size(); ++i)
    call += static_cast<char>(i == 0 ? std::toupper(static_cast<unsigned char>(rest[i]))
                                     : std::tolower(static_cast<unsigned char>(rest[i])));
  return call;
}

// A stack inside an MPI call is waiting for the other ranks (or the network), whatever the
// thread does meanwhile: Open MPI's blocking calls poll (opal_progress, sched_yield, the
// transports' progress functions) on the CPU. The call the program made, the outermost MPI
// frame, names it: /SyncObject/Message/MPI_Allreduce.
std::optional<runtime_wait> mpi_wait(char, const std::vector<stack_frame>& frames) {
  for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
    auto call = mpi_call(rule_name(f->function));
    if (call.empty()) continue;
    auto w = waiting("Message");
    w.object = std::move(call);
    return w;
  }
  return std::nullopt;
}

// ------------------------------------------------------------------ serialisers, yields

std::optional<runtime_wait> python_gil_wait(char, const std::vector<stack_frame>& frames) {
  for (auto& f : frames)
    if (rule_name(f.function) == "take_gil") {
      auto w = waiting("");
      w.serializer = true;
      return w;
    }
  return std::nullopt;
}

std::optional<runtime_wait> yield_loop_wait(char, const std::vector<stack_frame>& frames) {
  for (auto& f : frames) {
    if (!c_library_frame(f)) return std::nullopt;
    if (rule_name(f.function) == "sched_yield") return waiting("Yield");
  }
  return std::nullopt;
}

// The rules, first match wins: a runtime that knows its own frames goes before the generic
// event loops and yields.
const wait_rule rules[] = {mpi_wait,        openmp_wait,     go_runtime_wait, libuv_wait,
                           event_loop_wait, python_gil_wait, yield_loop_wait};

}  // namespace

std::string rule_name(const std::string& function) {
  auto f = plain_function_name(function);
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view suffix : {".abi0", ".cold"})
      if (ends_with(f, suffix)) {
        f.erase(f.size() - suffix.size());
        stripped = true;
      }
    // A numbered clone: ".constprop.0", ".isra.0", ".part.0", ".lto_priv.0".
    auto dot = f.rfind('.');
    if (dot != std::string::npos && dot + 1 < f.size() &&
        std::all_of(f.begin() + static_cast<std::ptrdiff_t>(dot) + 1, f.end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      auto clone = f.rfind('.', dot - 1);
      if (clone != std::string::npos) {
        auto kind = f.substr(clone + 1, dot - clone - 1);
        if (kind == "constprop" || kind == "isra" || kind == "part" || kind == "lto_priv") {
          f.erase(clone);
          stripped = true;
        }
      }
    }
  }
  return f;
}

bool c_library_frame(const stack_frame& frame) {
  return proc::c_library_module(frame.module) || proc::loader_module(frame.module);
}

runtime_wait match_runtime_wait(char state, const std::vector<stack_frame>& frames) {
  for (auto rule : rules)
    if (auto w = rule(state, frames)) return *w;
  return {};
}

}  // namespace perfdm::native
