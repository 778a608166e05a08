# Helpers for remat libraries. Every remat library links the LLVM and MLIR
# shared libraries (Debian builds LLVM with LLVM_LINK_LLVM_DYLIB): static MLIR
# archives are never linked, so the two can never end up in one binary.

# remat_add_library(name SRCS... [DEPENDS tgt...] [LINK_LIBS lib...] [NO_MLIR])
function(remat_add_library name)
  cmake_parse_arguments(ARG "NO_MLIR" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_NO_MLIR)
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  else()
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  endif()
endfunction()
