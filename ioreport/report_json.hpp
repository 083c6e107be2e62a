// The data of a report page (web/report/report.js draws it), as JSON: one job's summary and
// insights, or the rows and trends of many jobs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ioinsights/insight.hpp"
#include "iosummary/job_summary.hpp"

namespace perfdm::ioreport {

// One job: its tables, charts and insights ("kind": "job").
nlohmann::json job_json(const iosummary::job_summary& job,
                        const std::vector<ioinsights::insight>& insights);

nlohmann::json insight_json(const ioinsights::insight& i);
nlohmann::json job_table_json(const iosummary::source_job& job);

}  // namespace perfdm::ioreport
