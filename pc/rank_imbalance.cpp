#include "pc/rank_imbalance.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "pc/machine_name.hpp"
#include "proc/mpi_job.hpp"

namespace perfdm::pc {

namespace {

const std::string message_root = "/SyncObject/Message";

// The MPI call a wait finding is at ("MPI_Allreduce"; "" for Message waits at no one call);
// nullopt when it is no MPI wait.
std::optional<std::string> mpi_call_of(const finding& f) {
  auto& n = f.node;
  if (n.hypothesis != "ExcessiveSyncWaitingTime") return std::nullopt;
  if (n.syncobject == message_root) return std::string();
  if (n.syncobject.compare(0, message_root.size() + 1, message_root + "/") != 0)
    return std::nullopt;
  return n.syncobject.substr(message_root.size() + 1);
}

// Waits while the ranks start are the launch's skew, no rank's work. A wait at MPI_Finalize
// is: the ranks that finish first wait there for the last one's work.
bool start_up(const std::string& call) {
  return call == "MPI_Init" || call == "MPI_Init_thread";
}

// "relax_cells" from "relax_cells (app)".
std::string function_only(const std::string& function) {
  auto paren = function.rfind(" (");
  return paren == std::string::npos ? function : function.substr(0, paren);
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100);
  return buf;
}

}  // namespace

std::optional<int> rank_of(const finding& f) {
  machine_name m;
  if (!parse_machine_name(f.node.machine, m) || m.depth < 2) return std::nullopt;
  auto brace = m.process.rfind('{');
  return proc::rank_in_process_name(brace == std::string::npos ? m.process
                                                               : m.process.substr(0, brace));
}

std::string rank_list(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    auto j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(ranks[i]);
    if (j > i) out += "\u2013" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

bool imbalance_finding(const finding& f) {
  return (f.text.rfind("rank ", 0) == 0 || f.text.rfind("ranks ", 0) == 0) &&
         f.text.find(" delays rank") != std::string::npos;
}

void blame_rank_imbalance(std::vector<finding>& ranked) {
  // The waits by MPI call: which ranks, which findings.
  struct waits_at {
    std::set<int> ranks;
    std::vector<std::size_t> findings;
  };
  std::map<std::string, waits_at> waits;
  std::set<int> any_wait;
  // The same waits seen over the whole job (a focus above the ranks): caused as well.
  std::map<std::string, std::vector<std::size_t>> job_waits;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    auto r = rank_of(ranked[i]);
    auto call = mpi_call_of(ranked[i]);
    if (!call || start_up(*call)) continue;
    if (!r) {
      job_waits[*call].push_back(i);
      continue;
    }
    waits[*call].ranks.insert(*r);
    waits[*call].findings.push_back(i);
    any_wait.insert(*r);
  }
  std::map<std::size_t, std::size_t> caused_by;  // wait finding -> the finding it is blamed on
  for (auto& [call, w] : waits) {
    // The late ranks: computing (CPUbound at a function) and not waiting at any MPI call.
    const finding* best = nullptr;
    std::size_t best_at = 0;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      auto& f = ranked[i];
      auto r = rank_of(f);
      if (!r || any_wait.count(*r) || f.node.hypothesis != "CPUbound" || f.function.empty())
        continue;
      if (!best || f.score > best->score) {
        best = &f;
        best_at = i;
      }
    }
    if (!best) continue;
    std::vector<int> late;  // the ranks whose best CPU finding is the same function
    for (auto& f : ranked)
      if (auto r = rank_of(f); r && !any_wait.count(*r) && f.node.hypothesis == "CPUbound" &&
                               f.function == best->function)
        late.push_back(*r);
    double share = 0;
    for (auto i : w.findings) share += ranked[i].node.value;
    share /= static_cast<double>(w.findings.size());
    auto& culprit = ranked[best_at];
    std::string who = late.size() == 1 ? "rank " + rank_list(late) + "'s "
                                       : "ranks " + rank_list(late) + "' ";
    std::string waiting = w.ranks.size() == 1 ? "rank " : "ranks ";
    culprit.text = who + culprit.function + " delays " + waiting +
                   rank_list({w.ranks.begin(), w.ranks.end()}) + " at " +
                   (call.empty() ? std::string("MPI calls") : call) + " by \u2248 " +
                   percent(share) + " of their time \u2014 " + culprit.text;
    culprit.score = culprit.node.score = std::max(culprit.score, share);
    for (auto i : w.findings) caused_by[i] = best_at;
    for (auto i : job_waits[call]) caused_by[i] = best_at;
  }
  if (caused_by.empty()) return;
  for (auto& [i, by] : caused_by) {
    auto& f = ranked[i];
    auto r = rank_of(ranked[by]);
    f.text += " \u2014 caused by rank " + std::to_string(r ? *r : -1) + "'s " +
              function_only(ranked[by].function);
    f.score = f.node.score = 0;
  }
  // Ranked again: the blamed first in their new order, each followed by what it causes.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < ranked.size(); ++i)
    if (!caused_by.count(i)) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ranked[a].score > ranked[b].score;
  });
  std::vector<finding> out;
  for (auto i : order) {
    out.push_back(ranked[i]);
    for (auto& [w, by] : caused_by)
      if (by == i) out.push_back(ranked[w]);
  }
  ranked = std::move(out);
}

}  // namespace perfdm::pc
