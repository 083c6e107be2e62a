#include "log/log_modules.hpp"

#include <iterator>
#include <string_view>

namespace perfdm {

namespace {

struct module_entry {
  std::uint32_t id;
  const char* name;
  std::uint32_t version;
  void (*print)(const log_record_view&, log_row_sink&);
};

constexpr module_entry modules[] = {
#define PERFDM_LOG_MODULE_ENTRY(id, name, version, printer) {id, #name, version, printer},
    PERFDM_LOG_MODULES(PERFDM_LOG_MODULE_ENTRY)
#undef PERFDM_LOG_MODULE_ENTRY
};

// What log_core::register_module would refuse at run time, refused here at compile time.
constexpr bool table_valid() {
  for (std::size_t i = 0; i < std::size(modules); ++i) {
    if (modules[i].id < logfmt::first_module_id || modules[i].version == 0) return false;
    const std::string_view name = modules[i].name;
    if (name.empty() || name.size() > logfmt::module_name_size) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (modules[j].id == modules[i].id || name == modules[j].name) return false;
  }
  return true;
}
static_assert(table_valid(), "PERFDM_LOG_MODULES: ids >= 16, unique; names 1-16 characters, unique");

}  // namespace

bool add_log_module_printer(log_printer_registry& registry, std::uint32_t module_id) {
  for (const auto& m : modules)
    if (m.id == module_id) {
      registry.add(m.id, m.name, m.version, m.print);
      return true;
    }
  return false;
}

void add_log_module_printers(log_printer_registry& registry) {
  for (const auto& m : modules) registry.add(m.id, m.name, m.version, m.print);
}

}  // namespace perfdm
