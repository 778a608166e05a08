//===- CpuSeconds.h - CPU time for the speed tests --------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The clock of the tests that bound how long a call takes (a simulation
/// of a 20,001-node chain, a 500-node forward-only plan): the CPU seconds
/// of this process, not wall time, so that what else the machine runs (the
/// other gtest shards and lit workers of `scripts/test.sh`, other builds)
/// does not fail them. A quadratic step in the code under test still does.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_SCHEDULING_CPUSECONDS_H
#define REMAT_UNITTESTS_SCHEDULING_CPUSECONDS_H

#include <ctime>

namespace remat {
namespace sched {
namespace test {

/// CPU seconds used by this process (every thread) so far.
inline double cpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

} // namespace test
} // namespace sched
} // namespace remat

#endif // REMAT_UNITTESTS_SCHEDULING_CPUSECONDS_H
