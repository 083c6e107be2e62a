// A focus of the Performance Consultant: one resource from each of its four hierarchies.
// The top of a hierarchy is its root (`/Code`), which stands for "all of it".
#pragma once

#include <array>
#include <string>
#include <vector>

namespace perfdm::pc {

enum class hierarchy { code = 0, machine = 1, syncobject = 2, file = 3 };
inline constexpr std::size_t hierarchy_count = 4;
inline constexpr std::array<hierarchy, hierarchy_count> all_hierarchies{
    hierarchy::code, hierarchy::machine, hierarchy::syncobject, hierarchy::file};

// "/Code", "/Machine", "/SyncObject", "/File".
const char* hierarchy_root(hierarchy h);
// The hierarchy a resource name belongs to; false for a name outside all three.
bool hierarchy_of(const std::string& resource, hierarchy& out);

struct focus {
  std::array<std::string, hierarchy_count> parts{"/Code", "/Machine", "/SyncObject", "/File"};

  const std::string& operator[](hierarchy h) const { return parts[static_cast<std::size_t>(h)]; }
  std::string& operator[](hierarchy h) { return parts[static_cast<std::size_t>(h)]; }
  bool is_top() const;
  // The same focus with one component replaced.
  focus with(hierarchy h, std::string resource) const;
  // The resources an ENABLE names: the components that are not their hierarchy's root (the
  // data manager's focus leaves a hierarchy out for its root).
  std::vector<std::string> enable_focus() const;
  // "</Code/m/f, /Machine/h, /SyncObject>", as Paradyn's status lines wrote it; the /File
  // part follows only when it is not the root ("<…, /SyncObject, /File/tmp/db>"), so that the
  // foci of the hypotheses that never refine files read as before.
  std::string text() const;

  friend bool operator<(const focus& a, const focus& b) { return a.parts < b.parts; }
  friend bool operator==(const focus& a, const focus& b) { return a.parts == b.parts; }
};

}  // namespace perfdm::pc
