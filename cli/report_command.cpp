#include "cli/report_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/engine_http.hpp"
#include "ioinsights/insight.hpp"
#include "ioreport/jobs_report.hpp"
#include "ioreport/report_json.hpp"
#include "ioreport/report_page.hpp"
#include "iosummary/summary_builder.hpp"

#ifndef PERFDM_SOURCE_NPM_DIR
#define PERFDM_SOURCE_NPM_DIR "web/node_modules"
#endif
#ifndef PERFDM_REPORT_LIBRARIES
#define PERFDM_REPORT_LIBRARIES "chart.js/dist/chart.min.js,d3/dist/d3.min.js"
#endif

namespace perfdm {

CLI::App* add_report_command(CLI::App& app, report_command_options& o) {
  auto* c = app.add_subcommand(
      "report",
      "Write a job's I/O summary and what to fix as one HTML file that opens without a network "
      "(from a Darshan log or a perfdm log of I/O counters); over several logs, one page of "
      "the jobs and their trends");
  c->add_option("LOG", o.logs, "the log(s)")->required();
  c->add_option("-o,--output", o.output, "the HTML file to write")->capture_default_str();
  c->add_option("--json", o.json, "also write the page's data as JSON to this file");
  c->add_option("--max-files", o.max_files,
                "files held in memory at once per module (a log with more is read again)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))
      ->capture_default_str();
  return c;
}

namespace {

// The chart libraries the page inlines: installed in <web>/lib/<package>/<file>, or in the
// source tree's web/node_modules/<package>/dist/<file> in a build.
std::vector<std::string> chart_libraries(const std::string& web) {
  std::vector<std::string> paths;
  std::stringstream list(PERFDM_REPORT_LIBRARIES);
  const bool installed = std::filesystem::is_directory(web + "/lib");
  for (std::string f; std::getline(list, f, ',');) {
    if (installed) {
      const std::string package = f.substr(0, f.find('/'));
      paths.push_back(web + "/lib/" + package + "/" + std::filesystem::path(f).filename().string());
    } else {
      paths.push_back(std::string(PERFDM_SOURCE_NPM_DIR) + "/" + f);
    }
  }
  return paths;
}

}  // namespace

int run_report_command(const report_command_options& o, std::ostream& out, std::ostream& err) {
  ioreport::page_files files;
  try {
    const std::string web = dashboard_web_root();
    files = ioreport::read_page_files(web, chart_libraries(web));
  } catch (const std::exception& e) {
    err << "perfdm report: " << e.what() << '\n';
    return 1;
  }
  iosummary::summary_options options;
  options.files.max_files = o.max_files;
  nlohmann::json data;
  std::vector<ioinsights::insight> answer;
  if (o.logs.size() == 1) {
    try {
      auto source = iosummary::open_io_source(o.logs[0]);
      auto summary = iosummary::build_summary(*source, options);
      answer = ioinsights::find_insights(summary);
      data = ioreport::job_json(summary, answer);
      for (const auto& n : summary.notes) err << "perfdm report: " << o.logs[0] << ": " << n << '\n';
    } catch (const std::exception& e) {
      err << "perfdm report: " << e.what() << '\n';
      return 1;
    }
  } else {
    ioreport::jobs_report jobs;
    std::size_t readable = 0;
    for (const auto& log : o.logs) {
      try {
        auto source = iosummary::open_io_source(log);
        auto summary = iosummary::build_summary(*source, options);
        jobs.add(summary, ioinsights::find_insights(summary));
        ++readable;
      } catch (const std::exception& e) {
        err << "perfdm report: " << e.what() << '\n';
        jobs.add_unreadable(log, e.what());
      }
    }
    if (readable == 0) return 1;
    data = jobs.page_data();
  }
  data["generator"] = std::string("perfdm ") + PERFDM_VERSION;
  {
    std::ofstream html(o.output, std::ios::binary | std::ios::trunc);
    if (html) ioreport::write_report_page(html, data, files);
    if (!html || !html.flush()) {
      err << "perfdm report: cannot write " << o.output << '\n';
      return 1;
    }
  }
  if (!o.json.empty()) {
    std::ofstream j(o.json, std::ios::trunc);
    j << data.dump(1) << '\n';
    if (!j.flush()) {
      err << "perfdm report: cannot write " << o.json << '\n';
      return 1;
    }
  }
  // The answer first: what to fix, in one line each.
  std::size_t shown = 0;
  for (const auto& i : answer) {
    if (i.severity != ioinsights::level::high && i.severity != ioinsights::level::warn) continue;
    if (shown++ == 5) break;
    out << i.code << "  " << i.line << '\n';
  }
  if (o.logs.size() == 1 && shown == 0) out << "no I/O problem found past Drishti's thresholds\n";
  err << "perfdm report: wrote " << o.output << '\n';
  return 0;
}

}  // namespace perfdm
