// The log's module table (log/log_modules.hpp) and each module's counter list, checked
// against the table of docs/LOG-FORMAT.md §6.5, so that code and document do not drift apart,
// and the printers the table registers.
#include "log/log_modules.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "log/modules/dm_log_module.hpp"
#include "log/modules/frames_log_module.hpp"
#include "log/modules/native_log_module.hpp"
#include "log/modules/pc_log_module.hpp"

using namespace perfdm;

namespace {

struct doc_row {
  std::uint32_t id = 0, version = 0;
  std::string records;
};

// The rows "| `NAME` | ID | VERSION | RECORDS |" of docs/LOG-FORMAT.md, by module name.
std::map<std::string, doc_row> documented_modules() {
  std::ifstream in(PERFDM_SOURCE_DIR "/docs/LOG-FORMAT.md");
  REQUIRE(in);
  std::map<std::string, doc_row> rows;
  const std::regex row(R"(^\| `([a-z_]+)` \| ([0-9]+) \| ([0-9]+) \| (.*)\|$)");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, row))
      rows[m[1]] = doc_row{static_cast<std::uint32_t>(std::stoul(m[2])),
                           static_cast<std::uint32_t>(std::stoul(m[3])), m[4]};
  return rows;
}

// `word` appears in `text` as a whole word (names like "id" are inside others).
bool mentions(const std::string& text, const std::string& word) {
  return std::regex_search(text, std::regex("(^|[^A-Za-z0-9_])" + word + "($|[^A-Za-z0-9_])"));
}

template <std::size_t N>
void check_counters(const doc_row& row, const log_counter_def (&list)[N],
                    const std::string& prefix = "") {
  for (const auto& c : list) {
    INFO("counter " << prefix << c.name);
    // A prefixed name (".min" of `field.F.min`) follows other text: found as it is.
    CHECK((prefix.empty() ? mentions(row.records, c.name)
                          : row.records.find(prefix + c.name) != std::string::npos));
  }
}

}  // namespace

TEST_CASE("the module table matches docs/LOG-FORMAT.md: ids, versions, counter names",
          "[log][modules]") {
  const auto rows = documented_modules();
  std::size_t modules = 0;
#define PERFDM_CHECK_MODULE(module_id, name, module_version, printer) \
  {                                                                   \
    ++modules;                                                        \
    INFO("module " #name);                                            \
    REQUIRE(rows.count(#name) == 1);                                  \
    CHECK(rows.at(#name).id == module_id);                            \
    CHECK(rows.at(#name).version == module_version);                  \
  }
  PERFDM_LOG_MODULES(PERFDM_CHECK_MODULE)
#undef PERFDM_CHECK_MODULE
  CHECK(rows.size() == modules);

  check_counters(rows.at("pc"), pc_log_counters::list);
  check_counters(rows.at("frames"), frames_log_counters::list);
  check_counters(rows.at("frames"), frames_log_field_counters::list, ".");
  check_counters(rows.at("native"), native_log_counters::list);
  check_counters(rows.at("native"), native_log_code_types::list);
  CHECK(mentions(rows.at("native").records, std::string(native_log_code_types::prefix) + "T"));
  for (const char* c : posix_extra_counter_names) CHECK(mentions(rows.at("posix").records, c));
}

TEST_CASE("the module table registers a printer per module, none for other ids", "[log][modules]") {
  log_printer_registry r;
  add_log_module_printers(r);
  for (auto id : {dm_log_module_id, frames_log_module_id, native_log_module_id, pc_log_module_id,
                  posix_log_module_id, stdio_log_module_id, mpiio_log_module_id,
                  heatmap_log_module_id, dxt_posix_log_module_id, dxt_mpiio_log_module_id}) {
    INFO("module " << id);
    REQUIRE(r.find(id) != nullptr);
    CHECK(r.find(id)->max_version == 1);
  }
  CHECK(r.find(pc_log_module_id)->name == "pc");
  CHECK(r.find(15) == nullptr);
  CHECK(r.find(30) == nullptr);
  log_printer_registry one;
  CHECK(add_log_module_printer(one, native_log_module_id));
  CHECK_FALSE(add_log_module_printer(one, 99));
  CHECK(one.find(native_log_module_id) != nullptr);
  CHECK(one.find(dm_log_module_id) == nullptr);
}
