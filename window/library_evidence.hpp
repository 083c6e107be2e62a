// A focus's evidence when the process has the preloaded I/O library: the stack samples'
// counts (sample_window) with the library's exact I/O (file_window) in place of the sampled
// I/O where the library counts by the focus (docs/NATIVE.md §8):
// - io_ops, io_bytes (TooManySmallIOOps): the library's read and write operations and bytes
//   of the focus's files since the time asked, at a /File focus and at the whole process
//   (its data files); the stack samples see a thread's /proc counts, which mix every file
//   and descriptor it used since its previous sample;
// - at a /File focus, the I/O time (ExcessiveIOBlockingTime): the library's read, write and
//   metadata time of those files over the time between its readings, as threads in I/O on
//   average, turned into the same shares of the active (and busy) threads the samples give;
//   a thread caught inside a call on the file is a sample of that, the time is the whole.
// - at a focus that also names a thread or a function (the library counts per process and
//   file): the samples' operations, each at the library's mean operation size of the files.
// The whole process's I/O time stays the samples': it includes pipes and sockets, which the
// library does not count. Everything else (the ticks, the CPU and sync states, the blame of
// caused waits) stays the samples' too. Plain C++.
#pragma once

#include <vector>

#include "window/file_window.hpp"
#include "window/sample_window.hpp"

namespace perfdm::window {

// `c` with the library's `io` at its focus; `at_file`: the focus has a /File part.
focus_counts with_library_io(focus_counts c, const library_io& io, bool at_file);

// The counts at each focus since `since`: the stack samples', with the library's where it
// counts by the focus (file_window::count).
std::vector<focus_counts> counts_with_library(const sample_window& stacks,
                                              const file_window& files,
                                              const std::vector<native::pc_focus>& foci,
                                              double since);

}  // namespace perfdm::window
