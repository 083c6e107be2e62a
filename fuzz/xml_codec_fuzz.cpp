// libFuzzer target: the XML command language (messages/xml_codec.hpp).
//
// Every input goes to parse_request(). A refused request must carry an error and no request.
// An accepted one must survive the round trip: its canonical print, parsed again, gives the
// same target, command and struct (compared through CAF's deep_to_string), and printing that
// again gives the same line (print_request(parse_request(line)) == line for a canonical line).
// The error reply of a refused one is printed too. A broken round trip prints what it saw
// and aborts; so does anything the sanitizers report.
#include <caf/deep_to_string.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "messages/dm_error.hpp"
#include "messages/xml_codec.hpp"

using namespace perfdm;

namespace {

[[noreturn]] void broken(const char* what, std::string_view input, const std::string& a,
                         const std::string& b) {
  std::fprintf(stderr, "xml_codec_fuzz: %s\n  input:  %.*s\n  first:  %s\n  second: %s\n", what,
               static_cast<int>(input.size()), input.data(), a.c_str(), b.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const parsed_request first = parse_request(text);
  if (first.error) {
    if (!first.request.empty()) broken("refused, yet it holds a request", text, "", "");
    (void)print_error(first.target, first.error);  // the error reply must print
    return 0;
  }
  if (first.request.empty()) broken("accepted, yet it holds no request", text, "", "");

  const std::string line = print_request(first.target, first.request);
  if (line.empty()) broken("accepted, yet print_request cannot print it", text, "", "");
  const parsed_request second = parse_request(line);
  if (second.error) broken("its canonical print is refused", text, line, dm_error_reason(second.error));
  if (second.target != first.target) broken("the target changed", text, first.target, second.target);
  if (second.command != first.command) broken("the command changed", text, first.command, second.command);
  const std::string a = caf::deep_to_string(first.request);
  const std::string b = caf::deep_to_string(second.request);
  if (a != b) broken("the request changed", text, a, b);
  const std::string again = print_request(second.target, second.request);
  if (again != line) broken("the canonical print is not stable", text, line, again);
  return 0;
}
