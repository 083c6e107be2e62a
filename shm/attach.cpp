#include "shm/attach.hpp"

#include <dirent.h>

#include <algorithm>
#include <boost/interprocess/shared_memory_object.hpp>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <set>

#include "shm/elf_symbols.hpp"
#include "shm/process_memory.hpp"
#include "shm/segment.hpp"
#include "shm/segment_format.hpp"

namespace perfdm::shm {

namespace {

// Where Boost.Interprocess (shm_open) keeps shared-memory objects on Linux.
constexpr const char* shm_directory = "/dev/shm";
constexpr const char* segment_prefix = "perfdm.";

std::string quoted_excerpt(const std::string& text) {
  constexpr std::size_t max = 200;
  std::string shown = text.size() > max ? text.substr(0, max) + "..." : text;
  return "\"" + shown + "\"";
}

// The pid of a segment name "perfdm.<pid>.<16 hex digits>", or 0 for any other name.
int segment_pid(const std::string& name) {
  const std::size_t prefix = std::strlen(segment_prefix);
  if (name.compare(0, prefix, segment_prefix) != 0) return 0;
  const auto dot = name.find('.', prefix);
  if (dot == std::string::npos || dot == prefix || dot - prefix > 9) return 0;
  for (std::size_t i = prefix; i < dot; ++i)
    if (name[i] < '0' || name[i] > '9') return 0;
  const std::string hex = name.substr(dot + 1);
  if (hex.size() != 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) return 0;
  return std::stoi(name.substr(prefix, dot - prefix));
}

std::vector<std::string> all_segments() {
  std::vector<std::string> names;
  DIR* dir = ::opendir(shm_directory);
  if (!dir) return names;
  while (const dirent* entry = ::readdir(dir))
    if (segment_pid(entry->d_name) != 0) names.emplace_back(entry->d_name);
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::size_t remove_segments(const std::vector<std::string>& names) {
  std::size_t removed = 0;
  for (const auto& name : names)
    if (boost::interprocess::shared_memory_object::remove(name.c_str())) ++removed;
  return removed;
}

std::vector<frame_symbol> frame_symbols_of(const elf_executable& exe, const std::string& shown) {
  std::map<std::string, const elf_symbol*> by_name;
  for (const auto& s : exe.symbols) by_name.emplace(s.name, &s);
  const std::string handle_prefix = handle_symbol_prefix;
  std::vector<frame_symbol> frames;
  for (const auto& [name, handle] : by_name) {
    if (name.compare(0, handle_prefix.size(), handle_prefix) != 0) continue;
    frame_symbol f;
    f.struct_name = name.substr(handle_prefix.size());
    if (f.struct_name.empty()) continue;
    const std::string layout_name = layout_symbol_prefix + f.struct_name;
    if (handle->size != sizeof(std::uint64_t))
      throw attach_error(attach_errc::no_symbol,
                         shown + ": " + name + " is " + std::to_string(handle->size) +
                             " bytes, not a uint64_t handle: not a generated frames component");
    const auto layout = by_name.find(layout_name);
    if (layout == by_name.end())
      throw attach_error(attach_errc::no_symbol, shown + ": has " + name + " but no " +
                                                     layout_name +
                                                     ": not a generated frames component");
    if (!layout->second->data)
      throw attach_error(attach_errc::no_symbol,
                         shown + ": " + layout_name + " has no initialized bytes in the file");
    const std::string& bytes = *layout->second->data;
    const auto nul = bytes.find('\0');
    if (nul == std::string::npos)
      throw attach_error(attach_errc::no_symbol,
                         shown + ": " + layout_name + " is not a NUL-terminated descriptor");
    f.handle_address = handle->value;
    f.descriptor = bytes.substr(0, nul);
    frames.push_back(std::move(f));
  }
  if (frames.empty())
    throw attach_error(attach_errc::no_symbol,
                       shown + ": no generated " + handle_symbol_prefix +
                           "<struct> symbol in its " + exe.symbol_table +
                           ": the program was not built with a generated frames component");
  return frames;
}

elf_executable read_executable(const std::string& file, const std::string& shown) {
  try {
    return read_elf_symbols(file, "perfdm_");
  } catch (const elf_error& e) {
    // elf_error names `file`, which may be /proc/PID/exe; say which program it is too.
    throw attach_error(attach_errc::no_symbol,
                       file == shown ? e.what() : shown + " (" + e.what() + ")");
  }
}

// One frame type of the process being attached, with where its handle lives now.
struct target_frame {
  frame_symbol symbol;
  std::uint64_t address = 0;   // run-time address of the handle in the process
  std::uint64_t previous = 0;  // the handle's value before attach
  std::uint64_t handle = 0;
  std::string segment;
};

std::uint64_t read_handle(int pid, std::uint64_t address) {
  std::uint64_t value = 0;
  read_memory(pid, address, &value, sizeof value);
  return value;
}

void write_handle(int pid, std::uint64_t address, std::uint64_t value) {
  write_memory(pid, address, &value, sizeof value);
}

// The process's frame types and the run-time addresses of their handles.
std::vector<target_frame> locate_frames(int pid, std::string* executable) {
  const std::string exe_link = process_executable(pid);
  if (executable) *executable = exe_link;
  const std::string file = process_executable_file(pid);
  const elf_executable exe = read_executable(file, exe_link);
  const auto symbols = frame_symbols_of(exe, exe_link);
  const std::uint64_t base = executable_load_base(pid);
  std::vector<target_frame> frames;
  for (const auto& s : symbols) {
    target_frame t;
    t.symbol = s;
    t.address =
        runtime_address(s.handle_address, exe.position_independent, exe.lowest_load_address, base);
    frames.push_back(std::move(t));
  }
  return frames;
}

// Undoes a part-done attach: restores every written handle and removes every segment made.
// Best effort: the error that caused the rollback is the one the caller reports.
void roll_back(int pid, const std::vector<target_frame>& frames, std::size_t handles_written) {
  for (std::size_t i = 0; i < handles_written; ++i) {
    try {
      write_handle(pid, frames[i].address, frames[i].previous);
    } catch (const attach_error&) {
    }
  }
  for (const auto& f : frames)
    if (f.handle != 0) boost::interprocess::shared_memory_object::remove(f.segment.c_str());
}

}  // namespace

std::vector<frame_symbol> find_frame_symbols(const std::string& executable) {
  return frame_symbols_of(read_executable(executable, executable), executable);
}

std::vector<std::string> process_segments(int pid) {
  std::vector<std::string> mine;
  for (auto& name : all_segments())
    if (segment_pid(name) == pid) mine.push_back(std::move(name));
  return mine;
}

std::size_t remove_stale_segments() {
  std::vector<std::string> stale;
  for (auto& name : all_segments())
    if (!process_exists(segment_pid(name))) stale.push_back(std::move(name));
  return remove_segments(stale);
}

attachment attach(int pid, const attach_options& options) {
  if (!options.create_segment)
    throw attach_error(attach_errc::segment_failed, "cannot attach to process " +
                                                        std::to_string(pid) +
                                                        ": no way to create segments was given");
  remove_stale_segments();
  if (!process_exists(pid))
    throw attach_error(attach_errc::no_such_process,
                       "cannot attach to process " + std::to_string(pid) + ": no such process");
  attachment result;
  result.pid = pid;
  result.name = process_name(pid);
  std::vector<target_frame> found = locate_frames(pid, &result.executable);
  const std::string who =
      "process " + std::to_string(pid) + " (" + result.name + ", " + result.executable + ")";

  // The frame types to attach, checked against what the caller expects.
  std::vector<target_frame> frames;
  if (options.expected.empty()) {
    frames = std::move(found);
  } else {
    for (const auto& [struct_name, descriptor] : options.expected) {
      const auto f = std::find_if(found.begin(), found.end(), [&](const target_frame& t) {
        return t.symbol.struct_name == struct_name;
      });
      if (f == found.end())
        throw attach_error(attach_errc::no_symbol, "cannot attach to " + who + ": it has no " +
                                                       handle_symbol_prefix + struct_name +
                                                       " (frame type " + struct_name +
                                                       " is not in its executable)");
      if (f->symbol.descriptor != descriptor)
        throw attach_error(attach_errc::schema_mismatch,
                           "cannot attach to " + who + ": frame type " + struct_name +
                               " differs from the schema: the executable has layout " +
                               quoted_excerpt(f->symbol.descriptor) + ", the schema gives " +
                               quoted_excerpt(descriptor));
      frames.push_back(*f);
    }
  }

  std::set<std::uint64_t> used;
  for (auto& f : frames) {
    f.previous = read_handle(pid, f.address);
    if (f.previous != 0 && !options.force)
      throw attach_error(attach_errc::already_attached,
                         "cannot attach to " + who + ": frame type " + f.symbol.struct_name +
                             " is already attached (segment " +
                             format::segment_name(pid, f.previous) + "); detach first");
    used.insert(f.previous);
  }

  std::size_t written = 0;
  try {
    for (auto& f : frames) {
      do f.handle = segment::new_handle();
      while (!used.insert(f.handle).second);
      f.segment = format::segment_name(pid, f.handle);
      std::string made;
      try {
        made = options.create_segment(pid, f.symbol.struct_name, f.symbol.descriptor, f.handle);
      } catch (const attach_error&) {
        throw;
      } catch (const std::exception& e) {
        throw attach_error(attach_errc::segment_failed,
                           "cannot attach to " + who + ": creating segment " + f.segment +
                               " for frame type " + f.symbol.struct_name + " failed: " + e.what());
      }
      if (made != f.segment)
        throw attach_error(attach_errc::segment_failed,
                           "cannot attach to " + who + ": the segment for frame type " +
                               f.symbol.struct_name + " was created as \"" + made +
                               "\", but the program will open \"" + f.segment + "\"");
    }
    for (auto& f : frames) {
      write_handle(pid, f.address, f.handle);
      ++written;
    }
  } catch (...) {
    roll_back(pid, frames, written);
    throw;
  }

  // Taken over from an earlier attach: its segments are no longer anyone's.
  for (const auto& f : frames)
    if (f.previous != 0)
      boost::interprocess::shared_memory_object::remove(
          format::segment_name(pid, f.previous).c_str());

  for (const auto& f : frames)
    result.frames.push_back({f.symbol.struct_name, f.handle, f.segment, f.symbol.descriptor});
  return result;
}

void detach(int pid) {
  const std::string who = "process " + std::to_string(pid);
  if (!process_exists(pid)) {
    const std::size_t removed = remove_segments(process_segments(pid));
    throw attach_error(attach_errc::no_such_process,
                       "cannot detach from " + who + ": no such process (" +
                           std::to_string(removed) + " of its segments removed)");
  }
  std::size_t cleared = 0;
  std::optional<attach_error> first_error;
  try {
    for (const auto& f : locate_frames(pid, nullptr)) {
      try {
        if (read_handle(pid, f.address) == 0) continue;
        write_handle(pid, f.address, 0);
        ++cleared;
      } catch (const attach_error& e) {
        if (!first_error) first_error = e;
      }
    }
  } catch (const attach_error& e) {
    if (!first_error) first_error = e;
  }
  // Remove the segments even when a handle could not be cleared: a writer that still maps
  // one keeps its pages until it lets go, and the name is no use to anyone.
  const std::size_t removed = remove_segments(process_segments(pid));
  if (first_error) throw *first_error;
  if (cleared == 0 && removed == 0)
    throw attach_error(attach_errc::not_attached, "cannot detach from " + who +
                                                      ": not attached (every handle is 0 and it "
                                                      "has no segment)");
}

}  // namespace perfdm::shm
