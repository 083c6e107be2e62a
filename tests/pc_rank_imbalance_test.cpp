// An MPI job's processes and its load imbalance as one finding (proc/mpi_job.hpp,
// pc/rank_imbalance.hpp): ranks read from the environment, launchers told by name, and the
// late rank's function first, the other ranks' waits at the MPI call blamed on it.
#include <catch2/catch.hpp>

#include <string>

#include "pc/finding_folding.hpp"
#include "pc/findings.hpp"
#include "pc/rank_imbalance.hpp"
#include "proc/mpi_job.hpp"

using namespace perfdm;
using namespace perfdm::pc;

namespace {

std::string environ_of(std::initializer_list<const char*> entries) {
  std::string out;
  for (auto e : entries) out += std::string(e) + '\0';
  return out;
}

std::string rank_machine(int rank) {
  return "/Machine/h/mpi_imbalance.rank" + std::to_string(rank) + "{" +
         std::to_string(100 + rank) + "}";
}

node_view node(std::uint64_t id, std::string hyp, std::string code, std::string machine,
               std::string sync, double value, double score) {
  node_view n;
  n.id = id;
  n.hypothesis = std::move(hyp);
  n.code = std::move(code);
  n.machine = std::move(machine);
  n.syncobject = std::move(sync);
  n.state = "true";
  n.value = value;
  n.threshold = n.hypothesis == "CPUbound" ? 0.3 : 0.2;
  n.since = 1.0 + static_cast<double>(id) / 10;
  n.score = score;
  return n;
}

// What a search of `mpirun -np 3 mpi_imbalance` ends with on a loaded machine: ranks 0 and 1
// wait at MPI_Allreduce (their waits score high: they are most of their time), rank 2
// computes in relax_cells (its score lower: it shares the CPUs with their polling); rank 1's
// own share of relax_cells passes CPUbound's threshold too.
std::vector<node_view> job(const std::string& call = "MPI_Allreduce") {
  return {
      node(1, "ExcessiveSyncWaitingTime", "/Code/libmpi.so.40/PMPI_Allreduce", rank_machine(0),
           "/SyncObject/Message/" + call, 0.80, 0.80),
      node(2, "ExcessiveSyncWaitingTime", "/Code/libmpi.so.40/PMPI_Allreduce", rank_machine(1),
           "/SyncObject/Message/" + call, 0.76, 0.76),
      node(3, "CPUbound", "/Code/mpi_imbalance/relax_cells", rank_machine(2), "/SyncObject", 0.55,
           0.55),
      node(4, "CPUbound", "/Code/mpi_imbalance/relax_cells", rank_machine(1), "/SyncObject", 0.45,
           0.45),
      // The same waits over the whole job, a focus above the ranks.
      node(5, "ExcessiveSyncWaitingTime", "/Code/libmpi.so.40/ompi_coll_base_sendrecv_actual",
           "/Machine", "/SyncObject/Message/" + call, 0.44, 0.44),
  };
}

}  // namespace

TEST_CASE("pc R7: a rank from the launcher's variables, launchers by their names",
          "[pc][pc-rules][mpi]") {
  CHECK(proc::rank_in_environment(environ_of({"PATH=/bin", "OMPI_COMM_WORLD_RANK=2"})) == 2);
  CHECK(proc::rank_in_environment(environ_of({"PMIX_RANK=5", "HOME=/root"})) == 5);
  CHECK(proc::rank_in_environment(environ_of({"PMI_RANK=7"})) == 7);
  CHECK(proc::rank_in_environment(environ_of({"SLURM_PROCID=3"})) == 3);
  // Open MPI's own variable first, whatever the order in the environment.
  CHECK(proc::rank_in_environment(environ_of({"PMIX_RANK=1", "OMPI_COMM_WORLD_RANK=4"})) == 4);
  CHECK_FALSE(proc::rank_in_environment(environ_of({"PATH=/bin", "OMPI_COMM_WORLD_RANKS=1"})));
  CHECK_FALSE(proc::rank_in_environment(environ_of({"PMI_RANK=x"})));
  CHECK_FALSE(proc::rank_in_environment(""));
  for (auto* l : {"/usr/bin/orterun", "mpirun", "mpiexec", "/usr/bin/mpirun.openmpi", "orted",
                  "prterun", "prted", "hydra_pmi_proxy", "mpiexec.hydra", "srun", "slurmstepd"})
    CHECK(proc::mpi_launcher(l));
  for (auto* p : {"/opt/app/mpi_imbalance", "mpirunner", "/usr/bin/xz", ""})
    CHECK_FALSE(proc::mpi_launcher(p));
  CHECK(proc::ranked_process_name("relax", 2) == "relax.rank2");
  CHECK(proc::ranked_process_name("relax", std::nullopt) == "relax");
  CHECK(proc::rank_in_process_name("relax.rank12") == 12);
  CHECK_FALSE(proc::rank_in_process_name("relax"));
  CHECK_FALSE(proc::rank_in_process_name("relax.rank"));
  CHECK(rank_list({1, 0}) == "0\u20131");
  CHECK(rank_list({4}) == "4");
  CHECK(rank_list({0, 1, 2, 5, 7, 8, 9}) == "0\u20132, 5, 7\u20139");
}

