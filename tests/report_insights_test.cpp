// perfdm report's plain logic without a browser: the job summary of Darshan logs
// (iosummary/), Drishti's insights at their thresholds (ioinsights/, tests named after
// Drishti's codes), the per-file tables in bounded memory, and the page's file (ioreport/).
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "darshan/darshan_counters.hpp"
#include "darshan/darshan_layouts.hpp"
#include "darshan/darshan_log_writer.hpp"
#include "darshan/darshan_record_id.hpp"
#include "ioinsights/insight.hpp"
#include "ioinsights/insight_words.hpp"
#include "ioreport/jobs_report.hpp"
#include "ioreport/report_json.hpp"
#include "ioreport/report_page.hpp"
#include "iosummary/summary_builder.hpp"

using namespace perfdm;
namespace dz = perfdm::darshan;

namespace {

// One record: its file, rank, and the counters (current names) that are not 0.
struct test_record {
  std::string file;
  std::int64_t rank = 0;
  std::map<std::string, double> values;
};

// A temporary Darshan 3.41 log of POSIX, MPI-IO and STDIO records (modules with no record
// are left out); removed with the object.
class test_log {
 public:
  test_log(std::int64_t nprocs, const std::map<int, std::vector<test_record>>& modules,
           std::uint64_t partial = 0) {
    char name[] = "/tmp/perfdm-report-test-XXXXXX";
    int fd = mkstemp(name);
    ::close(fd);
    path_ = name;
    dz::log_file_writer w(path_, {});
    dz::job_info j;
    j.nprocs = nprocs;
    j.jobid = 77;
    j.start_time_sec = 1700000000;
    j.end_time_sec = 1700000100;
    j.exe = "/usr/bin/app -x";
    j.metadata = {{"lib_ver", "3.5.0"}};
    j.mounts = {{"/scratch", "lustre"}, {"/", "ext4"}};
    w.write_job(j);
    std::map<std::string, bool> named;
    for (const auto& [m, records] : modules)
      for (const auto& r : records)
        if (!named[r.file]) {
          named[r.file] = true;
          w.add_name(dz::record_id(r.file), r.file);
        }
    for (const auto& [m, records] : modules) {
      w.begin_module(m, dz::module_versions[m]);
      const dz::record_layout* l = dz::current_layout(m);
      for (const auto& r : records) {
        auto b = w.record();
        b.u64(dz::record_id(r.file)).i64(r.rank);
        for (const char* c : l->ints) {
          auto it = r.values.find(c);
          b.i64(it == r.values.end() ? 0 : std::int64_t(it->second));
        }
        for (const char* c : l->floats) {
          auto it = r.values.find(c);
          b.f64(it == r.values.end() ? 0 : it->second);
        }
        w.add_record(b);
      }
      if (partial & (std::uint64_t{1} << m)) w.set_partial(m);
    }
    w.finish();
  }
  ~test_log() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

iosummary::job_summary summary_of(const test_log& log, iosummary::summary_options o = {}) {
  auto source = iosummary::open_io_source(log.path());
  return iosummary::build_summary(*source, o);
}

const ioinsights::insight* find(const std::vector<ioinsights::insight>& all, const std::string& code) {
  for (const auto& i : all)
    if (i.code == code) return &i;
  return nullptr;
}

// `writes` POSIX writes to `file` by rank 0, `small` of them of 1-10 KiB, the rest of 1-4 MiB,
// in `seconds` of write time.
test_record writer(const std::string& file, double writes, double small, double seconds) {
  return {file, 0, {{"POSIX_WRITES", writes}, {"POSIX_SEQ_WRITES", writes}, {"POSIX_SIZE_WRITE_1K_10K", small},
                    {"POSIX_SIZE_WRITE_1M_4M", writes - small}, {"POSIX_BYTES_WRITTEN", small * 4096 + (writes - small) * 2097152},
                    {"POSIX_MAX_BYTE_WRITTEN", small * 4096 + (writes - small) * 2097152 - 1},
                    {"POSIX_F_WRITE_TIME", seconds}}};
}

std::string sample(const char* name) {
  return std::string(PERFDM_SOURCE_DIR) + "/tests/darshan/logs/" + name + ".darshan";
}

}  // namespace

TEST_CASE("P06: small writes over 10 % of the writes and over 1,000 of them, with the file and the time at stake") {
  // 1,001 of 10,000 writes small: 10.01 % and more than 1,000.
  test_record other{"/scratch/other", 0, {{"POSIX_OPENS", 1}, {"POSIX_F_META_TIME", 50}}};
  test_log fires(1, {{dz::POSIX_MOD, {writer("/scratch/out.h5", 10000, 1001, 50), other}}});
  auto s = summary_of(fires);
  auto all = ioinsights::find_insights(s);
  const auto* p06 = find(all, "P06");
  REQUIRE(p06);
  CHECK(p06->severity == ioinsights::level::high);
  CHECK(p06->count == 1001);
  // The time at stake: the file's write time times its share of small writes.
  CHECK(p06->seconds == Approx(50 * 1001.0 / 10000));
  CHECK(p06->share == Approx(p06->seconds / 100));
  REQUIRE(p06->files.size() == 1);
  CHECK(p06->files[0].file == "/scratch/out.h5");
  CHECK(p06->line.find("/scratch/out.h5") != std::string::npos);
  CHECK(p06->line.find("1,001 operations") != std::string::npos);
  CHECK(p06->line.find("are under 10 KiB") != std::string::npos);
  CHECK(p06->line.find("5 % of I/O time") != std::string::npos);
  CHECK(p06->line.find("buffer them") != std::string::npos);

  // 1,000 small of 5,000: 20 % but not more than 1,000; 1,100 of 11,000: exactly 10 %.
  test_log few(1, {{dz::POSIX_MOD, {writer("/scratch/out.h5", 5000, 1000, 50)}}});
  test_log share(1, {{dz::POSIX_MOD, {writer("/scratch/out.h5", 11000, 1100, 50)}}});
  auto few_all = ioinsights::find_insights(summary_of(few));
  auto share_all = ioinsights::find_insights(summary_of(share));
  CHECK(find(few_all, "P06") == nullptr);
  CHECK(find(share_all, "P06") == nullptr);
  CHECK(find(few_all, "P14") != nullptr);  // the same logs do get their other insights
  CHECK(find(share_all, "P14") != nullptr);
}

TEST_CASE("P11/P12: random reads over 20 % and over 1,000, else sequential reads are good") {
  auto reader = [](double reads, double seq, double consec) {
    return test_record{"/scratch/in", 0, {{"POSIX_READS", reads}, {"POSIX_SEQ_READS", seq}, {"POSIX_CONSEC_READS", consec},
                                          {"POSIX_SIZE_READ_1M_4M", reads}, {"POSIX_BYTES_READ", reads * 2097152},
                                          {"POSIX_MAX_BYTE_READ", reads * 2097152 - 1}, {"POSIX_F_READ_TIME", 10}}};
  };
  test_log random(1, {{dz::POSIX_MOD, {reader(5000, 3999, 3000)}}});  // 1,001 random: 20.02 %
  auto all = ioinsights::find_insights(summary_of(random));
  const auto* p11 = find(all, "P11");
  REQUIRE(p11);
  CHECK(p11->count == 1001);
  CHECK(p11->seconds == Approx(10 * 1001.0 / 5000));
  CHECK(find(all, "P12") == nullptr);
  test_log sequential(1, {{dz::POSIX_MOD, {reader(5000, 4000, 3000)}}});  // 1,000 random: 20 %
  auto seq = ioinsights::find_insights(summary_of(sequential));
  CHECK(find(seq, "P11") == nullptr);
  const auto* p12 = find(seq, "P12");
  REQUIRE(p12);
  CHECK(p12->severity == ioinsights::level::ok);
  CHECK(p12->line == "Mostly consecutive (60 %) and sequential (20 %) reads");
}

TEST_CASE("S01 and M01: STDIO over 10 % of the bytes, no MPI-IO") {
  test_record posix{"/scratch/data", 0, {{"POSIX_WRITES", 10}, {"POSIX_BYTES_WRITTEN", 9000}, {"POSIX_F_WRITE_TIME", 1}}};
  test_record stdio{"/scratch/log.txt", 0, {{"STDIO_WRITES", 100}, {"STDIO_BYTES_WRITTEN", 1100}, {"STDIO_F_WRITE_TIME", 3}}};
  test_log log(1, {{dz::POSIX_MOD, {posix}}, {dz::STDIO_MOD, {stdio}}});
  auto s = summary_of(log);
  CHECK(s.io_time == Approx(4));
  auto all = ioinsights::find_insights(s);
  const auto* s01 = find(all, "S01");
  REQUIRE(s01);
  CHECK(s01->seconds == Approx(3));
  CHECK(s01->line.rfind("11 % of the data (1.1 KiB) goes through STDIO to /scratch/log.txt (100 operations, 75 % of I/O time)", 0) == 0);
  // Ranked by time at stake: S01 (3 s) before M01 (no estimate).
  REQUIRE(all.size() >= 2);
  CHECK(all[0].code == "S01");
  CHECK(find(all, "M01") != nullptr);
  // 10 % exactly is not over the threshold.
  stdio.values["STDIO_BYTES_WRITTEN"] = 1000;
  test_log at(1, {{dz::POSIX_MOD, {posix}}, {dz::STDIO_MOD, {stdio}}});
  auto at_all = ioinsights::find_insights(summary_of(at));
  CHECK(find(at_all, "S01") == nullptr);
  CHECK(find(at_all, "M01") != nullptr);
}

TEST_CASE("M02/M04: MPI-IO reads without collective ones (over 1,000), else collective reads are good") {
  auto mpi = [](double indep, double coll) {
    return test_record{"/scratch/shared", -1, {{"MPIIO_INDEP_READS", indep}, {"MPIIO_COLL_READS", coll},
                                               {"MPIIO_BYTES_READ", (indep + coll) * 4096}, {"MPIIO_F_READ_TIME", 8}}};
  };
  test_record posix{"/scratch/shared", -1, {{"POSIX_READS", 1001}, {"POSIX_F_READ_TIME", 7}}};
  test_log indep(4, {{dz::POSIX_MOD, {posix}}, {dz::MPIIO_MOD, {mpi(1001, 0)}}});
  auto all = ioinsights::find_insights(summary_of(indep));
  const auto* m02 = find(all, "M02");
  REQUIRE(m02);
  CHECK(m02->count == 1001);
  CHECK(m02->seconds == Approx(8));
  REQUIRE(m02->files.size() == 1);
  CHECK(m02->files[0].file == "/scratch/shared");
  CHECK(find(all, "M01") == nullptr);
  test_log coll(4, {{dz::POSIX_MOD, {posix}}, {dz::MPIIO_MOD, {mpi(1001, 5)}}});
  auto good = ioinsights::find_insights(summary_of(coll));
  CHECK(find(good, "M02") == nullptr);
  CHECK(find(good, "M04") != nullptr);
}

TEST_CASE("P17, P18/P19, P21: metadata per rank over 30 s, stragglers in shared files, unequal ranks") {
  std::vector<test_record> posix;
  // Rank 1 spends 31 s in metadata on its own file; a shared file's 8 s spread over 4 ranks.
  posix.push_back({"/scratch/rank1", 1, {{"POSIX_OPENS", 10}, {"POSIX_F_META_TIME", 31}}});
  posix.push_back({"/scratch/rank2", 2, {{"POSIX_OPENS", 10}, {"POSIX_F_META_TIME", 27.9}}});
  // Shared: slowest rank 6 s, fastest 1 s of 20 s (25 % > 15 %); bytes 300 vs 100 of 1,000.
  posix.push_back({"/scratch/shared", -1, {{"POSIX_WRITES", 10}, {"POSIX_BYTES_WRITTEN", 1000}, {"POSIX_F_WRITE_TIME", 12},
                                           {"POSIX_F_META_TIME", 8}, {"POSIX_SLOWEST_RANK_BYTES", 300},
                                           {"POSIX_FASTEST_RANK_BYTES", 100}, {"POSIX_F_SLOWEST_RANK_TIME", 6},
                                           {"POSIX_F_FASTEST_RANK_TIME", 1}}});
  // Written by ranks 0 and 3 unequally: 1,000 and 600 bytes (40 % > 30 %).
  posix.push_back({"/scratch/part", 0, {{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 1000}, {"POSIX_F_WRITE_TIME", 2}}});
  posix.push_back({"/scratch/part", 3, {{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 600}, {"POSIX_F_WRITE_TIME", 2}}});
  test_log log(4, {{dz::POSIX_MOD, posix}});
  auto s = summary_of(log);
  REQUIRE(s.rank_meta_time.size() == 4);
  CHECK(s.rank_meta_time[1] == Approx(33));
  CHECK(s.rank_meta_time[2] == Approx(29.9));
  auto all = ioinsights::find_insights(s);
  const auto* p17 = find(all, "P17");
  REQUIRE(p17);
  CHECK(p17->count == 1);
  CHECK(p17->seconds == Approx(33));
  const auto* p18 = find(all, "P18");
  REQUIRE(p18);
  CHECK(p18->seconds == Approx(5));
  CHECK(p18->line.find("/scratch/shared") != std::string::npos);
  const auto* p19 = find(all, "P19");
  REQUIRE(p19);
  CHECK(p19->line.find("5.0 s longer") != std::string::npos);
  const auto* p21 = find(all, "P21");
  REQUIRE(p21);
  REQUIRE(p21->files.size() == 1);
  CHECK(p21->files[0].file == "/scratch/part");
  CHECK(p21->files[0].share == Approx(0.4));
  CHECK(find(all, "P22") == nullptr);
}

TEST_CASE("report: a log of more files than a pass holds is read in several passes, with the same results") {
  std::vector<test_record> posix;
  for (int f = 0; f < 60; ++f)
    for (int rank = 0; rank < 2; ++rank)
      posix.push_back({"/scratch/f" + std::to_string(f), rank,
                       {{"POSIX_WRITES", 2000 + f}, {"POSIX_SIZE_WRITE_0_100", 2000 + f}, {"POSIX_BYTES_WRITTEN", 10 * (f + 1) * (rank + 1)},
                        {"POSIX_MAX_BYTE_WRITTEN", 10 * (f + 1) * (rank + 1) - 1}, {"POSIX_F_WRITE_TIME", 0.5 + f}}});
  test_log log(2, {{dz::POSIX_MOD, posix}});
  iosummary::summary_options whole, small;
  small.files.max_files = 7;
  auto a = summary_of(log, whole), b = summary_of(log, small);
  CHECK(a.file_passes == 1);
  CHECK(b.file_passes > 8);
  const auto &pa = *a.find(dz::POSIX_MOD), &pb = *b.find(dz::POSIX_MOD);
  CHECK(pa.files.total.count == 60);
  CHECK(pb.files.total.count == 60);
  CHECK(pb.files.write_only.total_size == pa.files.write_only.total_size);
  for (std::size_t m = 0; m < iosummary::file_metric_count; ++m) {
    const auto &ca = pa.cases[m], &cb = pb.cases[m];
    CHECK(ca.count == Approx(cb.count));
    CHECK(ca.files == cb.files);
    REQUIRE(ca.top.size() == cb.top.size());
    for (std::size_t i = 0; i < ca.top.size(); ++i) CHECK(ca.top[i].name == cb.top[i].name);
  }
  // Every file's ranks wrote 1:2: P21 in all 60, the top one the file of the most time.
  const auto& p21 = pa.at(iosummary::file_metric::write_size_imbalance);
  CHECK(p21.files == 60);
  REQUIRE(!p21.top.empty());
  CHECK(p21.top[0].name == "/scratch/f59");
}

TEST_CASE("report: the sample logs' summaries") {
  SECTION("an imbalanced job on Lustre: its problems, ranked by time at stake") {
    auto src = iosummary::open_io_source(sample("imbalanced-io"));
    auto s = iosummary::build_summary(*src);
    CHECK(s.job.nprocs == 496);
    const auto* posix = s.find(dz::POSIX_MOD);
    REQUIRE(posix);
    CHECK(posix->info.partial);
    CHECK(posix->files.total.count == 1026);
    auto all = ioinsights::find_insights(s);
    REQUIRE(all.size() > 5);
    for (const char* code : {"P06", "P07", "P08", "P18", "P19", "P17"}) CHECK(find(all, code) != nullptr);
    for (std::size_t i = 1; i < all.size(); ++i)
      if (all[i].severity == ioinsights::level::high) CHECK(all[i - 1].seconds >= all[i].seconds);
    CHECK(s.mounts.front().point == "/lus/theta-fs0");
    CHECK(s.mounts.front().type == "lustre");
  }
  SECTION("a heatmap: its bytes are the job's POSIX bytes") {
    auto src = iosummary::open_io_source(sample("mpi-io-test-x86_64-3.5.0"));
    auto s = iosummary::build_summary(*src);
    REQUIRE(!s.heatmaps.empty());
    const auto* posix = s.find(dz::POSIX_MOD);
    for (const auto& h : s.heatmaps) {
      if (h.name != "POSIX") continue;
      double sum = 0;
      for (const auto& row : h.bytes)
        for (double v : row) sum += v;
      CHECK(sum == Approx(posix->bytes_read + posix->bytes_written).epsilon(0.01));
    }
  }
  SECTION("DXT: every segment counted, as darshan-dxt-parser lists them") {
    auto src = iosummary::open_io_source(sample("nonmpi_dxt_anonymized"));
    auto s = iosummary::build_summary(*src);
    REQUIRE(s.dxt.size() == 1);
    CHECK(s.dxt[0].module == "DXT_POSIX");
    const auto* posix = s.find(dz::POSIX_MOD);
    // Every POSIX read and write of the traced files is a segment here (no trace was full).
    CHECK(double(s.dxt[0].read_segments + s.dxt[0].write_segments) <= posix->reads + posix->writes);
    CHECK(s.dxt[0].read_segments > 0);
    CHECK(s.dxt[0].bytes_read + s.dxt[0].bytes_written > 0);
  }
}

TEST_CASE("report: a file that is not a log, and a damaged log") {
  char name[] = "/tmp/perfdm-report-test-XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(::write(fd, "hello, not a log\n", 17) == 17);
  ::close(fd);
  CHECK_THROWS_WITH(iosummary::open_io_source(name), Catch::Contains("not a Darshan log nor a perfdm log"));
  // The first 60 % of a sample log: what could be read is summarized, with a note.
  std::ifstream in(sample("imbalanced-io"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  {
    std::ofstream out(name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size() * 6 / 10));
  }
  auto src = iosummary::open_io_source(name);
  auto s = iosummary::build_summary(*src);
  CHECK(!s.notes.empty());
  CHECK(s.job.nprocs == 496);
  std::remove(name);
}

TEST_CASE("report: the words of an insight's line") {
  using namespace ioinsights;
  CHECK(percent(0.823) == "82 %");
  CHECK(percent(0.004) == "0.4 %");
  CHECK(percent(0.00001) == "< 0.1 %");
  CHECK(percent(0) == "0 %");
  CHECK(count(1234567) == "1.2 M");
  CHECK(count(4321) == "4,321");
  CHECK(count(12) == "12");
  CHECK(bytes(4096) == "4 KiB");
  CHECK(bytes(1.5 * 1024 * 1024 * 1024) == "1.5 GiB");
  CHECK(bytes(100) == "100 B");
  CHECK(seconds(3.14) == "3.1 s");
  CHECK(seconds(0.0123) == "12 ms");
  CHECK(seconds(4000) == "1.1 h");
}

TEST_CASE("report: the page is one file, its data inline and safe inside <script>") {
  ioreport::page_files files;
  files.html_template = "<head><!--perfdm:style--></head><body><!--perfdm:data--><!--perfdm:scripts--></body>";
  files.styles = {"body { color: red; }"};
  files.scripts = {"var a = '</script>';", "var b = 1;"};
  nlohmann::json data = {{"file", "/x/</script><!--evil"}};
  std::ostringstream out;
  ioreport::write_report_page(out, data, files);
  const std::string page = out.str();
  CHECK(page.find("<style>\nbody { color: red; }") != std::string::npos);
  CHECK(page.find("var a = '<\\/script>';") != std::string::npos);
  CHECK(page.find("/x/<\\/script><\\!--evil") != std::string::npos);
  // Exactly the page's own elements end there: 1 data script and 2 scripts.
  std::size_t ends = 0;
  for (auto at = page.find("</script>"); at != std::string::npos; at = page.find("</script>", at + 1)) ++ends;
  CHECK(ends == 3);
  CHECK(page.find("perfdm:") == std::string::npos);
  CHECK(ioreport::inline_safe("a</STYLE>b") == "a<\\/STYLE>b");
  CHECK(ioreport::inline_safe("a</b>") == "a</b>");
  files.html_template = "<body></body>";
  std::ostringstream bad;
  CHECK_THROWS_WITH(ioreport::write_report_page(bad, data, files), Catch::Contains("perfdm:style"));
}

TEST_CASE("report: many jobs make one page of rows, trends and the files they share") {
  test_log one(1, {{dz::POSIX_MOD, {writer("/scratch/out.h5", 10000, 5000, 50)}}});
  test_log two(1, {{dz::POSIX_MOD, {writer("/scratch/out.h5", 10000, 100, 20)}}});
  ioreport::jobs_report jobs;
  for (const auto* l : {&one, &two}) {
    auto s = summary_of(*l);
    jobs.add(s, ioinsights::find_insights(s));
  }
  jobs.add_unreadable("/nope.darshan", "cannot open");
  auto d = jobs.page_data();
  CHECK(d["kind"] == "jobs");
  REQUIRE(d["jobs"].size() == 3);
  CHECK(d["files"][0]["file"] == "/scratch/out.h5");
  CHECK(d["files"][0]["jobs"] == 2);
  CHECK(d["files"][0]["seconds"].get<double>() == Approx(70));
  bool p06 = false;
  for (const auto& i : d["insights"])
    if (i["code"] == "P06") {
      p06 = true;
      CHECK(i["jobs"] == 1);
      CHECK(i["seconds"].get<double>() == Approx(25));
    }
  CHECK(p06);
}
