// The regular files a process holds open when the library starts: descriptors it inherited
// (a shell's `< in` and `> out`, a parent's files across exec) or opened before the library
// was loaded. Darshan counts a descriptor only from the open it saw, so `gzip -c f > f.gz`
// writes nothing it can see; here each such descriptor points at its file's POSIX record from
// the start (no open counted: the process made none), with the record's offset where the
// descriptor's is, so the reads and writes through it are counted as any others. A file
// nothing was counted in stays out of the log (record_inherited), as Darshan has no record
// of a file no call named.
#pragma once

namespace perfdm::io::lib {

// Called once as the library starts, with its segment in use; nothing in --darshan-only.
void adopt_inherited_files();

}  // namespace perfdm::io::lib
