#include "native/cfi_functions.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include <elfutils/libdw.h>
#include <gelf.h>

namespace perfdm::native {

namespace {

// DWARF pointer encodings (DW_EH_PE_*), as .eh_frame uses them.
constexpr unsigned pe_omit = 0xff;
constexpr unsigned pe_pcrel = 0x10;

std::uint64_t read_uleb(const std::uint8_t*& p, const std::uint8_t* end) {
  std::uint64_t v = 0;
  unsigned shift = 0;
  while (p < end) {
    std::uint8_t b = *p++;
    if (shift < 64) v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    shift += 7;
    if ((b & 0x80) == 0) break;
  }
  return v;
}

std::int64_t read_sleb(const std::uint8_t*& p, const std::uint8_t* end) {
  std::int64_t v = 0;
  unsigned shift = 0;
  std::uint8_t b = 0;
  while (p < end) {
    b = *p++;
    if (shift < 64) v |= static_cast<std::int64_t>(b & 0x7f) << shift;
    shift += 7;
    if ((b & 0x80) == 0) break;
  }
  if (shift < 64 && (b & 0x40)) v |= -(static_cast<std::int64_t>(1) << shift);
  return v;
}

template <typename T>
bool read_fixed(const std::uint8_t*& p, const std::uint8_t* end, T& out) {
  if (end - p < static_cast<std::ptrdiff_t>(sizeof(T))) return false;
  std::memcpy(&out, p, sizeof(T));  // .eh_frame is in the target's byte order: x86-64's
  p += sizeof(T);
  return true;
}

// Reads one encoded value (its format, the low four bits of `enc`); false if unknown.
bool read_encoded(unsigned enc, const std::uint8_t*& p, const std::uint8_t* end,
                  std::uint64_t& out) {
  switch (enc & 0x0f) {
    case 0x00: {  // absptr (64-bit)
      std::uint64_t v;
      if (!read_fixed(p, end, v)) return false;
      out = v;
      return true;
    }
    case 0x01:
      out = read_uleb(p, end);
      return true;
    case 0x02: {
      std::uint16_t v;
      if (!read_fixed(p, end, v)) return false;
      out = v;
      return true;
    }
    case 0x03: {
      std::uint32_t v;
      if (!read_fixed(p, end, v)) return false;
      out = v;
      return true;
    }
    case 0x04: {
      std::uint64_t v;
      if (!read_fixed(p, end, v)) return false;
      out = v;
      return true;
    }
    case 0x09:
      out = static_cast<std::uint64_t>(read_sleb(p, end));
      return true;
    case 0x0a: {
      std::int16_t v;
      if (!read_fixed(p, end, v)) return false;
      out = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
      return true;
    }
    case 0x0b: {
      std::int32_t v;
      if (!read_fixed(p, end, v)) return false;
      out = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
      return true;
    }
    case 0x0c: {
      std::int64_t v;
      if (!read_fixed(p, end, v)) return false;
      out = static_cast<std::uint64_t>(v);
      return true;
    }
  }
  return false;
}

// The FDE pointer encoding a CIE declares ('R' in a 'z' augmentation; absptr without one).
std::optional<unsigned> fde_encoding(const Dwarf_CIE& cie) {
  const char* aug = cie.augmentation ? cie.augmentation : "";
  if (aug[0] != 'z') return aug[0] == '\0' ? std::optional<unsigned>(0u) : std::nullopt;
  const std::uint8_t* p = cie.augmentation_data;
  const std::uint8_t* end = p + cie.augmentation_data_size;
  for (const char* a = aug + 1; *a != '\0'; ++a) {
    switch (*a) {
      case 'R':
        return p < end ? std::optional<unsigned>(*p) : std::nullopt;
      case 'L':
        ++p;
        break;
      case 'P': {
        if (p >= end) return std::nullopt;
        unsigned penc = *p++;
        std::uint64_t ignored;
        if (!read_encoded(penc, p, end, ignored)) return std::nullopt;
        break;
      }
      case 'S':
      case 'B':
        break;
      default:
        return std::nullopt;
    }
  }
  return 0u;
}

}  // namespace

cfi_function_table::cfi_function_table(Elf* elf) {
  if (elf == nullptr) return;
  std::size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return;
  const unsigned char* ident = reinterpret_cast<const unsigned char*>(elf_getident(elf, nullptr));
  if (ident == nullptr) return;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type == SHT_NOBITS) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (name == nullptr || std::strcmp(name, ".eh_frame") != 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) return;
    auto* base = static_cast<const std::uint8_t*>(data->d_buf);
    std::map<Dwarf_Off, std::optional<unsigned>> encodings;  // CIE offset → FDE encoding
    Dwarf_Off offset = 0;
    while (offset != static_cast<Dwarf_Off>(-1)) {
      Dwarf_Off next = 0;
      Dwarf_CFI_Entry entry;
      int rc = dwarf_next_cfi(ident, data, true, offset, &next, &entry);
      if (rc == 1) break;
      if (rc != 0) {
        if (next <= offset || next == static_cast<Dwarf_Off>(-1)) break;
        offset = next;
        continue;
      }
      if (dwarf_cfi_cie_p(&entry)) {
        encodings[offset] = fde_encoding(entry.cie);
      } else if (auto e = encodings.find(entry.fde.CIE_pointer);
                 e != encodings.end() && e->second && *e->second != pe_omit) {
        unsigned enc = *e->second;
        const std::uint8_t* p = entry.fde.start;
        std::uint64_t start = 0, range = 0;
        // pcrel: relative to the field's own address (the section's address + its offset).
        std::uint64_t field = shdr.sh_addr + static_cast<std::uint64_t>(p - base);
        if (read_encoded(enc, p, entry.fde.end, start) &&
            read_encoded(enc & 0x0f, p, entry.fde.end, range) && range > 0) {
          if ((enc & 0x70) == pe_pcrel) start += field;
          else if ((enc & 0x70) != 0) start = 0;  // relative to what .eh_frame never says
          if (start != 0) ranges_.emplace_back(start, start + range);
        }
      }
      offset = next;
    }
    break;
  }
  std::sort(ranges_.begin(), ranges_.end());
}

std::optional<std::uint64_t> cfi_function_table::function_start(std::uint64_t address) const {
  auto after = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                                [](std::uint64_t a, const auto& r) { return a < r.first; });
  if (after == ranges_.begin()) return std::nullopt;
  auto& r = *std::prev(after);
  if (address >= r.second) return std::nullopt;
  return r.first;
}

}  // namespace perfdm::native
