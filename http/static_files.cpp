#include "http/static_files.hpp"

namespace perfdm {

namespace {

constexpr std::string_view library_prefix = "/lib/";

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A path is served only if every segment is a plain name: the URL cannot climb out of its
// root however it is spelled (percent-encoding is refused rather than decoded).
bool safe_relative(std::string_view path) {
  if (path.empty()) return false;
  for (char c : path)
    if (c == '\\' || c == '\0' || c == '%' || static_cast<unsigned char>(c) < 0x20) return false;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    auto end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    auto segment = path.substr(begin, end - begin);
    if (segment.empty() || segment == "." || segment == "..") return false;
    begin = end + 1;
  }
  return true;
}

}  // namespace

std::optional<std::string> static_file_for(const static_roots& roots, std::string_view target) {
  if (auto q = target.find_first_of("?#"); q != std::string_view::npos)
    target = target.substr(0, q);
  if (target.empty() || target[0] != '/') return std::nullopt;
  if (target == "/") return roots.web + "/index.html";
  if (!roots.npm.empty() && target.substr(0, library_prefix.size()) == library_prefix) {
    auto rest = target.substr(library_prefix.size());
    auto slash = rest.find('/');
    if (slash == std::string_view::npos || !safe_relative(rest)) return std::nullopt;
    return roots.npm + "/" + std::string(rest.substr(0, slash)) + "/dist/" +
           std::string(rest.substr(slash + 1));
  }
  auto rest = target.substr(1);
  // In a build the web folder holds npm's node_modules too: only /lib/ serves from it.
  if (!safe_relative(rest) || rest.substr(0, 13) == "node_modules/") return std::nullopt;
  return roots.web + "/" + std::string(rest);
}

std::string content_type_for(std::string_view path) {
  if (ends_with(path, ".html")) return "text/html; charset=utf-8";
  if (ends_with(path, ".js") || ends_with(path, ".mjs")) return "text/javascript; charset=utf-8";
  if (ends_with(path, ".css")) return "text/css; charset=utf-8";
  if (ends_with(path, ".json")) return "application/json";
  if (ends_with(path, ".svg")) return "image/svg+xml";
  if (ends_with(path, ".png")) return "image/png";
  if (ends_with(path, ".ico")) return "image/x-icon";
  return "text/plain; charset=utf-8";
}

}  // namespace perfdm
