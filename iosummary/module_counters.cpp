#include "iosummary/module_counters.hpp"

#include <map>

#include "darshan/darshan_buckets.hpp"
#include "darshan/darshan_format.hpp"
#include "darshan/darshan_layouts.hpp"

namespace perfdm::iosummary {

int int_counter(int module, const std::string& name) {
  const darshan::record_layout* l = darshan::current_layout(module);
  if (!l) return -1;
  for (std::size_t i = 0; i < l->ints.size(); ++i)
    if (name == l->ints[i]) return static_cast<int>(i);
  return -1;
}

int float_counter(int module, const std::string& name) {
  const darshan::record_layout* l = darshan::current_layout(module);
  if (!l) return -1;
  for (std::size_t i = 0; i < l->floats.size(); ++i)
    if (name == l->floats[i]) return static_cast<int>(i);
  return -1;
}

namespace {

struct bar_spec {
  const char* label;
  std::vector<const char*> counters;  // without the module's prefix
};

struct module_spec {
  int module;
  const char* prefix;
  std::vector<bar_spec> bars;
  const char* sizes;  // "SIZE_READ" / "SIZE_READ_AGG" (the write one follows), or null
  bool access;        // ACCESS1..4 common sizes
  bool layered;
};

const std::vector<module_spec>& specs() {
  using namespace darshan;
  static const std::vector<module_spec> s = {
      {POSIX_MOD, "POSIX_",
       {{"Read", {"READS"}}, {"Write", {"WRITES"}}, {"Open", {"OPENS"}}, {"Stat", {"STATS"}},
        {"Seek", {"SEEKS"}}, {"Mmap", {"MMAPS"}}, {"Fsync", {"FSYNCS", "FDSYNCS"}}},
       "SIZE_READ", true, false},
      {MPIIO_MOD, "MPIIO_",
       {{"Ind. Read", {"INDEP_READS"}}, {"Ind. Write", {"INDEP_WRITES"}},
        {"Ind. Open", {"INDEP_OPENS"}}, {"Col. Read", {"COLL_READS"}},
        {"Col. Write", {"COLL_WRITES"}}, {"Col. Open", {"COLL_OPENS"}},
        {"Nb. Read", {"NB_READS"}}, {"Nb. Write", {"NB_WRITES"}},
        {"Split Read", {"SPLIT_READS"}}, {"Split Write", {"SPLIT_WRITES"}}, {"Sync", {"SYNCS"}}},
       "SIZE_READ_AGG", true, true},
      {STDIO_MOD, "STDIO_",
       {{"Read", {"READS"}}, {"Write", {"WRITES"}}, {"Open", {"OPENS", "FDOPENS"}},
        {"Seek", {"SEEKS"}}, {"Flush", {"FLUSHES"}}},
       nullptr, false, false},
      {H5F_MOD, "H5F_", {{"Open", {"OPENS"}}, {"Flush", {"FLUSHES"}}}, nullptr, false, true},
      {H5D_MOD, "H5D_",
       {{"Read", {"READS"}}, {"Write", {"WRITES"}}, {"Open", {"OPENS"}}, {"Flush", {"FLUSHES"}}},
       "SIZE_READ_AGG", false, true},
      {PNETCDF_FILE_MOD, "PNETCDF_FILE_",
       {{"Create", {"CREATES"}}, {"Open", {"OPENS"}}, {"Redef", {"REDEFS"}},
        {"Ind. Wait", {"INDEP_WAITS"}}, {"Col. Wait", {"COLL_WAITS"}}, {"Sync", {"SYNCS"}}},
       nullptr, false, true},
      {PNETCDF_VAR_MOD, "PNETCDF_VAR_",
       {{"Ind. Read", {"INDEP_READS"}}, {"Ind. Write", {"INDEP_WRITES"}},
        {"Col. Read", {"COLL_READS"}}, {"Col. Write", {"COLL_WRITES"}},
        {"Nb. Read", {"NB_READS"}}, {"Nb. Write", {"NB_WRITES"}}, {"Open", {"OPENS"}}},
       "SIZE_READ_AGG", false, true},
  };
  return s;
}

module_counters make(const module_spec& s) {
  module_counters c;
  c.module = s.module;
  c.layered = s.layered;
  const std::string p = s.prefix;
  auto i = [&](const std::string& n) { return int_counter(s.module, p + n); };
  auto f = [&](const std::string& n) { return float_counter(s.module, p + "F_" + n); };
  for (const auto& b : s.bars) {
    operation_bar bar{b.label, {}};
    for (const char* n : b.counters)
      if (int k = i(n); k >= 0) bar.counters.push_back(k);
    c.operations.push_back(std::move(bar));
  }
  if (s.sizes) {
    std::string read = s.sizes, write = read;
    write.replace(write.find("READ"), 4, "WRITE");
    for (const char* suffix : darshan::size_bucket_suffixes) {
      c.read_sizes.push_back(i(read + suffix));
      c.write_sizes.push_back(i(write + suffix));
    }
  }
  if (s.access)
    for (int k = 1; k <= 4; ++k) {
      c.access_sizes.push_back(i("ACCESS" + std::to_string(k) + "_ACCESS"));
      c.access_counts.push_back(i("ACCESS" + std::to_string(k) + "_COUNT"));
    }
  c.bytes_read = i("BYTES_READ");
  c.bytes_written = i("BYTES_WRITTEN");
  for (const char* kind : {"", "INDEP_", "COLL_", "SPLIT_", "NB_"}) {
    if (int k = i(std::string(kind) + "READS"); k >= 0) c.reads.push_back(k);
    if (int k = i(std::string(kind) + "WRITES"); k >= 0) c.writes.push_back(k);
  }
  c.max_byte_read = i("MAX_BYTE_READ");
  c.max_byte_written = i("MAX_BYTE_WRITTEN");
  c.read_time = f("READ_TIME");
  c.write_time = f("WRITE_TIME");
  c.meta_time = f("META_TIME");
  return c;
}

}  // namespace

const module_counters* counters_of(int module) {
  static const std::map<int, module_counters> all = [] {
    std::map<int, module_counters> m;
    for (const auto& s : specs()) m.emplace(s.module, make(s));
    return m;
  }();
  auto it = all.find(module);
  return it == all.end() ? nullptr : &it->second;
}

}  // namespace perfdm::iosummary
