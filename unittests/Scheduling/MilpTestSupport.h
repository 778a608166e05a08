//===- MilpTestSupport.h - Shared pieces of the MILP tests ------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// What the tests of Milp.h, MilpWindows.h, MilpLarge.h and MilpRounding.h
// share: skipping where remat was built without CBC, and clearing
// milpOptimal's test hooks.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_SCHEDULING_MILPTESTSUPPORT_H
#define REMAT_UNITTESTS_SCHEDULING_MILPTESTSUPPORT_H

#include "remat/Scheduling/Milp.h"

#include <gtest/gtest.h>

/// Skips the calling test when remat was built without CBC
/// (`milpAvailable`), where every MILP call declines.
#define REQUIRE_CBC()                                                          \
  if (!::remat::sched::milpAvailable()) {                                      \
    GTEST_SKIP() << "built without CBC";                                       \
  }

namespace remat {
namespace sched {
namespace test {

/// Clears milpOptimal's test hooks (`milpTestHooks`) when it goes out of
/// scope, so that a test's hooks never reach the next test.
struct MilpHooksReset {
  ~MilpHooksReset() { milpTestHooks() = MilpTestHooks(); }
};

} // namespace test
} // namespace sched
} // namespace remat

#endif // REMAT_UNITTESTS_SCHEDULING_MILPTESTSUPPORT_H
