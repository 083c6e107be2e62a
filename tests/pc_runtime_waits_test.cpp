// The runtime wait rules (native/runtime_waits.hpp) and what they change in the Performance
// Consultant's metrics, on synthetic stacks as the sampler sees them (innermost first): a
// runtime's idle threads are idle, its spin loops are waiting, an event loop's epoll is no I/O,
// and reading /proc or hwloc's topology is no data I/O (native/data_io.hpp).
#include <catch2/catch.hpp>

#include "native/data_io.hpp"
#include "native/focus_attribution.hpp"
#include "native/runtime_waits.hpp"
#include "native/thread_proc_files.hpp"
#include "tests/sampled_stacks.hpp"

using namespace perfdm::native;
using sampled_stacks::frame;
using sampled_stacks::futex_on;

namespace {

const char* const app = "/opt/app/omp_app";
const char* const libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
const char* const gomp = "/usr/lib/x86_64-linux-gnu/libgomp.so.1";
const char* const kmp = "/usr/lib/x86_64-linux-gnu/libomp.so.5";
const char* const node = "/usr/bin/node";
const char* const go = "/opt/app/hasher";
const char* const python = "/usr/bin/python3.11";

std::vector<stack_frame> thread_start(std::vector<stack_frame> inner) {
  inner.push_back(frame(libc, "start_thread"));
  inner.push_back(frame(libc, "clone3"));
  return inner;
}

runtime_wait rule(std::vector<stack_frame> frames, char state = 'S') {
  return match_runtime_wait(state, frames);
}

sampled_thread sampled(char state, std::vector<stack_frame> frames, const thread_syscall& s = {}) {
  thread_stack t{7, "t", state, std::move(frames), {}, {}};
  auto io = [](const std::string&, const std::string& f) {
    return f == "read" || f == "epoll_wait" || f == "poll";
  };
  return describe_thread(t, classify_thread(state, t.frames, io), s);
}

}  // namespace

TEST_CASE(
    "pc R1 R10: an OpenMP pool thread without program code is idle, one under the "
    "program's code waits",
    "[pc][pc-rules]") {
  // libgomp's inner functions are hidden: a stripped library names them by address.
  auto docked = thread_start({frame(libc, "syscall"), frame(gomp, "libgomp.so.1+0x1e0a0"),
                              frame(gomp, "libgomp.so.1+0x1c2f0")});
  CHECK(rule(docked).role == wait_role::idle);
  CHECK(rule(docked, 'R').role == wait_role::idle);  // spinning in the dock: idle too
  auto master = std::vector<stack_frame>{frame(gomp, "libgomp.so.1+0x1e0a0"),
                                         frame(gomp, "GOMP_parallel"), frame(app, "main")};
  auto at_barrier = rule(master, 'R');
  CHECK(at_barrier.role == wait_role::waiting);
  CHECK(at_barrier.kind == "Barrier");
  auto critical = thread_start({frame(gomp, "gomp_mutex_lock_slow"), frame(app, "main._omp_fn.0"),
                                frame(gomp, "libgomp.so.1+0x1c2f0")});
  CHECK(rule(critical).kind == "Mutex");
  // LLVM's runtime by its names.
  CHECK(rule(thread_start({frame(kmp, "__kmp_wait_4"), frame(kmp, "__kmp_fork_barrier"),
                           frame(kmp, "__kmp_launch_thread")}))
            .role == wait_role::idle);
  CHECK(rule({frame(kmp, "__kmp_wait_template"), frame(kmp, "__kmp_barrier"),
              frame(kmp, "__kmpc_barrier"), frame(app, "relax")},
             'R')
            .role == wait_role::waiting);
  // The program's own code on the CPU is nobody's wait.
  CHECK(rule({frame(app, "relax"), frame(gomp, "GOMP_parallel"), frame(app, "main")}, 'R').role ==
        wait_role::none);
}

