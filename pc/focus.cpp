#include "pc/focus.hpp"

namespace perfdm::pc {

const char* hierarchy_root(hierarchy h) {
  switch (h) {
    case hierarchy::code:
      return "/Code";
    case hierarchy::machine:
      return "/Machine";
    case hierarchy::syncobject:
      return "/SyncObject";
    case hierarchy::file:
      return "/File";
  }
  return "/";
}

bool hierarchy_of(const std::string& resource, hierarchy& out) {
  for (auto h : all_hierarchies) {
    std::string root = hierarchy_root(h);
    if (resource == root || resource.compare(0, root.size() + 1, root + "/") == 0) {
      out = h;
      return true;
    }
  }
  return false;
}

bool focus::is_top() const {
  for (auto h : all_hierarchies)
    if ((*this)[h] != hierarchy_root(h)) return false;
  return true;
}

focus focus::with(hierarchy h, std::string resource) const {
  auto f = *this;
  f[h] = std::move(resource);
  return f;
}

std::vector<std::string> focus::enable_focus() const {
  std::vector<std::string> out;
  for (auto h : all_hierarchies)
    if ((*this)[h] != hierarchy_root(h)) out.push_back((*this)[h]);
  return out;
}

std::string focus::text() const {
  auto out = "<" + parts[0] + ", " + parts[1] + ", " + parts[2];
  if (parts[3] != hierarchy_root(hierarchy::file)) out += ", " + parts[3];
  return out + ">";
}

}  // namespace perfdm::pc
