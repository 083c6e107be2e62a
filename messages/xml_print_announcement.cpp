// See xml_print_announcement.hpp.
#include "messages/xml_print_announcement.hpp"

#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

std::string print(process_announcement::kind_t kind, std::string_view id, std::int64_t time_ms,
                  std::string_view body, const char* empty_end) {
  const auto escaped = xml_escaped(id);
  switch (kind) {
    case process_announcement::start:
      return "<DYPER START='" + escaped + "'" + empty_end;
    case process_announcement::end:
      return "<DYPER END='" + escaped + "'" + empty_end;
    case process_announcement::report:
      break;
  }
  return "<DYPER REPORT='" + escaped + "' TIME='" + std::to_string(time_ms) + "'>" +
         std::string(body) + "</DYPER>";
}

}  // namespace

process_announcement make_announcement(process_announcement::kind_t kind, std::int32_t pid,
                                       std::int64_t time_ms, std::string body) {
  process_announcement a{{}, pid, kind, time_ms, std::move(body)};
  a.xml = print(kind, std::to_string(pid), time_ms, a.body, "/>");
  return a;
}

std::string print_agent_announcement(process_announcement::kind_t kind, std::string_view id,
                                     std::int64_t time_ms, std::string_view body) {
  return print(kind, id, time_ms, body, " />");
}

}  // namespace perfdm
