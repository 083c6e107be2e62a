#include "profile/profile_files.hpp"

#include <zlib.h>

#include <map>
#include <stdexcept>
#include <unordered_map>

#include "profile.pb.h"

namespace perfdm::profile {

std::uint64_t write_folded(const std::vector<counted_stack>& stacks, std::ostream& out) {
  std::map<std::string, std::uint64_t> lines;
  for (auto& s : stacks) lines[s.path.empty() ? "[unknown]" : s.path] += s.count;
  std::uint64_t sum = 0;
  for (auto& [path, n] : lines) {
    out << path << ' ' << n << '\n';
    sum += n;
  }
  return sum;
}

std::pair<std::string, std::string> split_frame(const std::string& frame) {
  if (frame.size() >= 4 && frame.back() == ')') {
    auto open = frame.rfind(" (");
    if (open != std::string::npos)
      return {frame.substr(0, open), frame.substr(open + 2, frame.size() - open - 3)};
  }
  return {frame, ""};
}

namespace {

// The string table: index 0 is "" (profile.proto's rule).
class strings {
 public:
  explicit strings(perftools::profiles::Profile& p) : p_(p) { id(""); }
  std::int64_t id(const std::string& s) {
    auto [i, fresh] = ids_.try_emplace(s, static_cast<std::int64_t>(ids_.size()));
    if (fresh) p_.add_string_table(s);
    return i->second;
  }

 private:
  perftools::profiles::Profile& p_;
  std::unordered_map<std::string, std::int64_t> ids_;
};

}  // namespace

std::string pprof_bytes(const std::vector<counted_stack>& stacks, std::int64_t time_nanos) {
  perftools::profiles::Profile p;
  strings str(p);
  auto* type = p.add_sample_type();
  type->set_type(str.id("samples"));
  type->set_unit(str.id("count"));
  p.mutable_period_type()->set_type(str.id("samples"));
  p.mutable_period_type()->set_unit(str.id("count"));
  p.set_period(1);
  p.set_time_nanos(time_nanos);
  std::unordered_map<std::string, std::uint64_t> mappings, functions, locations;
  auto mapping = [&](const std::string& module) {
    auto [i, fresh] = mappings.try_emplace(module, mappings.size() + 1);
    if (fresh) {
      auto* m = p.add_mapping();
      m->set_id(i->second);
      m->set_filename(str.id(module));
      m->set_has_functions(true);
    }
    return i->second;
  };
  auto location = [&](const std::string& frame) {
    auto [i, fresh] = locations.try_emplace(frame, locations.size() + 1);
    if (!fresh) return i->second;
    auto [function, module] = split_frame(frame);
    auto [f, new_function] = functions.try_emplace(frame, functions.size() + 1);
    if (new_function) {
      auto* fn = p.add_function();
      fn->set_id(f->second);
      fn->set_name(str.id(function));
      fn->set_system_name(str.id(function));
    }
    auto* loc = p.add_location();
    loc->set_id(i->second);
    if (!module.empty()) loc->set_mapping_id(mapping(module));
    loc->add_line()->set_function_id(f->second);
    return i->second;
  };
  auto state_key = str.id("state"), phase_key = str.id("phase"), pid_key = str.id("pid");
  for (auto& s : stacks) {
    auto* sample = p.add_sample();
    // Leaf first, as pprof wants it.
    std::vector<std::uint64_t> ids;
    std::size_t begin = 0;
    while (begin <= s.path.size() && !s.path.empty()) {
      auto end = s.path.find(';', begin);
      if (end == std::string::npos) end = s.path.size();
      ids.push_back(location(s.path.substr(begin, end - begin)));
      begin = end + 1;
    }
    if (ids.empty()) ids.push_back(location("[unknown]"));
    for (auto i = ids.rbegin(); i != ids.rend(); ++i) sample->add_location_id(*i);
    sample->add_value(static_cast<std::int64_t>(s.count));
    auto* state = sample->add_label();
    state->set_key(state_key);
    state->set_str(str.id(s.state));
    auto* phase = sample->add_label();
    phase->set_key(phase_key);
    phase->set_num(static_cast<std::int64_t>(s.phase));
    auto* pid = sample->add_label();
    pid->set_key(pid_key);
    pid->set_num(s.pid);
  }
  std::string out;
  if (!p.SerializeToString(&out)) throw std::runtime_error("cannot encode the pprof profile");
  return out;
}

void write_pprof_file(const std::vector<counted_stack>& stacks, const std::string& file,
                      std::int64_t time_nanos) {
  auto bytes = pprof_bytes(stacks, time_nanos);
  gzFile gz = gzopen(file.c_str(), "wb9");
  if (gz == nullptr) throw std::runtime_error("cannot write " + file);
  bool ok = bytes.empty() ||
            gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())) ==
                static_cast<int>(bytes.size());
  if (gzclose(gz) != Z_OK || !ok) throw std::runtime_error("cannot write " + file);
}

}  // namespace perfdm::profile
