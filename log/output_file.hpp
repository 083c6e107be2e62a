// Where an output file is written while incomplete, and how it takes its place once complete.
//
// - A regular file, or a name nothing holds yet, is written beside its final name as
//   NAME.partial and renamed over it when complete: a reader never sees half a file, and a
//   crash leaves the .partial to read.
// - A name that holds something else (a device such as /dev/null, a FIFO, a socket) is never
//   replaced: a rename would turn /dev/null into a regular file for every program on the
//   machine. The file is written in the temporary directory ($TMPDIR, else /tmp) and then
//   copied into that name.
#pragma once

#include <string>

namespace perfdm {

// The path to write `target` at while it is incomplete.
std::string partial_path_for(const std::string& target);

// Puts the complete `partial` (from partial_path_for) in the place of `target`, and removes it
// when it was copied. Throws std::runtime_error saying why it cannot.
void put_in_place(const std::string& partial, const std::string& target);

}  // namespace perfdm
