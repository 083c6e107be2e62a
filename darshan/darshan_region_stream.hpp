// One compressed region of a Darshan log, decompressed as it is read: zlib (Darshan's
// default), bzip2 or stored. A region may hold several streams one after the other (each
// rank of an MPI job compresses its own part): a stream's end starts the next one. Memory is
// the input chunk and the decompressor's state (bzip2: about 2.5 MiB), whatever the size of
// the region. A region that claims more bytes than the file holds, or whose data ends
// inside a stream or does not decompress, reads up to that point; problem() then says why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "darshan/darshan_format.hpp"

namespace perfdm::darshan {

class region_stream {
 public:
  // The region [offset, offset + length) of the open file `fd` (of `file_size` bytes).
  // `what` names the region in messages ("the POSIX region"). Throws darshan_error for an
  // unknown compression.
  region_stream(int fd, std::uint64_t file_size, std::uint64_t offset, std::uint64_t length,
                unsigned char compression, std::string what, std::size_t chunk_bytes = 256u << 10);
  ~region_stream();
  region_stream(const region_stream&) = delete;
  region_stream& operator=(const region_stream&) = delete;

  // Decompresses up to `size` bytes into `out`; fewer only at the end of the region's data
  // (or at a problem). 0: nothing is left.
  std::size_t read(void* out, std::size_t size);
  // Reads and drops up to `size` bytes; returns how many.
  std::uint64_t skip(std::uint64_t size);
  // Decompressed bytes read so far.
  std::uint64_t position() const { return position_; }
  // Goes to decompressed offset `pos` (from the start again when it lies behind).
  void seek(std::uint64_t pos);

  // Empty while the data is good; else why reading stopped early: the region runs past the
  // end of the file, its data ends inside a stream, or does not decompress.
  const std::string& problem() const { return problem_; }
  const std::string& what() const { return what_; }

 private:
  struct codec;
  bool refill();
  void restart();

  int fd_;
  std::uint64_t file_size_, offset_, length_;
  unsigned char compression_;
  std::string what_;
  std::vector<unsigned char> in_;
  std::size_t in_pos_ = 0, in_len_ = 0;
  std::uint64_t consumed_ = 0;   // compressed bytes read from the file
  std::uint64_t position_ = 0;   // decompressed bytes given out
  bool at_end_ = false;          // no more data (end of the region or a problem)
  bool in_stream_ = false;       // a stream has started and not ended
  std::string problem_;
  std::unique_ptr<codec> codec_;
};

}  // namespace perfdm::darshan
