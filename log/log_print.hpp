// Printing a log: a registry of per-module record printers (module id -> function turning
// one record payload into rows), and print_log(), which streams a log region by region into
// `#` header lines and one tab-separated row per value (module, record id, counter, value,
// name), like darshan-parser, or into JSON Lines.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "log/log_reader.hpp"

namespace perfdm {

// One value of a row.
struct log_value {
  enum kind_t : std::uint8_t { integer, real, text } kind = integer;
  std::int64_t i = 0;
  double f = 0;
  std::string_view s;  // text: valid during the row() call only

  static log_value of(std::int64_t v) { return {integer, v, 0, {}}; }
  static log_value of(double v) { return {real, 0, v, {}}; }
  static log_value of_text(std::string_view v) { return {text, 0, 0, v}; }
};

// Where a record printer sends its rows. The module column and the name column (the name of
// the record id) are filled in by the sink.
class log_row_sink {
 public:
  virtual ~log_row_sink() = default;
  virtual void row(std::uint64_t record_id, std::string_view counter, const log_value& value) = 0;
  // The name table entry of an id, or null (for printers that name counters by id).
  virtual const log_name* name(std::uint64_t id) const = 0;
};

// One record as a printer sees it.
struct log_record_view {
  std::uint32_t module_id;
  std::uint32_t version;  // the region's module version (at most the printer's max_version)
  std::string_view module_name;
  const std::uint8_t* data;
  std::size_t size;
};

// Turns one record payload into rows; throws log_error when the payload is corrupt.
using log_record_printer = std::function<void(const log_record_view&, log_row_sink&)>;

struct log_module_printer {
  std::uint32_t module_id = 0;
  std::string name;
  std::uint32_t max_version = 0;  // newer regions are skipped with a note
  log_record_printer print;
};

class log_printer_registry {
 public:
  // Adds or replaces the printer of `module_id`.
  void add(std::uint32_t module_id, std::string name, std::uint32_t max_version,
           log_record_printer print);
  const log_module_printer* find(std::uint32_t module_id) const;

 private:
  std::map<std::uint32_t, log_module_printer> printers_;
};

// The printers `perfdm log` uses: modules add theirs here.
log_printer_registry& default_log_printers();

struct log_print_options {
  bool json = false;                 // JSON Lines instead of `#` lines and tab-separated rows
  std::vector<std::string> modules;  // print only these modules (by name, any case); empty: all
  bool show_partial = false;         // also print modules marked partial
  const log_printer_registry* registry = nullptr;  // null: default_log_printers()
  log_reader_options reader;
};

// Streams the log at `path` to `out`. Throws log_error (some output may have been written
// when the error is found while decoding a region).
void print_log(const std::string& path, const log_print_options& options, std::ostream& out);

// Text helpers shared with printers and tests.
// Tab, newline, carriage return, backslash and other control bytes escaped (\t \n \r \\ \xHH).
std::string log_escape_text(std::string_view bytes);
// How the name column shows a name: escaped text, `<hex:...>` when not printable.
std::string log_name_text(const log_name& name);

}  // namespace perfdm
