// The generated component as text templates (LTTng-UST's variants over one template): raw
// strings with @KEY@ slots that generate_frames_code (shm/codegen.cpp) fills per schema and
// per frame type. The header's text is in codegen_header_text.cpp, the source's in
// codegen_source_text.cpp.
#pragma once

namespace perfdm::shm::codegen_text {

// <stem>_frames.h: the top (common macros), per struct after its typedef and setters, the end.
extern const char* const header_top;
extern const char* const header_struct_end;
extern const char* const header_bottom;

// <stem>_frames.cpp: the top (the writer, @SEGMENT_HEADER@ and @CLOCK_CODE@ filled in), one
// of the two perfdm_now clocks, per struct, and the fork handler at the end.
extern const char* const source_top;
extern const char* const clock_tsc_code;
extern const char* const clock_reader_code;
extern const char* const source_struct;
extern const char* const source_bottom;

}  // namespace perfdm::shm::codegen_text
