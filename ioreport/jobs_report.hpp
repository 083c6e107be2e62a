// A report over many logs of one application (a week of runs): a row per job, the trends of
// bytes, I/O time and insights from job to job, and the files the jobs have in common, as
// PyDarshan's job_stats and file_stats tabulate them. Jobs are added one at a time: what is
// kept per job is its row (a few numbers, its insights' codes and times, its top files).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ioinsights/insight.hpp"
#include "iosummary/job_summary.hpp"

namespace perfdm::ioreport {

class jobs_report {
 public:
  explicit jobs_report(std::size_t max_files = 10000) : max_files_(max_files) {}
  void add(const iosummary::job_summary& job, const std::vector<ioinsights::insight>& insights);
  // A log that could not be read: a row that says why.
  void add_unreadable(const std::string& path, const std::string& why);
  std::size_t jobs() const { return rows_.size(); }
  // "kind": "jobs": the rows in order of start time, the insights over all jobs ranked by
  // their total time at stake, and the files by I/O time.
  nlohmann::json page_data() const;

 private:
  struct file_total {
    double jobs = 0, bytes = 0, seconds = 0;  // bytes read and written
  };
  std::vector<nlohmann::json> rows_;
  std::map<std::string, file_total> files_;
  std::size_t max_files_;
};

}  // namespace perfdm::ioreport
