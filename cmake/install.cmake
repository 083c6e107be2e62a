# Installing perfdm (cmake --install) and packaging it (cpack: perfdm_<version>_amd64.deb):
# the executable, its man page, its docs, the bundled demo scenario, a CMake package
# (find_package(perfdm): perfdm::perfdm and perfdm_generate_frames) and a pkg-config file
# for make users. docs/GETTING-STARTED.md uses all of them.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS perfdm EXPORT perfdmTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The preloaded I/O library, where `perfdm io --library` looks for it: <prefix>/lib/perfdm/
# (beside bin/, whatever the multiarch libdir).
install(TARGETS perfdm_io LIBRARY DESTINATION lib/perfdm)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
install(DIRECTORY examples/integration DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(FILES examples/demo.replay DESTINATION ${CMAKE_INSTALL_DATADIR}/perfdm)

# The CMake package: arch-independent (perfdm ships no library), so under share/.
set(PERFDM_CMAKE_DIR ${CMAKE_INSTALL_DATADIR}/cmake/perfdm)
install(EXPORT perfdmTargets NAMESPACE perfdm:: DESTINATION ${PERFDM_CMAKE_DIR})
configure_package_config_file(cmake/perfdmConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/perfdmConfig.cmake INSTALL_DESTINATION ${PERFDM_CMAKE_DIR})
# 0.x: a minor version may change the generated component's contract.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/perfdmConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/perfdmConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/perfdmConfigVersion.cmake cmake/perfdmFrames.cmake
        DESTINATION ${PERFDM_CMAKE_DIR})

# pkg-config: relocatable (the prefix is found from the file's own directory).
configure_file(cmake/perfdm.pc.in ${CMAKE_CURRENT_BINARY_DIR}/perfdm.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/perfdm.pc DESTINATION ${CMAKE_INSTALL_DATADIR}/pkgconfig)

# The man page, from the CLI's help at build time (Debian's help2man; scripts/setup.sh).
find_program(HELP2MAN help2man)
if(HELP2MAN)
  add_custom_command(
    OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/perfdm.1
    COMMAND ${CMAKE_COMMAND} -DPERFDM=$<TARGET_FILE:perfdm> -DHELP2MAN=${HELP2MAN}
            -DOUT=${CMAKE_CURRENT_BINARY_DIR}/perfdm.1 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/man
            -P ${PROJECT_SOURCE_DIR}/cmake/perfdm_man.cmake
    DEPENDS perfdm ${PROJECT_SOURCE_DIR}/cmake/perfdm_man.cmake
    COMMENT "perfdm.1 from perfdm --help")
  add_custom_target(perfdm_man ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/perfdm.1)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/perfdm.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "help2man not found: no man page (scripts/setup.sh installs it)")
endif()

# The Debian package: cpack -G DEB (or cmake --build build --target package) in the build
# directory writes perfdm_<version>_amd64.deb; Depends: from dpkg-shlibdeps (dpkg-dev).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME perfdm)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "perfdm")
set(CPACK_PACKAGE_CONTACT "perfdm maintainers <perfdm@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "performance data manager for native C/C++ programs (frames, histograms, phases)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # as Debian ships executables: without debug information
# Building an instrumented program needs a C++17 compiler; make users need pkg-config.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++ | clang, pkg-config")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake")
include(CPack)