TEST_CASE("pc R6: the late rank's function first, the others' waits at the MPI call under it",
          "[pc][pc-rules][mpi]") {
  auto f = findings(job());
  REQUIRE(f.size() == 5);
  INFO(f[0].text << '\n' << f[1].text << '\n' << f[2].text << '\n' << f[3].text << '\n'
                 << f[4].text);
  CHECK(f[0].node.id == 3);
  CHECK(f[0].text.rfind("rank 2's relax_cells (mpi_imbalance) delays ranks 0\u20131 at "
                        "MPI_Allreduce by \u2248 78% of their time \u2014 CPUbound 55% of time",
                        0) == 0);
  // Ranked by what its fix saves: the waiting ranks' mean share at the call.
  CHECK(f[0].score == Approx(0.78));
  // The waits follow it, blamed on it, and save nothing by themselves.
  for (std::size_t i : {1, 2, 3}) {
    CHECK(f[i].node.hypothesis == "ExcessiveSyncWaitingTime");
    CHECK(f[i].text.find("caused by rank 2's relax_cells") != std::string::npos);
    CHECK(f[i].score == 0);
  }
  // A waiting rank's own share of the function is no imbalance.
  CHECK(f[4].node.id == 4);
  CHECK(f[4].text.rfind("CPUbound 45% of time in relax_cells", 0) == 0);
  CHECK(imbalance_finding(f[0]));
  CHECK_FALSE(imbalance_finding(f[4]));
  // Folded by rank: the two waits are one line, "in 2 of 3 ranks".
  std::vector<searched_process> searched;
  for (int r = 0; r < 3; ++r) searched.push_back({100 + r, rank_machine(r), "", "h"});
  auto folded = fold_findings(f, searched, job());
  REQUIRE(folded.size() == 4);
  // The late rank's function stays one finding, never folded with rank 1's share of it.
  CHECK_FALSE(folded[0].folded);
  CHECK(folded[0].text.find("rank 2's relax_cells") == 0);
  CHECK(folded[3].text.find("CPUbound 45% of time in relax_cells") == 0);
  CHECK(folded[1].folded);
  CHECK(folded[1].text.find("on Message/MPI_Allreduce \u2014 in 2 of 3 ranks") != std::string::npos);
  CHECK(folded[1].text.find("caused by rank 2's relax_cells") != std::string::npos);
}

TEST_CASE("pc R6: ranks that finish first wait at MPI_Finalize for the late rank's work",
          "[pc][pc-rules][mpi]") {
  auto f = findings(job("MPI_Finalize"));
  REQUIRE(f.size() == 5);
  INFO(f[0].text);
  CHECK(f[0].node.id == 3);
  CHECK(f[0].text.rfind("rank 2's relax_cells (mpi_imbalance) delays ranks 0\u20131 at "
                        "MPI_Finalize by \u2248 78% of their time",
                        0) == 0);
  for (std::size_t i : {1, 2, 3}) {
    CHECK(f[i].node.hypothesis == "ExcessiveSyncWaitingTime");
    CHECK(f[i].text.find("caused by rank 2's relax_cells") != std::string::npos);
  }
}

TEST_CASE("pc R6: no imbalance without ranks, nor at MPI_Init", "[pc][pc-rules][mpi]") {
  // The same waits at start-up are no rank's fault: they keep their own rank.
  auto at_init = findings(job("MPI_Init"));
  REQUIRE(at_init.size() == 5);
  CHECK(at_init[0].node.id == 1);
  CHECK(at_init[0].text.rfind("ExcessiveSyncWaitingTime 80% of time", 0) == 0);
  for (auto& x : at_init) CHECK(x.text.find("caused by") == std::string::npos);
  // Processes without ranks: three programs that happen to wait and compute.
  auto plain = job();
  for (auto& n : plain)
    if (n.machine != "/Machine") n.machine.replace(n.machine.find(".rank"), 6, "");
  auto f = findings(plain);
  REQUIRE(f.size() == 5);
  CHECK(f[0].node.id == 1);
  for (auto& x : f) CHECK(x.text.find("delays") == std::string::npos);
}
