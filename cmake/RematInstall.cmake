# Install rules and the CMake package (find_package(Remat)).
#
# Installed layout under CMAKE_INSTALL_PREFIX:
#   include/remat/...           headers, TableGen sources (.td) and the
#                               generated .inc files
#   lib/libRemat*.a|.so         the libraries (Remat::<name> targets)
#   lib/RematPlugin.so          dialect + pass plugin for upstream mlir-opt
#   lib/cmake/remat/            RematConfig.cmake, RematTargets.cmake
#   bin/remat-opt, remat-compile, remat-import, remat-runner
#   share/remat/runner/         runner.cpp and build.sh (remat-runner)

set(REMAT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/remat)

install(DIRECTORY ${REMAT_SOURCE_DIR}/include/remat
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT remat-headers
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${REMAT_BINARY_DIR}/include/remat
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT remat-headers
  FILES_MATCHING PATTERN "*.inc")

install(EXPORT RematTargets NAMESPACE Remat::
  DESTINATION ${REMAT_INSTALL_CMAKEDIR} COMPONENT remat-cmake)

configure_package_config_file(
  ${REMAT_SOURCE_DIR}/cmake/RematConfig.cmake.in
  ${REMAT_BINARY_DIR}/cmake/RematConfig.cmake
  INSTALL_DESTINATION ${REMAT_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR
            CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(
  ${REMAT_BINARY_DIR}/cmake/RematConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${REMAT_BINARY_DIR}/cmake/RematConfig.cmake
              ${REMAT_BINARY_DIR}/cmake/RematConfigVersion.cmake
  DESTINATION ${REMAT_INSTALL_CMAKEDIR} COMPONENT remat-cmake)

# remat-runner: the sources it compiles per entry point, and a wrapper that
# finds them (and the headers) relative to its own location.
install(FILES ${REMAT_SOURCE_DIR}/tools/remat-runner/runner.cpp
  DESTINATION ${CMAKE_INSTALL_DATADIR}/remat/runner COMPONENT remat-tools)
install(PROGRAMS ${REMAT_SOURCE_DIR}/tools/remat-runner/build.sh
  DESTINATION ${CMAKE_INSTALL_DATADIR}/remat/runner COMPONENT remat-tools)
set(REMAT_INSTALLED_RUNTIME "")
if(TARGET RematCudaRuntime)
  set(REMAT_INSTALLED_RUNTIME
      "--runtime \"$prefix/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:RematCudaRuntime>\"")
endif()
file(GENERATE OUTPUT ${REMAT_BINARY_DIR}/install/remat-runner
  CONTENT "#!/usr/bin/env bash
# Installed remat-runner: builds a runner for one entry point compiled by
# remat-compile (see share/remat/runner/build.sh).
prefix=$(cd \"$(dirname \"$0\")/..\" && pwd)
export REMAT_RUNNER_INCLUDE_DIR=\"$prefix/${CMAKE_INSTALL_INCLUDEDIR}\"
exec \"$prefix/${CMAKE_INSTALL_DATADIR}/remat/runner/build.sh\" ${REMAT_INSTALLED_RUNTIME} --cpu-runtime \"$prefix/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:RematCpuRuntime>\" --cuda-root \"${REMAT_CUDA_ROOT}\" \"$@\"
")
install(PROGRAMS ${REMAT_BINARY_DIR}/install/remat-runner
  DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT remat-tools)
