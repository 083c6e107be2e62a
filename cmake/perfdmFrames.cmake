# perfdm_generate_frames: the frames component of a schema (`perfdm gen`, docs/FRAMES.md §3),
# generated at build time by the perfdm::perfdm executable. One file for perfdm's own build
# and for the installed CMake package (find_package(perfdm), docs/GETTING-STARTED.md).
#
#   perfdm_generate_frames(<target> <schema> [CLOCK tsc|reader] [OUTPUT_DIR <dir>])
#     generates <dir>/<stem>_frames.h and <dir>/<stem>_frames.cpp (<stem>: the schema's file
#     name without its last extension; <dir> defaults to
#     ${CMAKE_CURRENT_BINARY_DIR}/perfdm_frames), adds the source to <target> and <dir> to its
#     include path, and gives it C++17 and the thread library (target_link_libraries with
#     PRIVATE: the target's other target_link_libraries calls must use keywords too). The
#     project must enable CXX (the generated source is C++17; the header is C99 or C++).
#
#   perfdm_generate_frames(<schema> <gen_dir> <out_var> [perfdm gen options…])
#     perfdm's own build: only generates, into ${CMAKE_CURRENT_BINARY_DIR}/<gen_dir>; sets
#     <out_var> to the source and <out_var>_DIR to the directory.
include_guard(GLOBAL)

# Adds the command that generates the component of `schema` into `dir`; sets
# _perfdm_frames_source in the caller.
function(_perfdm_frames_command schema dir)
  get_filename_component(schema "${schema}" ABSOLUTE)
  get_filename_component(stem "${schema}" NAME_WLE)
  get_filename_component(shown "${schema}" NAME)
  add_custom_command(
    OUTPUT ${dir}/${stem}_frames.h ${dir}/${stem}_frames.cpp
    COMMAND $<TARGET_FILE:perfdm::perfdm> gen ${schema} -o ${dir} ${ARGN}
    DEPENDS perfdm::perfdm ${schema}
    COMMENT "perfdm gen ${shown}"
    VERBATIM)
  set(_perfdm_frames_source ${dir}/${stem}_frames.cpp PARENT_SCOPE)
endfunction()

function(perfdm_generate_frames first)
  if(NOT TARGET "${first}")
    # perfdm_generate_frames(<schema> <gen_dir> <out_var> [options…])
    if(ARGC LESS 3)
      message(FATAL_ERROR "perfdm_generate_frames(<target> <schema> [CLOCK tsc|reader] "
                          "[OUTPUT_DIR dir]): '${first}' is not a target")
    endif()
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/${ARGV1})
    set(options ${ARGN})
    list(REMOVE_AT options 0 1)
    _perfdm_frames_command(${first} ${dir} ${options})
    set(${ARGV2} ${_perfdm_frames_source} PARENT_SCOPE)
    set(${ARGV2}_DIR ${dir} PARENT_SCOPE)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "CLOCK;OUTPUT_DIR" "")
  if(ARGC LESS 2 OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "perfdm_generate_frames(<target> <schema> [CLOCK tsc|reader] "
                        "[OUTPUT_DIR dir]): unexpected '${arg_UNPARSED_ARGUMENTS}'")
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/perfdm_frames)
  if(arg_OUTPUT_DIR)
    get_filename_component(dir "${arg_OUTPUT_DIR}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(options)
  if(arg_CLOCK)
    set(options --clock ${arg_CLOCK})
  endif()
  _perfdm_frames_command(${ARGV1} ${dir} ${options})
  find_package(Threads REQUIRED)
  target_sources(${first} PRIVATE ${_perfdm_frames_source})
  target_include_directories(${first} PRIVATE ${dir})
  target_compile_features(${first} PRIVATE cxx_std_17)
  target_link_libraries(${first} PRIVATE Threads::Threads)
endfunction()
