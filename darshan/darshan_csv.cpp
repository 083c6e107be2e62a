#include "darshan/darshan_csv.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "darshan/darshan_counters.hpp"
#include "darshan/darshan_names.hpp"
#include "darshan/darshan_text_out.hpp"

namespace perfdm::darshan {

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string q = "\"";
  for (char c : field) {
    if (c == '"') q += '"';
    q += c;
  }
  q += '"';
  return q;
}

namespace {

// The shortest text that reads back as the same double.
void put_double(text_out& o, double v) {
  char tmp[64];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  o << std::string_view(tmp, static_cast<std::size_t>(r.ptr - tmp));
}

std::string file_name_of(int module) {
  std::string name = module_names[module];
  for (char& c : name)
    if (c == '/') c = '_';
  return name + ".csv";
}

void make_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return;
    throw darshan_error("cannot write CSV tables into " + dir + ": not a directory");
  }
  throw darshan_error("cannot make the directory " + dir + ": " + std::strerror(errno));
}

// The header row of a module's table.
std::string header_of(const module_region& m) {
  std::string h;
  if (m.layout->kind == record_kind::counters) {
    const record_layout& cur = *current_layout(m.id);
    h = "rank,id";
    for (const char* n : cur.ints) h.append(",").append(n);
    for (const char* n : cur.floats) h.append(",").append(n);
    if (cur.file_rec_id) h.append(",").append(cur.file_rec_id);
    h += ",filename";
  } else if (m.layout->kind == record_kind::heatmap) {
    h = "rank,id,bin,bin_width_seconds,read_bytes,write_bytes,filename";
  } else if (m.layout->kind == record_kind::dxt) {
    h = "rank,id,hostname,operation,segment,offset,length,start_time,end_time,pthread_id,"
        "filename";
  } else {
    h = "rank,id,component";
    for (const char* n : lustre_comp_counter_names) h.append(",").append(n);
    h += ",pool_name,ost_ids,filename";
  }
  return h + '\n';
}

}  // namespace

std::vector<csv_table> write_csv_tables(const log_file& log, const std::string& dir,
                                        const text_options& options) {
  make_dir(dir);
  name_table names(log, options.max_name_bytes);
  std::vector<csv_table> tables;
  for (const auto& m : log.modules()) {
    if (m.length == 0 || !m.layout) {
      if (m.length > 0) log.for_each_record(m, [](const record&) {});  // notes why
      continue;
    }
    if (m.partial && !options.show_incomplete)
      throw darshan_error("the " + m.name +
                          " module contains incomplete data (Darshan ran out of memory for "
                          "its records): --show-incomplete writes the records it kept");
    csv_table t;
    t.module = module_names[m.id];
    t.path = dir + "/" + file_name_of(m.id);
    std::ofstream file(t.path, std::ios::binary | std::ios::trunc);
    if (!file) throw darshan_error("cannot write " + t.path + ": " + std::strerror(errno));
    {
      text_out o(file);
      o << header_of(m);
      const record_layout* cur = current_layout(m.id);
      std::string tail;
      for_each_named_record(
          log, names, m,
          [&](const record& r, std::optional<std::string_view> name) {
            tail.assign(",");
            if (name) tail += csv_field(*name);
            tail += '\n';
            auto start = [&] {
              o.i64(r.rank) << ',';
              o.u64(r.id);
            };
            switch (r.layout->kind) {
              case record_kind::counters:
                start();
                for (std::size_t i = 0; i < cur->ints.size(); ++i) {
                  o << ',';
                  o.i64(r.counter(i));
                }
                for (std::size_t i = 0; i < cur->floats.size(); ++i) {
                  o << ',';
                  put_double(o, r.fcounter(i));
                }
                if (cur->file_rec_id) {
                  o << ',';
                  o.u64(r.file_rec_id);
                }
                o << tail;
                ++t.rows;
                break;
              case record_kind::heatmap:
                for (std::int64_t b = 0; b < r.nbins; ++b) {
                  start();
                  o << ',';
                  o.i64(b) << ',';
                  put_double(o, r.bin_width_seconds);
                  o << ',';
                  o.i64(r.read_bins[b]) << ',';
                  o.i64(r.write_bins[b]) << tail;
                  ++t.rows;
                }
                break;
              case record_kind::dxt: {
                const std::string host = csv_field(r.hostname);
                std::int64_t index = 0;
                r.for_each_segment([&](const dxt_segment* s, std::size_t n) {
                  for (std::size_t i = 0; i < n; ++i, ++index) {
                    const bool write = index < r.write_count;
                    start();
                    o << ',' << host << ',' << (write ? "write" : "read") << ',';
                    o.i64(write ? index : index - r.write_count) << ',';
                    o.i64(s[i].offset) << ',';
                    o.i64(s[i].length) << ',';
                    put_double(o, s[i].start_time);
                    o << ',';
                    put_double(o, s[i].end_time);
                    o << ',';
                    o.u64(s[i].thread) << tail;
                    ++t.rows;
                  }
                });
                break;
              }
              case record_kind::lustre:
              case record_kind::lustre_v1: {
                std::int64_t ost = 0;
                for (std::size_t c = 0; c < r.components.size(); ++c) {
                  const auto& comp = r.components[c];
                  start();
                  o << ',';
                  o.u64(c + 1);
                  for (std::int64_t v : comp.counters) {
                    o << ',';
                    o.i64(v);
                  }
                  o << ',' << csv_field(comp.pool_name) << ',';
                  for (std::int64_t s = 0; s < comp.counters[LUSTRE_COMP_STRIPE_COUNT] &&
                                           ost < r.ost_count;
                       ++s, ++ost) {
                    if (s > 0) o << ' ';
                    o.i64(r.ost_ids[ost]);
                  }
                  o << tail;
                  ++t.rows;
                }
                break;
              }
            }
          },
          options.lookahead_records);
    }
    file.flush();
    if (!file) throw darshan_error("cannot write " + t.path + ": " + std::strerror(errno));
    tables.push_back(t);
  }
  return tables;
}

}  // namespace perfdm::darshan
