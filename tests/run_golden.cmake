# Runs one golden replay file and compares the output byte for byte.
# To accept a new output after a deliberate change: copy ACTUAL over EXPECTED and review the diff.
get_filename_component(dir ${ACTUAL} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
execute_process(COMMAND ${PERFDM} replay ${REPLAY} OUTPUT_FILE ${ACTUAL} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "perfdm replay ${REPLAY} exited with ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${EXPECTED} ${ACTUAL} RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  execute_process(COMMAND diff -u ${EXPECTED} ${ACTUAL})
  message(FATAL_ERROR "output of ${REPLAY} differs from ${EXPECTED}")
endif()
