// Start-up and the end of a process: the options from the environment (docs/IO.md §4), the
// job directory, this process's segment, the fork handlers, and at exit the job's log when
// this process started the job on its own (no perfdm io above it).
#pragma once

namespace perfdm::io::lib {

// Whether a cleaned name gets no record (path_exclusions configured from the options).
bool excluded_name(const char* cleaned);

// The process is ending (exit, _exit): stamps the segment's end; the process that started the
// job writes its log. Idempotent.
void finish_process();

// exec is about to replace this image: stamps its segment's end (true when it did). When exec
// fails, image_goes_on() stamps it running again.
bool image_ending();
void image_goes_on();

}  // namespace perfdm::io::lib
