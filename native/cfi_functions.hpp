// Where functions start in an ELF file that has no symbol for them: the address ranges of its
// call frame entries (.eh_frame FDEs). Every C and C++ function on x86-64 has one (the ABI's
// unwind tables), stripped or not, and each FDE covers exactly one function, so its initial
// location is the function's start address as the ELF file numbers it (what `objdump -d`
// shows). The stack sampler names an unsymbolled frame `<module>+0x<start>` with it
// (docs/NATIVE.md §8). Plain C++ on libelf/libdw; the table is read once per module.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <libelf.h>

namespace perfdm::native {

class cfi_function_table {
 public:
  // Reads the FDEs of `elf`'s .eh_frame (an empty table when there is none or it is
  // malformed: the frames are then unnamed, never wrongly named).
  explicit cfi_function_table(Elf* elf);

  // The start of the FDE range [start, end) holding `address` (an ELF file address).
  std::optional<std::uint64_t> function_start(std::uint64_t address) const;

  std::size_t size() const { return ranges_.size(); }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;  // sorted by start
};

}  // namespace perfdm::native
