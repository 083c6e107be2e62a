#include "cli/profile_export.hpp"

#include <fstream>
#include <sstream>

#include "log/log_print.hpp"
#include "log/modules/native_log_module.hpp"
#include "profile/call_path_store.hpp"

namespace perfdm {

void add_profile_export_options(CLI::App* sub, profile_export_options& o) {
  sub->add_option("--folded", o.folded,
                  "write the call paths as folded stacks (root;...;leaf COUNT: flamegraph.pl, "
                  "inferno, speedscope) to this file");
  sub->add_option("--pprof", o.pprof,
                  "write the call paths as a gzipped pprof profile (go tool pprof, Pyroscope, "
                  "Parca) to this file");
  sub->add_option("--view", o.view,
                  "the samples --folded and --pprof write: cpu (running, default), offcpu "
                  "(lock, io, sleep, other), lock, io, sleep, other or all")
      ->check(CLI::IsMember({"cpu", "offcpu", "lock", "io", "sleep", "other", "all"}));
}

namespace {

// `perfdm log`'s row: module, record id, counter, value, name.
bool stack_row(const std::string& line, profile::counted_stack& s) {
  std::string cols[5];
  std::size_t begin = 0;
  for (int i = 0; i < 4; ++i) {
    auto tab = line.find('\t', begin);
    if (tab == std::string::npos) return false;
    cols[i] = line.substr(begin, tab - begin);
    begin = tab + 1;
  }
  cols[4] = line.substr(begin);
  if (cols[0] != "native" || cols[2] != "count" || cols[4].compare(0, 6, "stack ") != 0)
    return false;
  std::istringstream name(cols[4].substr(6));
  std::uint64_t phase = 0;
  std::int32_t pid = 0;
  std::string state;
  if (!(name >> pid >> phase >> state)) return false;
  name.get();  // the space before the path
  std::getline(name, s.path);
  s.pid = pid;
  s.phase = phase;
  s.state = state;
  s.count = std::stoull(cols[3]);
  return true;
}

}  // namespace

std::vector<profile::counted_stack> log_stacks(const std::string& file) {
  register_native_log_printer();  // the rows come from its printer (again: harmless)
  log_print_options p;
  p.modules = {"native"};
  p.show_partial = true;  // a partial module's call paths are still worth drawing
  std::stringstream rows;
  print_log(file, p, rows);
  std::vector<profile::counted_stack> out;
  profile::counted_stack s;
  for (std::string line; std::getline(rows, line);)
    if (stack_row(line, s)) out.push_back(s);
  return out;
}

std::vector<profile::counted_stack> export_stacks(const flame_export& x) {
  std::vector<profile::counted_stack> out;
  for (auto& ph : x.phases)
    for (auto& p : ph.paths) out.push_back({p.path, p.state, ph.phase, x.pid, p.count});
  return out;
}

int write_profile_exports(const profile_export_options& o,
                          const std::vector<profile::counted_stack>& stacks, std::ostream& err,
                          const std::string& who) {
  auto mask = profile::view_mask(o.view);
  if (!mask) {
    err << who << ": unknown --view " << o.view << '\n';
    return 1;
  }
  std::vector<profile::counted_stack> kept;
  for (auto& s : stacks)
    if (auto st = profile::parse_state(s.state); st && (*mask >> static_cast<unsigned>(*st) & 1))
      kept.push_back(s);
  if (stacks.empty()) {
    err << who << ": no call paths to write (no process was watched with stack sampling)\n";
    return 1;
  }
  int rc = 0;
  if (!o.folded.empty()) {
    std::ofstream f(o.folded, std::ios::binary | std::ios::trunc);
    auto sum = f ? profile::write_folded(kept, f) : 0;
    f.close();
    if (!f) {
      err << who << ": cannot write " << o.folded << '\n';
      rc = 1;
    } else {
      err << who << ": wrote " << o.folded << " (folded stacks, " << sum << " " << o.view
          << " samples)\n";
    }
  }
  if (!o.pprof.empty()) {
    try {
      profile::write_pprof_file(kept, o.pprof);
      err << who << ": wrote " << o.pprof << " (pprof, " << kept.size() << " call paths of view "
          << o.view << ")\n";
    } catch (const std::exception& e) {
      err << who << ": " << e.what() << '\n';
      rc = 1;
    }
  }
  return rc;
}

int run_log_profile_export(const std::string& file, const profile_export_options& o,
                           std::ostream& err) {
  std::vector<profile::counted_stack> stacks;
  try {
    stacks = log_stacks(file);
  } catch (const std::exception& e) {
    err << "perfdm log: " << file << ": " << e.what() << '\n';
    return 1;
  }
  return write_profile_exports(o, stacks, err, "perfdm log: " + file);
}

}  // namespace perfdm
