// Reads what attach needs from an executable file with libelf: whether it is position-
// independent, its lowest load address, and the symbols whose names start with a prefix,
// with the initialized bytes of each one the file holds (so a generated layout descriptor
// can be read from the file, without touching the running process). docs/FRAMES.md §5.
// Plain C++: no process, no actors.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm::shm {

// The file cannot be read as an executable: not a regular file, not ELF, no symbol table.
// The message names the file.
struct elf_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct elf_symbol {
  std::string name;
  std::uint64_t value = 0;  // the virtual address the link editor gave it
  std::uint64_t size = 0;
  // The symbol's initialized bytes as stored in the file (size bytes); empty optional for a
  // symbol without file contents (.bss, absolute or common symbols).
  std::optional<std::string> data;
};

struct elf_executable {
  std::string path;
  bool position_independent = false;  // ET_DYN: loaded at a base chosen at run time
  // Lowest p_vaddr of the PT_LOAD segments: the address the lowest mapping of the file
  // starts at (rounded down to a page), relative to which a PIE is relocated.
  std::uint64_t lowest_load_address = 0;
  std::string symbol_table;         // ".symtab", or ".dynsym" when the file has no .symtab
  std::vector<elf_symbol> symbols;  // defined symbols whose name starts with the prefix
};

// Reads `path` and lists its defined symbols whose names start with `prefix` (from .symtab,
// else .dynsym), in symbol-table order. Throws elf_error.
elf_executable read_elf_symbols(const std::string& path, std::string_view prefix);

}  // namespace perfdm::shm
