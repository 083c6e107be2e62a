// The argument of a DyPer process command: the envelope's content as XML text, parsed again
// inside a wrapper element, and the helpers every command reads it with. Refusals are
// process_command_error (dm_error code and reason).
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <rapidxml/rapidxml.hpp>
#include <string>
#include <vector>

#include "dyper/process_command_error.hpp"
#include "messages/dm_error.hpp"

namespace perfdm {

using xml_node = rapidxml::xml_node<char>;

[[noreturn]] void refuse(dm_error code, const std::string& reason);
[[noreturn]] void bad_argument(const std::string& reason);

std::string upper(std::string s);

class argument {
 public:
  explicit argument(const std::string& text);
  // The one argument element, or null when there is none.
  const xml_node* element() const;
  // The argument element, which must be one of `names`.
  const xml_node* element(std::initializer_list<const char*> names, bool required) const;
  // The text content (for DIRECTORY); an element there is refused.
  std::string text() const;

 private:
  std::vector<char> buffer_;
  std::unique_ptr<rapidxml::xml_document<char>> doc_;
  const xml_node* root_ = nullptr;
};

// An attribute by case-insensitive name; nullptr when absent.
const char* find_attr(const xml_node* n, const char* name);
std::string need_attr(const xml_node* n, const char* name);

std::optional<bool> parse_flag(std::string s);
bool flag_attr(const xml_node* n, const char* name, bool fallback);

// Children elements named one of `names` (case-insensitively); others are refused.
std::vector<const xml_node*> children(const xml_node* n, std::initializer_list<const char*> names);

}  // namespace perfdm
