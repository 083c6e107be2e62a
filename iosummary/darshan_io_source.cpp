// A Darshan log as an io_source: darshan::log_file's records and its names, held up to the
// name table's memory limit (darshan_names.hpp).
#include <memory>

#include "darshan/darshan_names.hpp"
#include "iosummary/io_source.hpp"

namespace perfdm::iosummary {

namespace {

class darshan_io_source final : public io_source {
 public:
  explicit darshan_io_source(const std::string& path) : log_(path), names_(log_) {
    const auto& j = log_.job();
    job_.log_path = path;
    job_.log_format = "Darshan " + log_.version();
    for (const auto& [k, v] : j.metadata)
      if (k == "lib_ver") job_.library_version = v;
    job_.exe = j.exe;
    job_.uid = j.uid;
    job_.jobid = j.jobid;
    job_.nprocs = j.nprocs > 0 ? j.nprocs : 1;
    job_.start_time = double(j.start_time_sec) + double(j.start_time_nsec) * 1e-9;
    job_.end_time = double(j.end_time_sec) + double(j.end_time_nsec) * 1e-9;
    job_.run_time = j.run_time;
    job_.metadata = j.metadata;
    job_.mounts = j.mounts;
    for (const auto& m : log_.modules()) {
      source_module s;
      s.id = m.id;
      s.name = m.name;
      s.version = m.version;
      s.stored_bytes = m.length;
      s.partial = m.partial;
      s.readable = m.layout != nullptr;
      modules_.push_back(std::move(s));
    }
  }

  const source_job& job() const override { return job_; }
  const std::vector<source_module>& modules() const override { return modules_; }

  void for_each_record(int module, bool with_names, const record_fn& fn) override {
    const darshan::module_region* region = log_.find(module);
    if (!region || !region->layout) return;
    if (with_names) {
      darshan::for_each_named_record(log_, names_, *region, fn);
      return;
    }
    darshan::record_reader reader(log_, *region);
    while (const darshan::record* r = reader.next()) fn(*r, std::nullopt);
  }

  std::unordered_map<std::uint64_t, std::string> names_of(
      const std::unordered_set<std::uint64_t>& ids) override {
    std::unordered_map<std::uint64_t, std::string> out;
    std::unordered_set<std::uint64_t> missing;
    for (auto id : ids) {
      if (auto n = names_.find(id); n && names_.resident(id))
        out.emplace(id, std::string(*n));
      else
        missing.insert(id);
    }
    if (!missing.empty() && !names_.complete()) {
      names_.fetch(missing);
      for (auto id : missing)
        if (auto n = names_.find(id)) out.emplace(id, std::string(*n));
    }
    return out;
  }

  std::vector<std::string> notes() const override { return log_.notes(); }

 private:
  darshan::log_file log_;
  darshan::name_table names_;
  source_job job_;
  std::vector<source_module> modules_;
};

}  // namespace

const darshan::mount* mount_of(const std::vector<darshan::mount>& mounts, std::string_view name) {
  for (const auto& m : mounts)
    if (name.compare(0, m.point.size(), m.point) == 0) return &m;
  return nullptr;
}

std::unique_ptr<io_source> open_darshan_source(const std::string& path) {
  return std::make_unique<darshan_io_source>(path);
}

std::unique_ptr<io_source> open_io_source(const std::string& path) {
  if (darshan::log_file::is_darshan_log(path)) return open_darshan_source(path);
  throw std::runtime_error(path + ": not a Darshan log nor a perfdm log of I/O counters");
}

}  // namespace perfdm::iosummary