TEST_CASE("pc R12: the Go runtime's idle threads by their frames, .abi0 or not", "[pc][pc-rules]") {
  auto stopm =
      std::vector<stack_frame>{frame(go, "runtime.futex.abi0"),   frame(go, "runtime.futexsleep"),
                               frame(go, "runtime.notesleep"),    frame(go, "runtime.stopm"),
                               frame(go, "runtime.findRunnable"), frame(go, "runtime.schedule"),
                               frame(go, "runtime.park_m"),       frame(go, "runtime.mcall.abi0")};
  CHECK(rule(stopm).role == wait_role::idle);
  CHECK(rule({frame(go, "runtime.usleep.abi0"), frame(go, "runtime.sysmon"),
              frame(go, "runtime.newm.func1"), frame(go, "runtime.mstart1"),
              frame(go, "runtime.mstart0"), frame(go, "runtime.mstart.abi0")})
            .role == wait_role::idle);
  CHECK(rule({frame(go, "runtime.epollwait.abi0"), frame(go, "runtime.netpoll"),
              frame(go, "runtime.findRunnable"), frame(go, "runtime.schedule")})
            .role == wait_role::idle);
  // A runtime lock taken under the program's code is contention.
  auto lock = rule({frame(go, "runtime.futex.abi0"), frame(go, "runtime.lock2"),
                    frame(go, "runtime.mallocgc"), frame(go, "main.hash")});
  CHECK(lock.role == wait_role::waiting);
  CHECK(lock.kind == "Mutex");
  // The program's goroutine running is no wait.
  CHECK(rule({frame(go, "crypto/sha256.block.abi0"), frame(go, "main.hash")}, 'R').role ==
        wait_role::none);
  CHECK(rule_name("runtime.futex.abi0") == "runtime.futex");
  CHECK(rule_name("__GI___poll") == "poll");
  CHECK(rule_name("gomp_team_barrier_wait_end.constprop.0") == "gomp_team_barrier_wait_end");
}

TEST_CASE("pc R8 R12: libuv's pool and an event loop's epoll are idle, a client's poll stays I/O",
          "[pc][pc-rules]") {
  auto pool = sampled('S',
                      thread_start({frame(libc, "__futex_abstimed_wait_common"),
                                    frame(libc, "___pthread_cond_wait"),
                                    frame(node, "uv_cond_wait"), frame(node, "worker")}),
                      futex_on(0x5000));
  CHECK(pool.role == wait_role::idle);
  CHECK(counts_as_idle(pool));
  CHECK_FALSE(counts_as_sync_wait(pool));
  auto loop =
      sampled('S', {frame(libc, "epoll_wait"), frame(node, "uv__io_poll"), frame(node, "uv_run"),
                    frame(node, "node::SpinEventLoop"), frame(node, "main")});
  CHECK(loop.activity == thread_activity::ios);  // what the state and the call say
  CHECK(loop.role == wait_role::idle);           // what the loop says
  CHECK_FALSE(counts_as_io(loop));
  CHECK(counts_as_idle(loop));
  CHECK(thread_amount(pc_metric::io_wait, loop, 0.01, false) == 0);
  // libevent's loop too; a client's own poll on its peer is I/O.
  CHECK(rule({frame(libc, "__GI___poll"), frame(app, "libevent+0x10"),
              frame(app, "event_base_loop"), frame(app, "progress")})
            .role == wait_role::idle);
  auto client =
      sampled('S', {frame(libc, "poll"), frame(app, "wait_for_reply"), frame(app, "main")});
  CHECK(client.role == wait_role::none);
  CHECK(counts_as_io(client));
}

