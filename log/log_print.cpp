#include "log/log_print.hpp"

#include <cstdio>
#include <cstring>
#include <ctime>

#include "log/json_dump.hpp"
#include "log/log_codec.hpp"
#include "log/log_print_text.hpp"

namespace perfdm {

void log_printer_registry::add(std::uint32_t module_id, std::string name,
                               std::uint32_t max_version, log_record_printer print) {
  printers_[module_id] = log_module_printer{module_id, std::move(name), max_version,
                                            std::move(print)};
}

const log_module_printer* log_printer_registry::find(std::uint32_t module_id) const {
  auto it = printers_.find(module_id);
  return it == printers_.end() ? nullptr : &it->second;
}

log_printer_registry& default_log_printers() {
  static log_printer_registry registry;
  return registry;
}

namespace {

using nlohmann::ordered_json;
using log_text::append_escaped;
using log_text::append_hex;
using log_text::append_number;
using log_text::append_value;
using log_text::json_utf8;

// One JSON Lines object, reals in the shortest form that reads back (as the text rows print
// them: 5, 0.25, 1e+300).
void append_json_line(std::string& out, const ordered_json& object) {
  append_json(out, object, &append_number<double>);
  out += '\n';
}

// Buffers output and writes it to the stream 64 KiB at a time.
class out_buffer {
 public:
  explicit out_buffer(std::ostream& os) : os_(os) { buf_.reserve(80u << 10); }
  ~out_buffer() { flush(); }
  std::string& buf() { return buf_; }
  void line_done() {
    if (buf_.size() >= (64u << 10)) flush();
  }
  void flush() {
    os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  std::ostream& os_;
  std::string buf_;
};

class print_sink final : public log_row_sink {
 public:
  print_sink(out_buffer& out, const log_name_table& names, bool json)
      : out_(out), names_(names), json_(json) {}

  void set_module(std::string_view module) {
    module_.clear();
    if (json_) {
      module_ = json_utf8(module);
    } else {
      append_escaped(module_, module);
    }
  }

  void row(std::uint64_t record_id, std::string_view counter, const log_value& value) override {
    if (!have_last_ || record_id != last_id_) {
      name_column(record_id);
      have_last_ = true;
      last_id_ = record_id;
    }
    std::string& o = out_.buf();
    if (json_) {
      // The record id is a string: a u64 does not fit a double, which many JSON readers use.
      ordered_json row{{"type", "row"},
                       {"module", module_},
                       {"record_id", std::to_string(record_id)},
                       {"counter", json_utf8(counter)},
                       {"value", log_text::json_value(value)}};
      row.update(name_json_);
      append_json_line(o, row);
    } else {
      o += module_;
      o += '\t';
      append_number(o, record_id);
      o += '\t';
      append_escaped(o, counter);
      o += '\t';
      append_value(o, value);
      o += '\t';
      o += name_;
      o += '\n';
    }
    ++rows_;
    out_.line_done();
  }

  const log_name* name(std::uint64_t id) const override { return names_.find(id); }
  std::uint64_t rows() const { return rows_; }

 private:
  void name_column(std::uint64_t id) {
    name_.clear();
    const log_name* n = names_.find(id);
    if (json_) {
      name_json_ = {{"name", nullptr}};
      if (n && n->printable()) {
        name_json_["name"] = json_utf8(n->bytes);
      } else if (n) {
        std::string hex;
        append_hex(hex, n->bytes);
        name_json_["name_hex"] = std::move(hex);
      }
    } else {
      name_ = n ? log_name_text(*n) : "<no name>";
    }
  }

