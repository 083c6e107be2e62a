// The log of an engine session: the LOG command, `perfdm replay --log`, and the log an
// engine writes when it is stopped by a signal, each read back with the log reader.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log/modules/dm_log_module.hpp"
#include "log/modules/frames_log_module.hpp"
#include "cli/xml_session.hpp"
#include "log/log_print.hpp"
#include "log/log_reader.hpp"
#include "tests/live_engine_test_support.hpp"

using namespace perfdm;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("perfdm-test-" + std::to_string(getpid()) + "-" + name))
      .string();
}

std::string printed(const std::string& path) {
  register_dm_log_printer();
  std::ostringstream out;
  print_log(path, {}, out);
  return out.str();
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string demo_requests() {
  std::ifstream demo(PERFDM_SOURCE_DIR "/examples/demo.replay");
  std::stringstream s;
  s << demo.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("LOG writes every metric, MI, phase and histogram, archives included", "[log][dm]") {
  auto path = temp_path("session.log");
  session s({});
  std::istringstream in(demo_requests());
  for (std::string line; std::getline(in, line);) s.run_line(line, [](const session_line&) {});
  std::string reply;
  s.run_line("<DYPER PID='DM' COMMAND='LOG'><LOG FILE='" + path + "'/></DYPER>",
             [&](const session_line& l) { reply = l.xml; });
  auto size = std::filesystem::file_size(path);
  CHECK(reply == "<DYPER_REPLY ID='DM'><LOG FILE='" + path + "' BYTES='" + std::to_string(size) +
                     "'/></DYPER_REPLY>");
  CHECK_FALSE(std::filesystem::exists(path + ".partial"));
  auto text = printed(path);
  // The demo archives queue_depth (MI 1) of phase 0 as 1 2 2 1 (rule N2).
  CHECK(text.find("\tbucket.0\t1\thistogram 1 phase 0\n") != std::string::npos);
  CHECK(text.find("\tbucket.1\t2\thistogram 1 phase 0\n") != std::string::npos);
  CHECK(text.find("\tbucket.3\t1\thistogram 1 phase 0\n") != std::string::npos);
  std::size_t archive_buckets = 0;
  std::istringstream rows(text);
  for (std::string row; std::getline(rows, row);)
    if (row.find("\tbucket.") != std::string::npos &&
        row.size() > 20 && row.compare(row.size() - 20, 20, "\thistogram 1 phase 0") == 0)
      ++archive_buckets;
  CHECK(archive_buckets == 4);  // buckets 0-3; empty buckets are not written
  CHECK(text.find("\twidth\t0.4\thistogram 0 GLOBAL\n") != std::string::npos);
  CHECK(text.find("\tpersistent_collection\t1\tmi 1 queue_depth /Process/app\n") != std::string::npos);
  CHECK(text.find("\tcollecting\t0\tmi 0 cpu_time /Process/app\n") != std::string::npos);
  CHECK(text.find("\tend\t0.8\tphase 0 phase_0\n") != std::string::npos);
  CHECK(text.find("\tsampled\t1\tmetric queue_depth [items]\n") != std::string::npos);
  CHECK(text.find("# job metadata: now=240") != std::string::npos);
  std::filesystem::remove(path);
}

// The rows of a printed log (no `#` lines).
std::string rows_of(const std::string& text) {
  std::string rows;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] != '#') rows += l + '\n';
  return rows;
}

TEST_CASE("LOG keeps the session's compression: zstd logs hold the same records", "[log][dm][zstd]") {
  auto zlib_path = temp_path("session-zlib.log");
  auto zstd_path = temp_path("session-zstd.log");
  auto run_demo = [](const session_options& o, const std::string& path) {
    session s(o);
    std::istringstream in(demo_requests());
    for (std::string line; std::getline(in, line);) s.run_line(line, [](const session_line&) {});
    std::string reply;
    s.run_line("<DYPER PID='DM' COMMAND='LOG'><LOG FILE='" + path + "'/></DYPER>",
               [&](const session_line& l) { reply = l.xml; });
    CHECK(reply.find("BYTES=") != std::string::npos);
  };
  session_options o;
  run_demo(o, zlib_path);
  o.log_compression_type = log_compression::zstd;
  run_demo(o, zstd_path);
  {
    log_reader r(zstd_path);
    CHECK(r.compression() == logfmt::compression_zstd);
    CHECK(r.complete());
  }
  auto zlib_text = printed(zlib_path);
  auto zstd_text = printed(zstd_path);
  CHECK(zlib_text.find("# compression: zlib\n") != std::string::npos);
  CHECK(zstd_text.find("# compression: zstd\n") != std::string::npos);
  // Every module's records (dm and frames) read back the same, row for row.
  CHECK(rows_of(zstd_text).size() > 1000);
  CHECK(rows_of(zstd_text) == rows_of(zlib_text));
  std::filesystem::remove(zlib_path);
  std::filesystem::remove(zstd_path);
}