TEST_CASE(
    "pc R10 R15: a sched_yield loop and an OpenMP spin are sync waiting, never CPU, the "
    "GIL is a serialiser",
    "[pc][pc-rules]") {
  auto spin = sampled(
      'R', {frame(gomp, "libgomp.so.1+0x1e0a0"), frame(gomp, "GOMP_barrier"), frame(app, "relax")});
  CHECK(spin.activity == thread_activity::runs);
  CHECK_FALSE(counts_as_cpu(spin));
  CHECK(counts_as_sync_wait(spin));
  CHECK(spin.waits_on.kind == "Barrier");
  CHECK(thread_amount(pc_metric::cpu, spin, 0.01, false) == 0);
  CHECK(thread_amount(pc_metric::sync_wait, spin, 0.01, false) == Approx(0.01));
  // Asleep in the runtime's futex: the barrier named by its address.
  auto asleep = sampled('S',
                        {frame(libc, "syscall"), frame(gomp, "libgomp.so.1+0x1e0a0"),
                         frame(gomp, "GOMP_barrier"), frame(app, "relax")},
                        futex_on(0x7000));
  CHECK(asleep.waits_on.kind == "Barrier");
  CHECK(asleep.waits_on.object == "0x7000");
  auto yield = sampled('R', {frame(libc, "sched_yield"), frame(app, "wait_for_flag")});
  CHECK(counts_as_sync_wait(yield));
  CHECK(yield.waits_on.kind == "Yield");
  auto gil = sampled(
      'S',
      {frame(libc, "__futex_abstimed_wait_common"), frame(libc, "___pthread_cond_timedwait64"),
       frame(python, "take_gil"), frame(python, "PyEval_RestoreThread")},
      futex_on(0x9008c));
  CHECK(gil.serializer);
  CHECK(counts_as_sync_wait(gil));
  CHECK(gil.waits_on.kind == "CondVar");
  CHECK(gil.waits_on.object == "0x90088");
  // Plain computing is CPU.
  auto hot = sampled('R', {frame(app, "relax"), frame(app, "main")});
  CHECK(counts_as_cpu(hot));
  CHECK_FALSE(counts_as_sync_wait(hot));
}

TEST_CASE("pc R9: pseudo-files, event descriptors and start-up discovery are no data I/O",
          "[pc][pc-rules]") {
  CHECK(pseudo_file("/File/proc/self/stat"));
  CHECK(pseudo_file("/File/sys/devices/system/cpu/cpu0/topology/core_id"));
  CHECK(pseudo_file("/File/dev/shm/ompi.sm"));
  CHECK(pseudo_file("/File/anon_inode:[eventfd]"));
  CHECK_FALSE(pseudo_file("/File/tmp/db/test.db"));
  CHECK_FALSE(pseudo_file("/File/process/data"));  // a folder that only starts alike
  CHECK_FALSE(pseudo_file("/File/pipe:[812]"));
  CHECK_FALSE(pseudo_file(""));
  const char* hwloc = "/usr/lib/x86_64-linux-gnu/libhwloc.so.15";
  CHECK(startup_discovery({frame(libc, "read"), frame(hwloc, "hwloc_linux_parse_cpuinfo"),
                           frame(hwloc, "hwloc_topology_load"), frame(app, "main")}));
  CHECK(startup_discovery(
      {frame(libc, "read"), frame(app, "opal_init"), frame(app, "PMPI_Init"), frame(app, "main")}));
  CHECK_FALSE(
      startup_discovery({frame(libc, "read"), frame(app, "load_table"), frame(app, "main")}));
}

namespace {

// Open MPI 4.1.4's libraries as Debian installs them.
const char* const mpi_app = "/opt/app/mpi_imbalance";
const char* const libmpi = "/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4";
const char* const libpal = "/usr/lib/x86_64-linux-gnu/libopen-pal.so.40.30.2";
const char* const ob1 = "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ob1.so";
const char* const tuned = "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_coll_tuned.so";
const char* const libevent = "/usr/lib/x86_64-linux-gnu/libevent_core-2.1.so.7.0.1";

std::vector<stack_frame> from_main(std::vector<stack_frame> inner) {
  inner.push_back(frame(mpi_app, "main"));
  inner.push_back(frame(libc, "__libc_start_call_main"));
  inner.push_back(frame(libc, "__libc_start_main@@GLIBC_2.34"));
  inner.push_back(frame(mpi_app, "_start"));
  return inner;
}

}  // namespace

