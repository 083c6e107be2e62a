#include "shm/elf_symbols.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>

namespace perfdm::shm {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw elf_error(path + ": " + why);
}

std::string libelf_message() {
  const char* m = elf_errmsg(-1);
  return m ? m : "unknown libelf error";
}

// libelf must be told the ELF version it is used with, once per process.
void init_libelf() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = elf_version(EV_CURRENT) != EV_NONE; });
  if (!ok) throw elf_error("libelf: cannot initialise (" + libelf_message() + ")");
}

struct file_descriptor {
  int fd = -1;
  ~file_descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

struct elf_handle {
  Elf* elf = nullptr;
  ~elf_handle() {
    if (elf) elf_end(elf);
  }
};

Elf_Scn* find_symbol_table(Elf* elf, Elf64_Word type) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) && shdr.sh_type == type) return scn;
  }
  return nullptr;
}

// The bytes of [value, value+size) inside section `index`, when the section has them.
std::optional<std::string> symbol_bytes(Elf* elf, std::size_t index, std::uint64_t value,
                                        std::uint64_t size) {
  Elf_Scn* scn = elf_getscn(elf, index);
  GElf_Shdr shdr;
  if (!scn || !gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS) return std::nullopt;
  if (value < shdr.sh_addr || value - shdr.sh_addr > shdr.sh_size ||
      size > shdr.sh_size - (value - shdr.sh_addr))
    return std::nullopt;  // the symbol claims bytes outside its section: a damaged file
  const std::uint64_t offset = value - shdr.sh_addr;
  // Raw data: the bytes exactly as in the file, whatever the section's declared type.
  Elf_Data* data = elf_rawdata(scn, nullptr);
  if (!data || !data->d_buf || offset + size > data->d_size) return std::nullopt;
  return std::string(static_cast<const char*>(data->d_buf) + offset, size);
}

}  // namespace

elf_executable read_elf_symbols(const std::string& path, std::string_view prefix) {
  init_libelf();
  file_descriptor file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd < 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(file.fd, &st) != 0) fail(path, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");

  elf_handle h;
  h.elf = elf_begin(file.fd, ELF_C_READ, nullptr);
  if (!h.elf) fail(path, "not an ELF file (" + libelf_message() + ")");
  if (elf_kind(h.elf) != ELF_K_ELF) fail(path, "not an ELF file");
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(h.elf, &ehdr)) fail(path, "not an ELF file (" + libelf_message() + ")");
  if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN)
    fail(path, "not an executable (ELF type " + std::to_string(ehdr.e_type) + ")");

  elf_executable out;
  out.path = path;
  out.position_independent = ehdr.e_type == ET_DYN;

  std::size_t phnum = 0;
  if (elf_getphdrnum(h.elf, &phnum) != 0)
    fail(path, "cannot read program headers (" + libelf_message() + ")");
  bool any_load = false;
  std::uint64_t lowest = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (!gelf_getphdr(h.elf, static_cast<int>(i), &phdr)) continue;
    if (phdr.p_type != PT_LOAD) continue;
    any_load = true;
    if (phdr.p_vaddr < lowest) lowest = phdr.p_vaddr;
  }
  if (!any_load) fail(path, "no loadable segment (PT_LOAD): not a program");
  out.lowest_load_address = lowest;

  Elf_Scn* table = find_symbol_table(h.elf, SHT_SYMTAB);
  out.symbol_table = ".symtab";
  if (!table) {
    table = find_symbol_table(h.elf, SHT_DYNSYM);
    out.symbol_table = ".dynsym";
  }
  if (!table) fail(path, "no symbol table (neither .symtab nor .dynsym): stripped?");

  GElf_Shdr table_header;
  if (!gelf_getshdr(table, &table_header))
    fail(path, "cannot read the symbol table header (" + libelf_message() + ")");
  Elf_Data* data = elf_getdata(table, nullptr);
  if (!data) fail(path, "cannot read the symbol table (" + libelf_message() + ")");
  const std::size_t count =
      table_header.sh_entsize ? table_header.sh_size / table_header.sh_entsize : 0;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
    if (sym.st_shndx == SHN_UNDEF) continue;  // a reference to another object, not a definition
    const char* name = elf_strptr(h.elf, table_header.sh_link, sym.st_name);
    if (!name || std::string_view(name).substr(0, prefix.size()) != prefix) continue;
    elf_symbol s;
    s.name = name;
    s.value = sym.st_value;
    s.size = sym.st_size;
    if (sym.st_shndx < SHN_LORESERVE)  // a real section, not SHN_ABS or SHN_COMMON
      s.data = symbol_bytes(h.elf, sym.st_shndx, sym.st_value, sym.st_size);
    out.symbols.push_back(std::move(s));
  }
  return out;
}

}  // namespace perfdm::shm
