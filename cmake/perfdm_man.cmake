# Writes the man page perfdm.1 from the CLI's own help (cmake -P, at build time): help2man
# turns `perfdm --help` and `perfdm --version` into the page, and a SUBCOMMANDS section
# holds each subcommand's `perfdm <sub> --help`, subcommands as the top-level help lists
# them, so the page cannot drift from the program.
# -DPERFDM=<executable> -DHELP2MAN=<help2man> -DOUT=<perfdm.1> -DWORK=<directory>
foreach(v PERFDM HELP2MAN OUT WORK)
  if(NOT ${v})
    message(FATAL_ERROR "perfdm_man.cmake: -D${v}= is required")
  endif()
endforeach()

execute_process(COMMAND ${PERFDM} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "perfdm --help failed (${rc})")
endif()
# CLI11 lists them under "SUBCOMMANDS:", one per line: two spaces, the name, its description.
string(REGEX REPLACE ".*\nSUBCOMMANDS:\n" "" listed "${help}")
string(REPLACE "\n" ";" lines "${listed}")
set(section "[SUBCOMMANDS]\n")
set(count 0)
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^  ([a-z]+)( |$)")
    continue()
  endif()
  set(sub ${CMAKE_MATCH_1})
  execute_process(COMMAND ${PERFDM} ${sub} --help OUTPUT_VARIABLE sub_help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "perfdm ${sub} --help failed (${rc})")
  endif()
  # roff: backslashes are escapes, and a line starting with . or ' is a request.
  string(REPLACE "\\" "\\e" sub_help "${sub_help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" sub_help "${sub_help}")
  string(APPEND section ".SS perfdm ${sub}\n.nf\n${sub_help}.fi\n")
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "perfdm_man.cmake: no subcommand found in perfdm --help")
endif()
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/perfdm.h2m "${section}")
execute_process(
  COMMAND ${HELP2MAN} --no-info --section=1 --name=a\ performance\ data\ manager\ for\ native\ programs
          --include=${WORK}/perfdm.h2m --output=${OUT} ${PERFDM}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc})")
endif()
