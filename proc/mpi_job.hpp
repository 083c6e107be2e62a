// The processes of an MPI job as the kernel shows them (docs/NATIVE.md §8 "MPI jobs"): which
// are the launcher's (mpirun and its daemons: infrastructure, never searched), and which rank
// each of the others is, from the variables the launcher sets in its environment. No MPI
// library is needed: /proc/PID/environ and /proc/PID/exe tell it all.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace perfdm::proc {

// The rank in an environment as /proc/PID/environ holds it (NUL-separated NAME=VALUE), from
// the first of OMPI_COMM_WORLD_RANK (Open MPI), PMIX_RANK (PMIx launchers), PMI_RANK (MPICH's
// Hydra), SLURM_PROCID (srun) with a number for a value; nullopt when none.
std::optional<int> rank_in_environment(std::string_view environ);

// The rank of process `pid`, nullopt when it has none or its environment cannot be read.
std::optional<int> process_rank(pid_t pid);

// Whether an executable (a path or a name) is an MPI launcher or one of its daemons: mpirun,
// mpiexec, orterun, orted (Open MPI ≤ 4), prterun, prte, prted (Open MPI 5, PRRTE),
// mpiexec.hydra, hydra_pmi_proxy (MPICH), srun, slurmstepd (Slurm).
bool mpi_launcher(std::string_view executable);

// A process's name with its rank, where it has one: "relax.rank2"; else `name`.
std::string ranked_process_name(const std::string& name, std::optional<int> rank);

// The rank in a process name ranked_process_name made ("relax.rank2" → 2); nullopt when it
// has none.
std::optional<int> rank_in_process_name(std::string_view name);

}  // namespace perfdm::proc
