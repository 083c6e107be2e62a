// The regular files a process holds open when the library starts: descriptors it inherited
// (a shell's `< in` and `> out`, a parent's files across exec) or opened before the library
// was loaded. Darshan counts a descriptor only from the open it saw, so `gzip -c f > f.gz`
// writes nothing it can see. Here each such descriptor is marked as the library starts
// (fd_inherited), and its first call names its file: the file's POSIX record is made then
// (no open counted: the process made none), its offset where the descriptor's is, and the
// call and every later one are counted as any others. A descriptor closed unused makes no
// record, so files a process never touches take no room.
#pragma once

namespace perfdm::io::lib {

// Called once as the library starts, with its segment in use; nothing in --darshan-only.
void mark_inherited_files();

}  // namespace perfdm::io::lib
