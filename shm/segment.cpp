#include "shm/segment.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <cstring>
#include <random>

#include "shm/segment_format.hpp"
#include "shm/shm_error.hpp"

namespace perfdm::shm {

namespace bip = boost::interprocess;

segment segment::create(int target_pid, std::uint64_t handle, const frame_layout& layout,
                        segment_options o) {
  if (handle == 0) throw shm_error("a segment handle may not be 0 (0 means not observing)");
  if (o.lanes == 0 || o.lanes > format::max_lanes)
    throw shm_error("lanes must be from 1 to " + std::to_string(format::max_lanes));
  if (o.capacity == 0 || o.capacity > format::max_capacity || (o.capacity & (o.capacity - 1)))
    throw shm_error("the lane capacity must be a power of two up to " +
                    std::to_string(format::max_capacity));
  const std::string descriptor = layout_descriptor(layout);
  const std::uint64_t header_size = format::header_size_for(descriptor.size());
  const std::uint64_t size =
      header_size + std::uint64_t(o.lanes) * format::lane_stride(layout.size, o.capacity);
  if (size > max_segment_size)
    throw shm_error("a segment of " + std::to_string(size) + " bytes is more than the " +
                    std::to_string(max_segment_size) + " perfdm allows: fewer lanes or slots");
  const std::string name = format::segment_name(target_pid, handle);
  try {
    bip::permissions owner_only(0600);
    bip::shared_memory_object shm(bip::create_only, name.c_str(), bip::read_write, owner_only);
    try {
      shm.truncate(static_cast<bip::offset_t>(size));
      // Reserve the pages now: a sparse segment could run out of shared memory later, and
      // the observed program would then die of SIGBUS in the middle of a frame.
      const int err =
          ::posix_fallocate(shm.get_mapping_handle().handle, 0, static_cast<off_t>(size));
      if (err != 0)
        throw shm_error("cannot reserve " + std::to_string(size) + " bytes of shared memory for " +
                        name + ": " + std::strerror(err));
      // Root attaching to another user's program: give the segment to that user, or the
      // program could not open it. Failing to is not an error: the writer then reports
      // nothing and the segment stays waiting.
      struct stat st {};
      const std::string proc = "/proc/" + std::to_string(target_pid);
      if (::stat(proc.c_str(), &st) == 0 && st.st_uid != ::geteuid())
        (void)!::fchown(shm.get_mapping_handle().handle, st.st_uid, st.st_gid);
      bip::mapped_region region(shm, bip::read_write, 0, header_size);
      auto* h = static_cast<format::header*>(region.get_address());
      std::memcpy(h->magic, format::magic, sizeof h->magic);
      h->version = format::version;
      h->header_size = static_cast<std::uint32_t>(header_size);
      h->layout_hash = layout_hash(descriptor);
      h->frame_size = layout.size;
      h->lane_count = o.lanes;
      h->lane_capacity = o.capacity;
      h->clock = format::native_clock();
      h->target_pid = target_pid;
      h->creator_pid = ::getpid();
      h->writer_state = format::writer_waiting;
      h->descriptor_size = static_cast<std::uint32_t>(descriptor.size());
      std::memcpy(static_cast<char*>(region.get_address()) + format::descriptor_offset,
                  descriptor.data(), descriptor.size());
    } catch (...) {
      bip::shared_memory_object::remove(name.c_str());
      throw;
    }
  } catch (const shm_error&) {
    throw;
  } catch (const bip::interprocess_exception& e) {
    throw shm_error("cannot create the segment " + name + ": " + e.what());
  }
  return segment(name, handle, size);
}

std::uint64_t segment::new_handle() {
  std::random_device rd;
  std::uint64_t h = 0;
  while (h == 0) h = (std::uint64_t(rd()) << 32) ^ rd();
  return h;
}

bool segment::remove(const std::string& name) {
  return bip::shared_memory_object::remove(name.c_str());
}

void segment::remove() {
  remove(name_);
}

std::string segment::create_for_attach(int target_pid, const std::string& descriptor,
                                       std::uint64_t handle, segment_options options) {
  return create(target_pid, handle, parse_layout_descriptor(descriptor), options).name();
}

}  // namespace perfdm::shm
