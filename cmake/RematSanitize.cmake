# Sanitizer and fuzzer builds of remat (clang only; see docs/Testing.md).
#
#   -DREMAT_SANITIZE=address,undefined  instruments every remat target with
#       the listed sanitizers (any list -fsanitize= accepts). Undefined
#       behaviour aborts (-fno-sanitize-recover). The LLVM and MLIR shared
#       libraries stay uninstrumented Debian builds: run the tools with
#       ASAN_OPTIONS=allow_user_poisoning=0 (test/lit.cfg.py sets it).
#   -DREMAT_BUILD_FUZZERS=ON  also adds libFuzzer coverage to every remat
#       target and builds the fuzz targets of tools/remat-fuzz.

set(REMAT_SANITIZE "" CACHE STRING
    "Sanitizers for every remat target, e.g. address,undefined (clang)")
option(REMAT_BUILD_FUZZERS "Build the libFuzzer targets (clang)" OFF)

# remat_uninstrumented(target...): builds the targets without sanitizers or
# coverage. For runtime libraries that programs built outside this tree link
# (remat-runner links them with g++, without the sanitizer runtimes).
function(remat_uninstrumented)
  foreach(target ${ARGN})
    foreach(property COMPILE_OPTIONS LINK_OPTIONS)
      get_target_property(options ${target} ${property})
      if(options)
        list(REMOVE_ITEM options ${REMAT_SANITIZER_FLAGS}
             -fsanitize=fuzzer-no-link)
        set_target_properties(${target} PROPERTIES ${property} "${options}")
      endif()
    endforeach()
  endforeach()
endfunction()

set(REMAT_SANITIZER_FLAGS "")
if(NOT REMAT_SANITIZE AND NOT REMAT_BUILD_FUZZERS)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "REMAT_SANITIZE and REMAT_BUILD_FUZZERS need clang "
                      "(e.g. -DCMAKE_CXX_COMPILER=clang++-22)")
endif()

# -O1: quicker to build than -O3 and enough for the sanitizers.
set(REMAT_SANITIZER_FLAGS -O1 -fno-omit-frame-pointer -gline-tables-only)
if(REMAT_SANITIZE)
  list(APPEND REMAT_SANITIZER_FLAGS "-fsanitize=${REMAT_SANITIZE}")
  if(REMAT_SANITIZE MATCHES "undefined")
    # LLVM and MLIR are built without RTTI, which the vptr check needs.
    list(APPEND REMAT_SANITIZER_FLAGS -fno-sanitize=vptr
         -fno-sanitize-recover=undefined)
  endif()
  message(STATUS "remat: sanitizers ${REMAT_SANITIZE}")
endif()
add_compile_options(${REMAT_SANITIZER_FLAGS})
add_link_options(${REMAT_SANITIZER_FLAGS})

if(REMAT_BUILD_FUZZERS)
  # Coverage for libFuzzer in every remat object; the fuzz targets add
  # -fsanitize=fuzzer (libFuzzer's main) at link time.
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "remat: libFuzzer targets enabled")
endif()