TEST_CASE("pc R5: a stack inside an MPI call waits at the call, polling or asleep, never CPU",
          "[pc][pc-rules][mpi]") {
  // Recorded (eu-stack) from ranks 0 and 1 of `mpirun -np 3 mpi_imbalance` while rank 2
  // computes: Open MPI polls with sched_yield, on the CPU.
  auto recv = from_main({frame(libc, "__sched_yield"), frame(ob1, "mca_pml_ob1_recv"),
                         frame(libmpi, "ompi_coll_base_allreduce_intra_recursivedoubling"),
                         frame(tuned, "ompi_coll_tuned_allreduce_intra_dec_fixed"),
                         frame(libmpi, "PMPI_Allreduce")});
  auto wait = from_main({frame(libc, "__sched_yield"), frame(libmpi, "ompi_request_default_wait"),
                         frame(libmpi, "ompi_coll_base_sendrecv_actual"),
                         frame(libmpi, "ompi_coll_base_allreduce_intra_recursivedoubling"),
                         frame(tuned, "ompi_coll_tuned_allreduce_intra_dec_fixed"),
                         frame(libmpi, "PMPI_Allreduce")});
  auto progress = from_main({frame(libpal, "opal_progress"), frame(libmpi, "ompi_request_default_wait"),
                             frame(libmpi, "MPI_Recv")});
  for (char state : {'R', 'S'}) {
    INFO("state " << state);
    auto w = rule(recv, state);
    CHECK(w.role == wait_role::waiting);
    CHECK(w.kind == "Message");
    CHECK(w.object == "MPI_Allreduce");
    CHECK(rule(wait, state).object == "MPI_Allreduce");
    CHECK(rule(progress, state).object == "MPI_Recv");
    auto t = sampled(state, recv);
    CHECK_FALSE(counts_as_cpu(t));
    CHECK(counts_as_sync_wait(t));
    CHECK_FALSE(counts_as_idle(t));
    CHECK(t.waits_on.kind == "Message");
    CHECK(t.waits_on.object == "MPI_Allreduce");
  }
  // Fortran's names read as C's; the outermost call is the program's.
  CHECK(rule(from_main({frame(libpal, "opal_progress"), frame(libmpi, "mpi_allreduce_")}), 'R')
            .object == "MPI_Allreduce");
  CHECK(rule(from_main({frame(libpal, "opal_progress"), frame(libmpi, "pmpi_wait__")}), 'R')
            .object == "MPI_Wait");
  CHECK(rule(from_main({frame(libpal, "opal_progress"), frame(libmpi, "MPI_WAITALL")}), 'R')
            .object == "MPI_Waitall");
  CHECK(rule(from_main({frame(libmpi, "PMPI_Wait"), frame(libmpi, "PMPI_Sendrecv")}), 'R')
            .object == "MPI_Sendrecv");
  // The slow rank's own work, and Open MPI's helper threads (libevent loops): no MPI call.
  auto compute = from_main({frame(mpi_app, "relax_cells")});
  CHECK(rule(compute, 'R').role == wait_role::none);
  CHECK(counts_as_cpu(sampled('R', compute)));
  auto helper = thread_start({frame(libc, "__poll"), frame(libevent, "libevent_core-2.1.so.7+0x189b5"),
                              frame(libevent, "event_base_loop"),
                              frame(libpal, "libopen-pal.so.40+0x5a9ee")});
  CHECK(rule(helper).role == wait_role::idle);
  // Open MPI's internals in lower case are no call of the program.
  CHECK(rule(from_main({frame(libmpi, "mpi_errors_are_fatal_comm_handler")}), 'R').role ==
        wait_role::none);
  // MPI_Finalize and MPI_Init tail-call Open MPI's implementations: a rank that finished first
  // polls in ompi_mpi_finalize under main, with no MPI_ frame, and waits at MPI_Finalize.
  auto finalize = rule(from_main({frame(libc, "__sched_yield"), frame(libmpi, "ompi_mpi_finalize")}), 'R');
  CHECK(finalize.role == wait_role::waiting);
  CHECK(finalize.kind == "Message");
  CHECK(finalize.object == "MPI_Finalize");
  CHECK(rule(from_main({frame(libc, "read"), frame(libmpi, "ompi_mpi_init")}), 'S').object ==
        "MPI_Init");
}
