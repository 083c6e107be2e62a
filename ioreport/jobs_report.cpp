#include "ioreport/jobs_report.hpp"

#include <algorithm>

#include "ioreport/report_json.hpp"
#include "iosummary/module_counters.hpp"

namespace perfdm::ioreport {

using namespace iosummary;

void jobs_report::add(const job_summary& s, const std::vector<ioinsights::insight>& insights) {
  double read = 0, written = 0, files = 0;
  bool partial = false;
  for (const auto& m : s.modules) {
    partial = partial || m.info.partial;
    const module_counters* c = counters_of(m.info.id);
    if (!c || c->layered) continue;
    read += m.bytes_read;
    written += m.bytes_written;
    files += double(m.files.total.count);
    // The module's top files by I/O time: a file in several modules counts in each.
    for (const auto& f : m.at(file_metric::io_time).top) {
      file_total& t = files_[f.name];
      t.jobs += 1;
      t.seconds += f.seconds;
      t.bytes += f.bytes;
    }
  }
  if (files_.size() > max_files_) {
    // Keep the files with the most I/O time.
    std::vector<std::pair<double, std::string>> by_time;
    for (const auto& [name, t] : files_) by_time.emplace_back(t.seconds, name);
    std::nth_element(by_time.begin(), by_time.begin() + std::ptrdiff_t(max_files_), by_time.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = max_files_; i < by_time.size(); ++i) files_.erase(by_time[i].second);
  }
  nlohmann::json ins = nlohmann::json::array();
  for (const auto& i : insights) {
    nlohmann::json brief = {{"code", i.code}, {"level", ioinsights::level_name(i.severity)},
                  {"seconds", i.seconds}, {"share", i.share}, {"line", i.line}};
    ins.push_back(brief);
  }
  rows_.push_back(nlohmann::json{{"job", job_table_json(s.job)},
                   {"bytes_read", read},
                   {"bytes_written", written},
                   {"io_time", s.io_time},
                   {"files", files},
                   {"partial", partial},
                   {"notes", s.notes.size()},
                   {"insights", ins}});
}

void jobs_report::add_unreadable(const std::string& path, const std::string& why) {
  rows_.push_back(nlohmann::json{{"job", {{"log", path}}}, {"error", why}});
}

nlohmann::json jobs_report::page_data() const {
  std::vector<nlohmann::json> rows = rows_;
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a["job"].value("start", 0.0) < b["job"].value("start", 0.0);
  });
  // Insights over every job: in how many, their total time at stake, the latest line.
  struct total {
    std::string level, line;
    double jobs = 0, seconds = 0;
  };
  std::map<std::string, total> codes;
  for (const auto& r : rows) {
    if (!r.contains("insights")) continue;
    for (const auto& i : r["insights"]) {
      total& t = codes[i["code"].get<std::string>()];
      t.level = i["level"].get<std::string>();
      t.line = i["line"].get<std::string>();
      t.jobs += 1;
      t.seconds += i["seconds"].get<double>();
    }
  }
  nlohmann::json insights = nlohmann::json::array();
  for (const auto& [code, t] : codes)
    insights.push_back({{"code", code}, {"level", t.level}, {"line", t.line}, {"jobs", t.jobs},
                        {"seconds", t.seconds}});
  auto problem = [](const nlohmann::json& i) {
    return i["level"] == "high" || i["level"] == "warn";
  };
  std::stable_sort(insights.begin(), insights.end(), [&](const auto& a, const auto& b) {
    if (problem(a) != problem(b)) return problem(a);
    return a["seconds"].template get<double>() > b["seconds"].template get<double>();
  });
  std::vector<std::pair<std::string, file_total>> files(files_.begin(), files_.end());
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  if (files.size() > 50) files.resize(50);
  nlohmann::json file_rows = nlohmann::json::array();
  for (const auto& [name, t] : files)
    file_rows.push_back({{"file", name}, {"jobs", t.jobs}, {"bytes", t.bytes}, {"seconds", t.seconds}});
  return nlohmann::json{{"kind", "jobs"}, {"jobs", rows}, {"insights", insights}, {"files", file_rows}};
}

}  // namespace perfdm::ioreport
