#include "http/data_event_merge.hpp"

namespace perfdm {

namespace {

constexpr std::string_view data_start = "<DYPER DATA='";
constexpr std::string_view data_end = "</DYPER>";

// The length of a DATA event's start tag, or 0 when `xml` is not one with values
// (`<DYPER DATA='s'><V …/>…</DYPER>`, as messages/xml_print.cpp writes it).
std::size_t data_head(std::string_view xml) {
  if (xml.substr(0, data_start.size()) != data_start) return 0;
  auto close = xml.find('>');
  if (close == std::string_view::npos || xml[close - 1] == '/') return 0;
  if (xml.size() < close + 1 + data_end.size()) return 0;
  if (xml.substr(xml.size() - data_end.size()) != data_end) return 0;
  return close + 1;
}

std::size_t count_values(std::string_view body) {
  std::size_t n = 0;
  for (auto at = body.find("<V "); at != std::string_view::npos; at = body.find("<V ", at + 3))
    ++n;
  return n;
}

}  // namespace

void data_event_merge::add(std::string_view xml, bool event, std::vector<std::string>& out) {
  auto head = event ? data_head(xml) : 0;
  if (head == 0) {
    if (auto h = take()) out.push_back(std::move(*h));
    out.emplace_back(xml);
    return;
  }
  auto body = xml.substr(head, xml.size() - head - data_end.size());
  auto n = count_values(body);
  bool same_stream = holding() && std::string_view(held_).substr(0, head_) == xml.substr(0, head);
  if (same_stream && values_ + n <= max_values_) {
    held_.insert(held_.size() - data_end.size(), body);
    values_ += n;
  } else {
    if (auto h = take()) out.push_back(std::move(*h));
    held_.assign(xml);
    head_ = head;
    values_ = n;
  }
  if (values_ >= max_values_)
    if (auto h = take()) out.push_back(std::move(*h));
}

std::optional<std::string> data_event_merge::take() {
  if (!holding()) return std::nullopt;
  std::string out;
  out.swap(held_);
  head_ = 0;
  values_ = 0;
  return out;
}

}  // namespace perfdm
