# Helpers for remat libraries. Every remat library links the LLVM and MLIR
# shared libraries (Debian builds LLVM with LLVM_LINK_LLVM_DYLIB): static MLIR
# archives are never linked, so the two can never end up in one binary.
#
# Every library made here is installed and exported (`Remat::<name>` through
# RematConfig.cmake, see cmake/RematConfig.cmake.in). REMAT_BUILD_SHARED_LIBS
# builds them as shared libraries instead of static archives.

# remat_add_library(name SRCS... [DEPENDS tgt...] [LINK_LIBS lib...] [NO_MLIR])
# NO_MLIR links only LINK_LIBS (pass LLVM for LLVM Support).
function(remat_add_library name)
  cmake_parse_arguments(ARG "NO_MLIR" "" "DEPENDS;LINK_LIBS" ${ARGN})
  if(REMAT_BUILD_SHARED_LIBS)
    set(kind SHARED)
  else()
    set(kind STATIC)
  endif()
  add_library(${name} ${kind} ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_NO_MLIR)
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  else()
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  endif()
  # Headers: the source tree and the generated .inc files while building,
  # <prefix>/include once installed.
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${REMAT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${REMAT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # Installed consumers also need the MLIR and LLVM headers remat's headers
  # include (Debian's imported MLIR/LLVM targets carry none).
  # NO_MLIR libraries still use LLVM's headers (llvm::Error, ADT).
  set(header_dirs ${LLVM_INCLUDE_DIRS})
  if(NOT ARG_NO_MLIR)
    list(PREPEND header_dirs ${MLIR_INCLUDE_DIRS})
  endif()
  list(REMOVE_DUPLICATES header_dirs)
  foreach(dir ${header_dirs})
    target_include_directories(${name} SYSTEM PUBLIC
      $<INSTALL_INTERFACE:${dir}>)
  endforeach()
  install(TARGETS ${name} EXPORT RematTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT remat-libraries
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT remat-libraries
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT remat-libraries)
  set_property(GLOBAL APPEND PROPERTY REMAT_EXPORTED_LIBRARIES ${name})
endfunction()

# remat_add_tool(name SRCS... LINK_LIBS lib...): an installed executable.
function(remat_add_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS})
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT remat-tools)
endfunction()
