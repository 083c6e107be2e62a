// The error every Darshan log reader and writer function throws: the message names the
// problem (and the region, record or field it was found in).
#pragma once

#include <stdexcept>

namespace perfdm::darshan {

struct darshan_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace perfdm::darshan
