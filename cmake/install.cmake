# `cmake --install build/release [--prefix P]`, two components:
#   cli       the `whyslow` command (and whyslow-mpi) into P/bin; `--component cli` installs it
#             alone, as after scripts/demo.sh, which builds nothing else;
#   profiler  the profiler library with its header and a CMake package config, so another project
#             can write find_package(whyslow REQUIRED) and link whyslow::profiler.
# The analyzer's libraries are the command's internals: not installed.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS whyslow RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
if(TARGET whyslow-mpi)
  install(TARGETS whyslow-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
endif()

set(WHYSLOW_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/whyslow)
# whyslow_output is linked privately into the static profiler, so its archive must be installed
# and exported too: a static library's private dependencies are its users' link dependencies.
install(TARGETS whyslow_profiler whyslow_output EXPORT whyslowTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT profiler)
install(FILES ${CMAKE_SOURCE_DIR}/include/whyslow/profiler.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/whyslow COMPONENT profiler)
install(EXPORT whyslowTargets NAMESPACE whyslow:: DESTINATION ${WHYSLOW_CMAKE_DIR} COMPONENT profiler)

get_property(WHYSLOW_PROFILER_CUDA GLOBAL PROPERTY WHYSLOW_PROFILER_CUDA)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/whyslowConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/whyslowConfig.cmake INSTALL_DESTINATION ${WHYSLOW_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/whyslowConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/whyslowConfig.cmake ${CMAKE_BINARY_DIR}/whyslowConfigVersion.cmake
        DESTINATION ${WHYSLOW_CMAKE_DIR} COMPONENT profiler)
