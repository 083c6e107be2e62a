// The wire form of a batch of samples between processes: 32 bytes per sample (MI handle,
// start, end, value; each 64 bits, little-endian), carried as one byte sequence. CAF
// serialises a std::vector<char> in one copy but every field of a struct through a virtual
// call, which made batched forwarding from daemons several times slower (bench/forward_bench).
#pragma once

#include <optional>
#include <vector>

#include "messages/dm_messages.hpp"

namespace perfdm {

inline constexpr std::size_t sample_wire_bytes = 32;

std::vector<char> pack_samples(const std::vector<sample>& samples);

// False when `bytes` is not a whole number of samples (the message is then refused).
bool unpack_samples(const std::vector<char>& bytes, std::vector<sample>& out);

}  // namespace perfdm
