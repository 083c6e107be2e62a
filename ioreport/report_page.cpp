#include "ioreport/report_page.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace perfdm::ioreport {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + " (the report page's files)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string inline_safe(std::string text) {
  // Only "</script", "</style" (in any case) and "<!--" can end or confuse the element; in
  // JavaScript, JSON and CSS, where they can only stand inside strings, regular expressions
  // or comments, "<\/" and "<\!" mean the same characters.
  auto lower = [](char c) { return char(c >= 'A' && c <= 'Z' ? c + 32 : c); };
  auto ends_element = [&](std::size_t at) {
    for (const char* tag : {"script", "style"}) {
      std::size_t i = 0;
      while (tag[i] && at + 2 + i < text.size() && lower(text[at + 2 + i]) == tag[i]) ++i;
      if (!tag[i]) return true;
    }
    return false;
  };
  for (std::size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at + 1)) {
    if (text.compare(at, 2, "</") == 0 && ends_element(at)) text.insert(at + 1, "\\");
    else if (text.compare(at, 4, "<!--") == 0) text.insert(at + 1, "\\");
  }
  return text;
}

page_files read_page_files(const std::string& web_dir, const std::vector<std::string>& libraries) {
  page_files f;
  f.html_template = read_file(web_dir + "/report/report.html");
  f.styles = {read_file(web_dir + "/style.css"), read_file(web_dir + "/report/report.css")};
  for (const auto& l : libraries) f.scripts.push_back(read_file(l));
  f.scripts.push_back(read_file(web_dir + "/report/report.js"));
  return f;
}

void write_report_page(std::ostream& out, const nlohmann::json& data, const page_files& files) {
  const std::string& t = files.html_template;
  struct part {
    const char* marker;
    std::size_t at;
  };
  part parts[] = {{"<!--perfdm:style-->", 0}, {"<!--perfdm:data-->", 0}, {"<!--perfdm:scripts-->", 0}};
  std::size_t from = 0;
  for (auto& p : parts) {
    p.at = t.find(p.marker, from);
    if (p.at == std::string::npos)
      throw std::runtime_error(std::string("the report template lacks ") + p.marker);
    from = p.at;
  }
  auto text_between = [&](std::size_t a, std::size_t b) { out.write(t.data() + a, std::streamsize(b - a)); };
  std::size_t at = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    text_between(at, parts[i].at);
    if (i == 0) {
      out << "<style>\n";
      for (const auto& s : files.styles) out << inline_safe(s) << '\n';
      out << "</style>";
    } else if (i == 1) {
      out << "<script type=\"application/json\" id=\"report-data\">"
          << inline_safe(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
          << "</script>";
    } else {
      for (const auto& s : files.scripts) out << "<script>\n" << inline_safe(s) << "\n</script>\n";
    }
    at = parts[i].at + std::char_traits<char>::length(parts[i].marker);
  }
  text_between(at, t.size());
}

}  // namespace perfdm::ioreport
