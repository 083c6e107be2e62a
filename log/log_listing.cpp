#include "log/log_listing.hpp"

#include <new>

#include "darshan/darshan_csv.hpp"
#include "darshan/darshan_log.hpp"
#include "darshan/darshan_text.hpp"

namespace perfdm {

namespace {

bool darshan_only_options(const log_command_options& o) {
  return o.total || o.perf || o.file_counts || o.base || o.dxt || !o.csv_dir.empty();
}

// A Darshan log: darshan-parser's text, darshan-dxt-parser's, or CSV tables. What could not
// be read is said in `#` notes in the output and on `err`, and makes the status 1.
int run_darshan_log_command(const log_command_options& options, std::ostream& out,
                            std::ostream& err) {
  const std::string& file = options.file;
  try {
    darshan::log_file log(file);
    darshan::text_options t;
    t.total = options.total;
    t.perf = options.perf;
    t.file = options.file_counts;
    t.base = options.base || !(options.total || options.perf || options.file_counts);
    t.show_incomplete = options.show_partial;
    int rc = 0;
    if (!options.csv_dir.empty()) {
      auto written = darshan::write_csv_tables(log, options.csv_dir, t);
      for (const auto& w : written)
        err << "perfdm log: wrote " << w.path << " (" << w.rows << " rows)\n";
    } else if (options.dxt) {
      rc = darshan::print_dxt_text(log, t, out, err);
    } else {
      rc = darshan::print_parser_text(log, t, out, err);
    }
    out.flush();
    if (!out) {
      err << "perfdm log: " << file << ": cannot write the output\n";
      return 1;
    }
    for (const auto& n : log.notes()) err << "perfdm log: " << file << ": " << n << '\n';
    return rc != 0 || !log.notes().empty() ? 1 : 0;
  } catch (const darshan::darshan_error& e) {
    out.flush();
    err << "perfdm log: " << file << ": " << e.what() << '\n';
  } catch (const std::bad_alloc&) {
    out.flush();
    err << "perfdm log: " << file << ": out of memory\n";
  }
  return 1;
}

}  // namespace

int run_log_command(const log_command_options& options, std::ostream& out, std::ostream& err) {
  if (darshan::log_file::is_darshan_log(options.file)) {
    if (options.json || !options.modules.empty()) {
      err << "perfdm log: " << options.file
          << ": --json and --module read perfdm logs; this is a Darshan log (--csv DIR gives "
             "its tables)\n";
      return 1;
    }
    return run_darshan_log_command(options, out, err);
  }
  if (darshan_only_options(options)) {
    err << "perfdm log: " << options.file
        << ": --total, --perf, --file, --base, --dxt and --csv read Darshan logs; this is "
           "not one\n";
    return 1;
  }
  log_print_options p;
  p.json = options.json;
  p.modules = options.modules;
  p.show_partial = options.show_partial;
  p.registry = options.registry;
  try {
    print_log(options.file, p, out);
    out.flush();
    if (!out) {
      err << "perfdm log: " << options.file << ": cannot write the output\n";
      return 1;
    }
    return 0;
  } catch (const log_error& e) {
    out.flush();
    err << "perfdm log: " << options.file << ": " << e.what() << '\n';
  } catch (const std::bad_alloc&) {
    out.flush();
    err << "perfdm log: " << options.file << ": out of memory\n";
  } catch (const std::exception& e) {
    out.flush();
    err << "perfdm log: " << options.file << ": " << e.what() << '\n';
  }
  return 1;
}

}  // namespace perfdm
