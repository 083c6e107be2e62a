#include "log/log_listing.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <new>

#include "darshan/darshan_csv.hpp"
#include "darshan/darshan_log.hpp"
#include "darshan/darshan_text.hpp"
#include "log/log_io_darshan.hpp"

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

// --module names only I/O modules (posix, stdio, mpiio, heatmap, dxt_posix, dxt_mpiio):
// darshan-parser's layout is wanted.
bool io_modules_only(const std::vector<std::string>& modules) {
  if (modules.empty()) return false;
  for (std::string m : modules) {
    std::transform(m.begin(), m.end(), m.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (m != "posix" && m != "stdio" && m != "mpiio" && m != "mpi-io" && m != "heatmap" &&
        m != "dxt_posix" && m != "dxt_mpiio") {
      return false;
    }
  }
  return true;
}

// A perfdm io log in darshan-parser's layout: its I/O modules (those of --module) written as a
// Darshan log to a temporary file, then printed as any Darshan log.
int run_io_log_as_darshan(const log_command_options& options, std::ostream& out,
                          std::ostream& err) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path =
      std::string(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp") + "/perfdm-log-XXXXXX.darshan";
  const int fd = mkstemps(path.data(), 8);
  if (fd < 0) {
    err << "perfdm log: " << options.file << ": no temporary file for darshan-parser's layout\n";
    return 1;
  }
  ::close(fd);
  int rc = 1;
  try {
    write_io_log_as_darshan(options.file, path, options.modules);
    log_command_options d = options;
    d.file = path;
    d.modules.clear();
    rc = run_darshan_log_command(d, out, err);
  } catch (const std::exception& e) {
    err << "perfdm log: " << options.file << ": " << e.what() << '\n';
  }
  ::unlink(path.c_str());
  return rc;
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
  if (!options.json && (darshan_only_options(options) || io_modules_only(options.modules))) {
    bool io = false;
    try {
      io = has_io_modules(options.file);
    } catch (const log_error&) {
    }
    if (io) return run_io_log_as_darshan(options, out, err);
  }
  if (darshan_only_options(options)) {
    err << "perfdm log: " << options.file
        << ": --total, --perf, --file, --base, --dxt and --csv read Darshan logs and perfdm io's "
           "logs; this is neither\n";
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