  out_buffer& out_;
  const log_name_table& names_;
  bool json_;
  std::string module_;
  std::string name_;         // the text rows' name column
  ordered_json name_json_;   // the JSON rows' "name" (and "name_hex") fields
  bool have_last_ = false;
  std::uint64_t last_id_ = 0;
  std::uint64_t rows_ = 0;
};

std::string time_text(std::int64_t ns) {
  std::int64_t s = ns / 1'000'000'000;
  std::int64_t frac = ns % 1'000'000'000;
  if (frac < 0) {
    frac += 1'000'000'000;
    --s;
  }
  char b[96];
  std::snprintf(b, sizeof b, "%lld.%09lld", static_cast<long long>(s),
                static_cast<long long>(frac));
  std::string r = b;
  const std::time_t t = static_cast<std::time_t>(s);
  std::tm tm{};
  if (gmtime_r(&t, &tm) && std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0) {
    r += " (";
    r += b;
    r += ')';
  }
  return r;
}

// end - start, computed unsigned: the difference of two i64 read from a log may not fit an i64.
std::string duration_text(std::int64_t start_ns, std::int64_t end_ns) {
  char b[64];
  const bool neg = end_ns < start_ns;
  const auto s = static_cast<unsigned long long>(start_ns);
  const auto e = static_cast<unsigned long long>(end_ns);
  const auto a = neg ? s - e : e - s;
  std::snprintf(b, sizeof b, "%s%llu.%09llu s", neg ? "-" : "", a / 1'000'000'000ULL,
                a % 1'000'000'000ULL);
  return b;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return r;
}

std::string region_text(const log_region& r) {
  return log_region_label(r.id, r.name);
}

// Why a module region is not printed (empty: printed).
struct module_plan {
  const log_region* region;
  const log_module_printer* printer;
  std::string skip_reason;  // machine-readable: unknown, newer_version, partial, reserved
  std::string note;
};

}  // namespace

void print_log(const std::string& path, const log_print_options& options, std::ostream& out) {
  const log_printer_registry& registry =
      options.registry ? *options.registry : default_log_printers();
  log_reader reader(path, options.reader);

  // --module names must name modules of this log.
  auto is_module = [](const log_region& r) { return r.id >= logfmt::first_module_id; };
  auto selected = [&](const log_region& r) {
    if (options.modules.empty()) return true;
    const auto* p = registry.find(r.id);
    for (const auto& m : options.modules) {
      const auto lm = lower(m);
      if (lm == lower(r.name) || (p && lm == lower(p->name))) return true;
    }
    return false;
  };
  for (const auto& m : options.modules) {
    bool found = false;
    std::string all;
    for (const auto& r : reader.regions()) {
      if (!is_module(r)) continue;
      const auto* p = registry.find(r.id);
      if (lower(m) == lower(r.name) || (p && lower(m) == lower(p->name))) found = true;
      all += (all.empty() ? "" : ", ") + r.name;
    }
    if (!found) {
      throw log_error("no module named '" + m + "' in this log (its modules: " +
                      (all.empty() ? "none" : all) + ")");
    }
  }

  out_buffer o(out);
  std::string& b = o.buf();
  const bool json = options.json;
  auto note = [&](const std::string& text, const log_region* module = nullptr,
                  const char* reason = nullptr) {
    if (json) {
      ordered_json line{{"type", "note"}, {"text", json_utf8(text)}};
      if (module) {
        line["module"] = json_utf8(module->name);
        line["module_id"] = module->id;
      }
      if (reason) line["reason"] = reason;
      append_json_line(b, line);
    } else {
      b += "# note: ";
      append_escaped(b, text);
      b += '\n';
    }
    o.line_done();
  };
  auto hline = [&](const std::string& text) {
    b += "# ";
    b += text;
    b += '\n';
    o.line_done();
  };

  // Header.
  const std::uint64_t m = logfmt::magic;
  const char* order = reinterpret_cast<const unsigned char*>(&m)[0] == 0x50 ? "little-endian"
                                                                            : "big-endian";
  if (json) {
    append_json_line(b, ordered_json{{"type", "log"},
                                     {"path", json_utf8(path)},
                                     {"format_version", reader.format_version()},
                                     {"byte_order", order},
                                     {"compression", log_compression_name(reader.compression())},
                                     {"complete", reader.complete()}});
  } else {
    hline("perfdm log: " + log_escape_text(path));
    hline("format version: " + std::to_string(reader.format_version()));
    hline(std::string("byte order: ") + order);
    hline("compression: " + log_compression_name(reader.compression()));
    hline(reader.complete() ? "state: complete"
                            : "state: incomplete: read up to its last complete region");
  }
  for (const auto& n : reader.notes()) note(n);

  // Job record.
  if (const log_region* jr = reader.find(logfmt::region_job)) {
    if (jr->version > logfmt::job_version) {
      note("job record version " + std::to_string(jr->version) +
           " is newer than this reader reads (" + std::to_string(logfmt::job_version) +
           "): not shown");
    } else {
      const job_record job = reader.read_job(*jr);
      if (json) {
        ordered_json metadata = ordered_json::array();
        for (const auto& [key, value] : job.metadata) {
          metadata.push_back({{"key", json_utf8(key)}, {"value", json_utf8(value)}});
        }
        append_json_line(b, ordered_json{{"type", "job"},
                                         {"command_line", json_utf8(job.command_line)},
                                         {"host", json_utf8(job.host)},
                                         {"start_ns", job.start_ns},
                                         {"end_ns", job.end_ns},
                                         {"metadata", std::move(metadata)},
                                         {"pids", job.pids}});
        o.line_done();
      } else {
        hline("job command line: " + log_escape_text(job.command_line));
        hline("job host: " + log_escape_text(job.host));
        hline("job start: " + time_text(job.start_ns));
        hline("job end: " + time_text(job.end_ns));
        hline("job run time: " + duration_text(job.start_ns, job.end_ns));
        for (const auto& [k, v] : job.metadata) {
          hline("job metadata: " + log_escape_text(k) + '=' + log_escape_text(v));
        }
        b += "# job process ids:";
        if (job.pids.empty()) b += " none";
        for (auto pid : job.pids) {
          b += ' ';
          append_number(b, pid);
          o.line_done();
        }
        b += '\n';
      }
    }
  } else {
    note("the log has no job record");
  }

  // Name table.
  log_name_table names;
  const log_region* nr = reader.find(logfmt::region_names);
  if (!nr) {
    note("the log has no name table: records are printed without names");
  } else if (nr->version > logfmt::names_version) {
    note("name table version " + std::to_string(nr->version) +
         " is newer than this reader reads (" + std::to_string(logfmt::names_version) +
         "): records are printed without names");
  } else {
    names = reader.read_names(*nr);
    if (nr->flags & logfmt::flag_partial) {
      note("the name table is partial: the writer's name memory ran out, some records and "
           "counters have no name");
    }
    if (names.dropped) {
      note(std::to_string(names.dropped) + " names not loaded: the name table is larger than " +
           "this reader's limit of " + std::to_string(options.reader.max_name_table_bytes) +
           " bytes");
    }
  }

  // Regions.
  if (!json) hline("regions: " + std::to_string(reader.regions().size()));
  for (const auto& r : reader.regions()) {
    const bool partial = (r.flags & logfmt::flag_partial) != 0;
    if (json) {
      ordered_json line{{"type", "region"},
                        {"id", r.id},
                        {"name", json_utf8(r.name)},
                        {"version", r.version},
                        {"partial", partial},
                        {"offset", r.offset},
                        {"compressed_bytes", r.compressed_size},
                        {"uncompressed_bytes", r.uncompressed_size}};
      if (&r == nr) line["names"] = names.entries;
      append_json_line(b, line);
      o.line_done();
    } else {
      std::string t = "region " + region_text(r) + ": version " + std::to_string(r.version) +
                      ", offset " + std::to_string(r.offset) + ", compressed " +
                      std::to_string(r.compressed_size) + " bytes, uncompressed " +
                      std::to_string(r.uncompressed_size) + " bytes";
      if (&r == nr) t += ", " + std::to_string(names.entries) + " names";
      if (partial) t += ", partial";
      hline(t);
    }
  }
  std::string partial_list;
  for (const auto& r : reader.regions()) {
    if (is_module(r) && (r.flags & logfmt::flag_partial)) {
      partial_list += (partial_list.empty() ? "" : ", ") + region_text(r);
    }
  }
  if (!json) hline("partial modules: " + (partial_list.empty() ? "none" : partial_list));

  // What is printed.
  std::vector<module_plan> plans;
  for (const auto& r : reader.regions()) {
    if (r.id == logfmt::region_job || r.id == logfmt::region_names || !selected(r)) continue;
    module_plan p{&r, registry.find(r.id), {}, {}};
    const bool partial = (r.flags & logfmt::flag_partial) != 0;
    if (!is_module(r)) {
      p.skip_reason = "reserved";
      p.note = "region " + region_text(r) + " has a reserved id this reader does not know: skipped";
    } else if (!p.printer) {
      p.skip_reason = "unknown";
      p.note = "module " + region_text(r) + " is unknown to this reader: skipped";
    } else if (r.version > p.printer->max_version) {
      p.skip_reason = "newer_version";
      p.note = "module " + region_text(r) + " version " + std::to_string(r.version) +
               " is newer than this reader reads (up to version " +
               std::to_string(p.printer->max_version) + "): skipped";
    } else if (partial && !options.show_partial) {
      p.skip_reason = "partial";
      p.note = "module " + region_text(r) + " is partial (it ran out of memory while "
               "recording, so its records are incomplete): not shown; --show-partial shows it";
    } else if (partial) {
      p.note = "module " + region_text(r) + " is partial (it ran out of memory while "
               "recording): the rows shown are incomplete";
    }
    if (!p.note.empty()) {
      if (!json && p.skip_reason == "partial") {
        hline("partial module refused: " + p.note);
      } else {
        note(p.note, &r, p.skip_reason.empty() ? nullptr : p.skip_reason.c_str());
      }
    }
    plans.push_back(std::move(p));
  }

  // Rows.
  if (!json) {
    b += "#<module>\t<record id>\t<counter>\t<value>\t<name>\n";
    o.line_done();
  }
  print_sink sink(o, names, json);
  for (const auto& p : plans) {
    if (!p.skip_reason.empty()) continue;
    const log_region& r = *p.region;
    sink.set_module(r.name);
    const log_record_view base{r.id, r.version, r.name, nullptr, 0};
    try {
      reader.for_each_record(r, [&](const std::uint8_t* data, std::size_t size) {
        log_record_view v = base;
        v.data = data;
        v.size = size;
        p.printer->print(v, sink);
      });
    } catch (const log_error& e) {
      o.flush();
      const std::string w = e.what();
      if (w.rfind("region ", 0) == 0) throw;
      throw log_error("region " + region_text(r) + ": " + w);
    }
  }
  o.flush();
}

}  // namespace perfdm
