#include "proc/mpi_job.hpp"

#include <charconv>
#include <fstream>
#include <iterator>

namespace perfdm::proc {

namespace {

constexpr std::string_view rank_suffix = ".rank";

std::optional<int> number(std::string_view text) {
  int x = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc{} || p != text.data() + text.size() || x < 0) return std::nullopt;
  return x;
}

}  // namespace

std::optional<int> rank_in_environment(std::string_view environ) {
  for (std::string_view name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    for (std::size_t at = 0; at < environ.size();) {
      auto end = environ.find('\0', at);
      if (end == std::string_view::npos) end = environ.size();
      auto entry = environ.substr(at, end - at);
      at = end + 1;
      if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
          entry[name.size()] == '=')
        if (auto r = number(entry.substr(name.size() + 1))) return r;
    }
  }
  return std::nullopt;
}

std::optional<int> process_rank(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  if (!in) return std::nullopt;
  std::string environ((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return rank_in_environment(environ);
}

bool mpi_launcher(std::string_view executable) {
  auto slash = executable.rfind('/');
  auto base = slash == std::string_view::npos ? executable : executable.substr(slash + 1);
  for (std::string_view launcher : {"mpirun", "mpiexec", "orterun", "orted", "prterun", "prte",
                                    "prted", "mpiexec.hydra", "hydra_pmi_proxy", "srun",
                                    "slurmstepd"})
    if (base == launcher) return true;
  // Debian's alternatives name the implementation: mpirun.openmpi, mpiexec.mpich.
  for (std::string_view launcher : {"mpirun.", "mpiexec."})
    if (base.compare(0, launcher.size(), launcher) == 0) return true;
  return false;
}

std::string ranked_process_name(const std::string& name, std::optional<int> rank) {
  if (!rank) return name;
  return name + std::string(rank_suffix) + std::to_string(*rank);
}

std::optional<int> rank_in_process_name(std::string_view name) {
  auto at = name.rfind(rank_suffix);
  if (at == std::string_view::npos) return std::nullopt;
  return number(name.substr(at + rank_suffix.size()));
}

}  // namespace perfdm::proc
