# Install and packaging (tests/packaging/, docs/GETTING-STARTED.md): perfdm installed into a
# temporary prefix (a fixture) and used from the integration examples; the Debian package;
# the guide run as written. Each takes 5 to 30 s, mostly compiling and waiting on programs
# that run for a few seconds; labelled `packaging` and `slow`, and independent of the other
# tests, so they run in parallel with them (ctest -j2).
# cmake --install needs the man page: built with the tests, so building only perfdm_tests (as
# the other tests allow) is enough for these but packaging.deb, whose cpack, like
# `make package`, first builds every target of the tree (its preinstall step).
set(work ${CMAKE_BINARY_DIR}/packaging-tests)
if(TARGET perfdm_man)
  add_dependencies(perfdm_tests perfdm_man perfdm)
endif()
add_test(NAME packaging.install
  COMMAND sh -c "rm -rf '${work}/prefix' && '${CMAKE_COMMAND}' --install '${CMAKE_BINARY_DIR}' --prefix '${work}/prefix' >'${work}.install.log' 2>&1 || { cat '${work}.install.log'; exit 1; }")
set_tests_properties(packaging.install PROPERTIES FIXTURES_SETUP perfdm_installed
                     LABELS "packaging" TIMEOUT 60)
add_test(NAME packaging.integration
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/packaging/integration.sh ${PROJECT_SOURCE_DIR}
          ${work}/prefix ${work}/integration)
set_tests_properties(packaging.integration PROPERTIES FIXTURES_REQUIRED perfdm_installed
                     LABELS "packaging;slow" TIMEOUT 120)
add_test(NAME packaging.deb
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/packaging/deb.sh ${CMAKE_BINARY_DIR} ${PROJECT_VERSION}
          ${work}/deb)
set_tests_properties(packaging.deb PROPERTIES LABELS "packaging;slow" TIMEOUT 180)
add_test(NAME packaging.guide
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/packaging/guide.sh ${PROJECT_SOURCE_DIR}/docs/GETTING-STARTED.md
          ${CMAKE_BINARY_DIR} ${PROJECT_VERSION} ${work}/guide)
set_tests_properties(packaging.guide PROPERTIES LABELS "packaging;slow" TIMEOUT 120)
