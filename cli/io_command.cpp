#include "cli/io_command.hpp"
#include "cli/io_preload.hpp"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "proc/program_launcher.hpp"
#include "iojob/io_log_contents.hpp"
#include "iojob/io_summary.hpp"
#include "iojob/job_log.hpp"
#include "iojob/log_name.hpp"
#include "iojob/segment_snapshot.hpp"
#include "log/log_codec.hpp"
#include "log/log_io_darshan.hpp"

namespace perfdm {

namespace {

// A statically linked executable has no program interpreter: LD_PRELOAD cannot reach it.
bool statically_linked(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf64_Ehdr eh;
  bool is_static = false;
  if (::pread(fd, &eh, sizeof eh, 0) == ssize_t(sizeof eh) &&
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      (eh.e_type == ET_EXEC || eh.e_type == ET_DYN)) {
    is_static = true;
    for (int i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph;
      if (::pread(fd, &ph, sizeof ph, off_t(eh.e_phoff + std::uint64_t(i) * eh.e_phentsize)) !=
          ssize_t(sizeof ph)) {
        is_static = false;
        break;
      }
      if (ph.p_type == PT_INTERP) {
        is_static = false;
        break;
      }
    }
  }
  ::close(fd);
  return is_static;
}

void set_env(const char* name, const std::string& value) {
  setenv(name, value.c_str(), 1);
}

// In the child: the library and its options, then the program.
[[noreturn]] void exec_program(const io_command_options& o, const std::string& library,
                               const std::string& job_dir) {
  const char* preload = std::getenv("LD_PRELOAD");
  set_env("LD_PRELOAD",
          preload != nullptr && preload[0] != '\0' ? library + ":" + preload : library);
  set_env("PERFDM_IO_JOB", job_dir);
  if (o.trace) set_env("PERFDM_IO_TRACE", "1");
  if (o.darshan_only) set_env("PERFDM_IO_DARSHAN_ONLY", "1");
  if (o.no_default_excludes) set_env("PERFDM_IO_NO_DEFAULT_EXCLUDES", "1");
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& e : v) s += (s.empty() ? "" : ",") + e;
    return s;
  };
  if (!o.exclude.empty()) set_env("PERFDM_IO_EXCLUDE", joined(o.exclude));
  if (!o.include.empty()) set_env("PERFDM_IO_INCLUDE", joined(o.include));
  if (o.max_records != 0) set_env("PERFDM_IO_MAX_RECORDS", std::to_string(o.max_records));
  if (o.mem_alignment != 0) set_env("PERFDM_IO_MEMALIGN", std::to_string(o.mem_alignment));
  signal(SIGINT, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  std::vector<char*> argv;
  for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const int e = errno;
  const std::string msg = "perfdm io: " + o.command[0] + ": " + std::strerror(e) + "\n";
  (void)!write(2, msg.data(), msg.size());
  _exit(e == ENOENT ? 127 : 126);
}

std::string command_line(const std::vector<std::string>& command) {
  std::string s;
  for (const auto& a : command) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

std::string io_library_path() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed =
        exe.parent_path().parent_path() / "lib" / "perfdm" / "libperfdm-io.so";
    if (fs::exists(installed, ec)) return installed.string();
  }
#ifdef PERFDM_IO_LIBRARY
  if (fs::exists(PERFDM_IO_LIBRARY, ec)) return PERFDM_IO_LIBRARY;
#endif
  return {};
}

CLI::App* add_io_command(CLI::App& app, io_command_options& o) {
  auto* sub = app.add_subcommand(
      "io",
      "Count every file's I/O of a program and of every process it starts, with Darshan's "
      "counters, and more calls than Darshan sees: perfdm io [OPTIONS] -- CMD [ARGS...]; one "
      "log for the run (-o) and a summary at the end");
  sub->add_option("command", o.command, "after --: the program to run");
  sub->add_option("-o,--output", o.output,
                  "the log (default perfdm-io-PROGRAM-DATE-TIME-PID.log here; a directory: that "
                  "name inside it)");
  sub->add_flag("--json", o.json, "the summary as one JSON object");
  sub->add_option("--darshan-log", o.darshan_log,
                  "also write the log in Darshan's format (3.41) here, for darshan-parser and "
                  "PyDarshan");
  sub->add_option("--summary", o.summary, "write the summary to this file instead of stderr");
  sub->add_flag("-q,--quiet", o.quiet, "no summary");
  sub->add_option("--top", o.top, "files in the summary (default 5)")->check(CLI::Range(0, 1000));
  sub->add_flag("--library", o.library,
                "print the preloaded library's path and exit (LD_PRELOAD=$(perfdm io --library) "
                "PERFDM_IO_LOG=DIR PROGRAM)");
  sub->add_flag("--trace", o.trace, "also keep a bounded per-call trace (Darshan's DXT)");
  sub->add_flag("--darshan-only", o.darshan_only,
                "count only the calls Darshan 3.5.0 sees (to compare counters with it)");
  sub->add_option("--exclude", o.exclude,
                  "leave out files whose cleaned path matches this extended regular expression "
                  "(repeatable)");
  sub->add_option("--include", o.include,
                  "count files matching this expression even when excluded (repeatable)");
  sub->add_flag("--no-default-excludes", o.no_default_excludes,
                "count files under /etc /dev /usr /bin /boot /lib /opt /sbin /sys /proc /var "
                "too (Darshan leaves them out)");
  sub->add_option("--max-records", o.max_records,
                  "records per module and process (default 16384); beyond them the log is "
                  "partial")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 24));
  sub->add_option("--mem-alignment", o.mem_alignment, "POSIX_MEM_ALIGNMENT in bytes (default 8)")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 30));
  sub->add_option("--log-compression", o.compression, "zlib (default) or zstd")
      ->check(CLI::IsMember({"zlib", "zstd"}));
  return sub;
}

