#include "messages/short_request.hpp"

#include <cctype>

#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The argument element a command takes when the short form does not name one.
std::string default_element(const std::string& command) {
  if (command == "SETFLAGS" || command == "CLEARFLAGS") return "FLAGS";
  if (command == "CLOSE") return "STREAM";
  if (command == "DEFINE") return "METRIC";
  for (const char* c : {"ATTACH", "DETACH", "WATCH", "UNWATCH", "PROFILE", "STACKS"})
    if (command == c) return "PROCESS";
  return command;
}

}  // namespace

std::optional<std::string> short_request_xml(const std::vector<std::string>& words,
                                             const std::string& target, std::string& why) {
  if (words.empty()) {
    why = "an empty request";
    return std::nullopt;
  }
  if (words.size() == 1 && !words[0].empty() && words[0][0] == '<') return words[0];
  auto command = upper(words[0]);
  if (command.empty() || command.find('=') != std::string::npos || command[0] == '<') {
    why = "a request starts with its COMMAND (e.g. METRICS), not '" + words[0] + "'";
    return std::nullopt;
  }
  std::size_t next = 1;
  std::string element;
  if (next < words.size() && words[next].find('=') == std::string::npos)
    element = upper(words[next++]);
  std::string attributes;
  for (; next < words.size(); ++next) {
    auto eq = words[next].find('=');
    if (eq == std::string::npos || eq == 0) {
      why = "'" + words[next] + "' is not NAME=VALUE";
      return std::nullopt;
    }
    attributes += " " + upper(words[next].substr(0, eq)) + "='" +
                  xml_escaped(words[next].substr(eq + 1)) + "'";
  }
  auto xml = "<DYPER PID='" + xml_escaped(target) + "' COMMAND='" + xml_escaped(command) + "'";
  if (element.empty() && attributes.empty()) return xml + "/>";
  if (element.empty()) element = default_element(command);
  return xml + "><" + element + attributes + "/></DYPER>";
}

}  // namespace perfdm
