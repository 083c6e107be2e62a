#include "trace/frames_trace.hpp"

namespace perfdm {

frames_trace::frames_trace(std::ostream& out, const shm::frame_layout& layout, long long pid,
                           const std::string& segment)
    : writer_(out), layout_(layout), pid_(pid > 0 ? pid : 1), segment_(segment) {
  writer_.process_name(pid_, layout.struct_name + " frames (pid " + std::to_string(pid_) + ")");
}

void frames_trace::frame(const std::byte* frame, std::int64_t time_ns) {
  ++frames_;
  const double seconds = static_cast<double>(time_ns) / 1e9;
  for (std::size_t i = 2; i < layout_.fields.size(); ++i) {
    auto& f = layout_.fields[i];
    if (f.type == shm::field_type::text) continue;
    writer_.counter(pid_, layout_.struct_name + "." + f.name, seconds, shm::field_value(f, frame));
  }
}

void frames_trace::finish(std::uint64_t read, std::uint64_t lost, std::uint64_t torn) {
  writer_.finish({{"source", "perfdm read " + segment_},
                  {"frames_read", std::to_string(read)},
                  {"frames_lost", std::to_string(lost)},
                  {"frames_torn", std::to_string(torn)}});
}

}  // namespace perfdm
