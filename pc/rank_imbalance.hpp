// Load imbalance across the ranks of an MPI job, as one finding (the Performance Consultant's
// rule R6, after Scalasca's Wait at N×N and its delay costs): when some ranks wait at an MPI
// call (ExcessiveSyncWaitingTime on /SyncObject/Message/<call>, native/runtime_waits.hpp) while
// another rank computes (CPUbound in a function, no wait at that call), the computing rank's
// function delays the others. The finding is that function's, in the words
//   "rank 2's relax_cells (app) delays ranks 0–1 at MPI_Allreduce by ≈ 78% of their time"
// ranked by what its fix would save: the waiting ranks' mean share of time at the call (were
// the late rank as fast as the others, they would not wait), or its own score where higher.
// The waits it causes follow it ("— caused by rank 2's relax_cells"), those seen over the
// whole job at that call too, and save nothing by themselves: score 0.
// Ranks are told by their process names (proc/mpi_job.hpp: "app.rank2{4242}"); MPI_Init and
// MPI_Finalize are start-up and tear-down, never imbalance.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pc/findings.hpp"

namespace perfdm::pc {

// The rank of the process a finding's /Machine part names; nullopt when it names none or the
// process has no rank.
std::optional<int> rank_of(const finding& f);

// "0–1", "0, 2, 5–7": ranks in order, runs joined.
std::string rank_list(std::vector<int> ranks);

// Whether a finding is an imbalance finding blame_rank_imbalance wrote (its text begins
// "rank 2's … delays"): folding leaves it as it is, never merged with other ranks' CPU.
bool imbalance_finding(const finding& f);

// Turns the findings' cross-rank waits into imbalance findings (see above), in place, and
// ranks them again: each caused wait right after the finding it is blamed on.
void blame_rank_imbalance(std::vector<finding>& ranked);

}  // namespace perfdm::pc
