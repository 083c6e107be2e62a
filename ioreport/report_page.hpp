// A report as one self-contained HTML file: the page's template (web/report/report.html)
// with its style sheets, its data (JSON) and its scripts (the chart libraries from npm and
// web/report/report.js) written inline, so that it opens from a file, without a network or
// a server.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfdm::ioreport {

struct page_files {
  std::string html_template;         // with <!--perfdm:style-->, <!--perfdm:data-->, <!--perfdm:scripts-->
  std::vector<std::string> styles;   // CSS texts, in order
  std::vector<std::string> scripts;  // classic scripts, in order
};

// Reads the files: `web_dir` holds style.css and report/ (report.html, report.css,
// report.js); `libraries` are the chart libraries' paths, in load order. Throws
// std::runtime_error naming a file that cannot be read.
page_files read_page_files(const std::string& web_dir, const std::vector<std::string>& libraries);

// Writes the page with `data` inline.
void write_report_page(std::ostream& out, const nlohmann::json& data, const page_files& files);

// `text` safe inside a <script> or <style> element: "</" and "<!--" cannot end or confuse it.
std::string inline_safe(std::string text);

}  // namespace perfdm::ioreport