TEST_CASE("the frames module's records round trip through zlib and zstd alike", "[log][zstd]") {
  frames_stats stats;
  for (int pid : {4242, 4243}) {
    frame_type_stats t;
    t.pid = pid;
    t.process = "/Process/app{" + std::to_string(pid) + "}";
    t.frame_type = "request_frame";
    t.frames = 1000u + static_cast<std::uint64_t>(pid);
    t.lost = 3;
    t.torn = 1;
    t.late = 7;
    t.no_lane_drops = 2;
    t.fields = {{"latency", 1000, 0.5, 12.25, 3000.5}, {"bytes", 1000, 64, 65536, 1e7}};
    stats.frame_types.push_back(t);
  }
  register_frames_log_printer();
  std::string texts[2];
  for (auto c : {log_compression::zlib, log_compression::zstd}) {
    auto path = temp_path(std::string("frames-") + log_compression_name(c) + ".log");
    log_core_options o;
    o.compression = c;
    log_core core(o);
    add_frames_module(core, stats, 1 << 20);
    core.write(path);
    texts[c == log_compression::zstd] = printed(path);
    std::filesystem::remove(path);
  }
  CHECK(texts[1].find("# compression: zstd\n") != std::string::npos);
  const auto rows = rows_of(texts[1]);
  INFO(rows);
  CHECK(rows.find("\tlost\t3\tframes /Process/app{4242}/request_frame\n") != std::string::npos);
  CHECK(rows.find("\tfield.latency.max\t12.25\tframes /Process/app{4243}/request_frame\n") !=
        std::string::npos);
  CHECK(rows == rows_of(texts[0]));
}

TEST_CASE("perfdm replay --log-compression zstd writes a zstd log, other values are refused",
          "[log][zstd]") {
  auto path = temp_path("replay-zstd.log");
  auto out = temp_path("replay-zstd.out");
  const std::string replay = std::string(PERFDM_BINARY) + " replay " PERFDM_SOURCE_DIR
                             "/examples/demo.replay --log " + path;
  REQUIRE(std::system((replay + " --log-compression zstd >" + out + " 2>&1").c_str()) == 0);
  auto text = printed(path);
  CHECK(text.find("# compression: zstd\n") != std::string::npos);
  CHECK(text.find("\tbucket.1\t2\thistogram 1 phase 0\n") != std::string::npos);
  std::filesystem::remove(path);
  CHECK(std::system((replay + " --log-compression lz4 >" + out + " 2>&1").c_str()) != 0);
  CHECK_FALSE(std::filesystem::exists(path));
  std::ifstream err(out);
  std::stringstream e;
  e << err.rdbuf();
  CHECK(e.str().find("--log-compression") != std::string::npos);
  std::filesystem::remove(out);
}

TEST_CASE("a log module past its memory grant is partial, not lost", "[log][dm]") {
  auto path = temp_path("small.log");
  session_options o;
  o.log_memory_bytes = 2048;  // far less than the demo's histograms need
  session s(o);
  std::istringstream in(demo_requests());
  for (std::string line; std::getline(in, line);) s.run_line(line, [](const session_line&) {});
  s.write_log_file(path);
  auto text = printed(path);
  CHECK(text.find("# partial modules: dm") != std::string::npos);
  log_print_options show;
  show.show_partial = true;
  std::ostringstream out;
  print_log(path, show, out);
  CHECK(out.str().find("metric cpu_time") != std::string::npos);  // what fitted is kept
  std::filesystem::remove(path);
}

TEST_CASE("an engine stopped by SIGTERM writes its log", "[log][engine]") {
  auto path = temp_path("engine.log");
  auto replies = temp_path("engine.out");
  const std::string compression = GENERATE("zlib", "zstd");
  int in[2];
  REQUIRE(pipe(in) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    close(in[1]);
    int out = open(replies.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = open("/dev/null", O_WRONLY);
    dup2(out, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    execl(PERFDM_BINARY, PERFDM_BINARY, "engine", "--log", path.c_str(), "--log-compression",
          compression.c_str(), (char*)nullptr);
    _exit(127);
  }
  close(in[0]);
  std::string requests =
      "<DYPER PID='DM' COMMAND='DEFINE'><METRIC NAME='m' STYLE='COUNTER'/></DYPER>\n"
      "<DYPER PID='DM' COMMAND='STREAM'/>\n"
      "<DYPER PID='DM' COMMAND='ENABLE'><ENABLE STREAM='0' METRIC='m'/></DYPER>\n"
      "<DYPER PID='DM' COMMAND='SAMPLES'><SAMPLES><S MI='0' START='0' END='0.4' "
      "VALUE='3'/></SAMPLES></DYPER>\n";
  REQUIRE(write(in[1], requests.data(), requests.size()) == static_cast<ssize_t>(requests.size()));
  // The engine answers in order: the SAMPLES reply, the last, says every request was read and
  // applied before the signal.
  const std::string applied = "<DYPER_REPLY ID='DM'><OK COUNT='1' DROPPED='0'/></DYPER_REPLY>\n";
  CHECK(test::eventually([&] { return file_text(replies).find(applied) != std::string::npos; }));
  INFO(file_text(replies));
  kill(pid, SIGTERM);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  close(in[1]);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  REQUIRE(std::filesystem::exists(path));
  auto text = printed(path);
  CHECK(text.find("\tbucket.0\t1.5\thistogram 0 GLOBAL\n") != std::string::npos);
  CHECK(text.find("# job command line: ") != std::string::npos);
  CHECK(text.find("# compression: " + compression + "\n") != std::string::npos);
  std::filesystem::remove(path);
  std::filesystem::remove(replies);
}