int run_io_command(const io_command_options& o, std::ostream& out, std::ostream& err) {
  const std::string library = io_library_path();
  if (o.library) {
    if (library.empty()) {
      err << "perfdm io: libperfdm-io.so is not installed next to perfdm\n";
      return 1;
    }
    out << library << '\n';
    return 0;
  }
  if (o.command.empty()) {
    err << "perfdm io: give the program to run after --: perfdm io [OPTIONS] -- CMD [ARGS...]\n";
    return 2;
  }
  if (library.empty()) {
    err << "perfdm io: libperfdm-io.so is not installed next to perfdm\n";
    return 1;
  }
  const std::string program = find_in_path(o.command[0]);
  if (program.empty()) {
    err << "perfdm io: " << o.command[0] << ": command not found\n";
    return 127;
  }
  if (statically_linked(program)) {
    err << "perfdm io: " << program
        << " is statically linked: LD_PRELOAD cannot reach it, so its own I/O is not counted "
           "(processes it starts that are dynamically linked are)\n";
  }
  std::string error;
  const std::string job_dir = make_io_job_dir(error);
  if (job_dir.empty()) {
    err << "perfdm io: " << error << '\n';
    return 1;
  }
  const std::time_t started = std::time(nullptr);
  // While the program runs, Ctrl-C is the program's: perfdm io writes the log after it ends.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  const pid_t pid = fork();
  if (pid == 0) exec_program(o, library, job_dir);
  int status = 0;
  if (pid < 0) {
    err << "perfdm io: cannot start " << o.command[0] << ": " << std::strerror(errno) << '\n';
    remove_io_job_dir(job_dir);
    return 126;
  }
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  const int exit_code = launched_program::exit_code(status);

  std::vector<std::string> errors;
  const auto segments = io::read_job_segments(job_dir, errors);
  for (const auto& e : errors) err << "perfdm io: " << e << '\n';
  const std::string log_path = io::log_path_for(o.output, program, int(pid), started);
  io::job_log_options lo;
  lo.command_line = command_line(o.command);
  lo.compression = parse_log_compression(o.compression);
  try {
    io::write_job_log(segments, log_path, lo);
  } catch (const std::exception& e) {
    err << "perfdm io: " << log_path << ": " << e.what() << '\n';
    remove_io_job_dir(job_dir);
    return 1;
  }
  remove_io_job_dir(job_dir);
  if (!o.darshan_log.empty()) {
    try {
      write_io_log_as_darshan(log_path, o.darshan_log);
    } catch (const std::exception& e) {
      err << "perfdm io: " << o.darshan_log << ": " << e.what() << '\n';
      return 1;
    }
  }
  if (o.quiet) return exit_code;

  std::ofstream file;
  std::ostream* report = &err;
  if (!o.summary.empty()) {
    file.open(o.summary);
    if (!file) {
      err << "perfdm io: cannot write the summary " << o.summary << '\n';
      return 1;
    }
    report = &file;
  }
  try {
    const io::io_summary s = io::summarize(io::read_io_log(log_path), o.top);
    if (o.json) {
      *report << io::summary_json(s);
    } else {
      *report << "perfdm io: " << lo.command_line << " — " << launched_program::describe(status)
              << '\n'
              << io::summary_text(s) << "log: " << log_path << '\n';
    }
  } catch (const std::exception& e) {
    err << "perfdm io: " << log_path << ": " << e.what() << '\n';
    return 1;
  }
  return exit_code;
}

}  // namespace perfdm
