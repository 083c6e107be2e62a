// CLASSMODEL's reply as the agent writes it, from its struct: the executable and every
// file-backed object mapped in the process, at its lowest address, with its code class. It
// reads back with its parser (RapidXML).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm {

struct mapped_object {
  std::string path;
  std::uint64_t base = 0;  // the lowest address it is mapped at
  std::string type;        // its code class: NORMAL, SYSTEM, IO or SYSTEM_IO
  bool operator==(const mapped_object& o) const {
    return path == o.path && base == o.base && type == o.type;
  }
};

struct agent_classmodel_reply {
  std::string executable;
  std::vector<mapped_object> objects;
  bool operator==(const agent_classmodel_reply& o) const {
    return executable == o.executable && objects == o.objects;
  }
};

// `<CLASSMODEL><EXECUTABLE NAME='exe'/><OBJECT NAME='path' BASE='0x…' TYPE='t'/>…
// </CLASSMODEL>`, BASE in lower-case hexadecimal.
std::string print_agent_classmodel_reply(const agent_classmodel_reply& x);
std::optional<agent_classmodel_reply> parse_agent_classmodel_reply(std::string_view text);

}  // namespace perfdm
