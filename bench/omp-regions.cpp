//===- omp-regions.cpp - count the OpenMP regions a program enters --------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// An OMPT tool (the OpenMP tools interface of libomp): loaded into a
// program by
//
//   OMP_TOOL_LIBRARIES=build/lib/libRematOmpRegions.so program ...
//
// it counts the parallel regions the program enters, by the number of
// threads each asked for, and prints when the OpenMP runtime shuts down
// (at the program's exit), on stderr:
//
//   remat-omp-regions: regions R serial S parallel P
//
// S counts the regions that asked for one thread (omp_set_num_threads(1):
// OpenMP runs them on the calling thread, and still pays for entering
// them), P those that asked for more. A compiled step that forks for a
// loop too small to share shows up as P > 0 at 2 threads; the
// thresholds of remat-cpu-parallel-loops and of the CPU runtime are
// checked with it (test/Driver/cpu-parallel-threshold.test).
//
//===----------------------------------------------------------------------===//

#include <omp-tools.h>

#include <atomic>
#include <cstdio>

namespace {

std::atomic<long long> serialRegions{0}, parallelRegions{0};

void onParallelBegin(ompt_data_t *, const ompt_frame_t *, ompt_data_t *,
                     unsigned int requested, int, const void *) {
  (requested > 1 ? parallelRegions : serialRegions)
      .fetch_add(1, std::memory_order_relaxed);
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t *) {
  auto setCallback =
      reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (!setCallback || setCallback(ompt_callback_parallel_begin,
                                  reinterpret_cast<ompt_callback_t>(
                                      &onParallelBegin)) != ompt_set_always) {
    std::fprintf(stderr, "remat-omp-regions: cannot count regions\n");
    return 0; // no tool: nothing printed at the end
  }
  return 1;
}

void finalize(ompt_data_t *) {
  long long serial = serialRegions.load(), parallel = parallelRegions.load();
  std::fprintf(stderr,
               "remat-omp-regions: regions %lld serial %lld "
               "parallel %lld\n",
               serial + parallel, serial, parallel);
}

ompt_start_tool_result_t tool = {&initialize, &finalize, {0}};

} // namespace

extern "C" ompt_start_tool_result_t *ompt_start_tool(unsigned int,
                                                     const char *) {
  return &tool;
}
