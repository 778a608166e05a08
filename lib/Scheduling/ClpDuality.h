//===- ClpDuality.h - Weak-duality bounds from CLP's dual -------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A lower bound on a minimisation LP solved (or cut short) by CLP, from the
/// weak duality of its dual row solution. Private to RematScheduling; only
/// built with CBC/CLP (REMAT_HAVE_CBC).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_SCHEDULING_CLPDUALITY_H
#define REMAT_LIB_SCHEDULING_CLPDUALITY_H

#ifdef REMAT_HAVE_CBC

class ClpSimplex;

namespace remat::sched::detail {

/// The weak-duality bound of `lp` (a minimisation) from its dual row
/// solution: for y >= 0 on rows with a lower side and y <= 0 on rows with an
/// upper side (other signs clamped to 0), every x within the rows and the
/// column bounds costs at least sum_r y_r side_r + sum_c min over the
/// column's bounds of (c_c - (A^T y)_c) x_c. Valid for any y, optimal or not,
/// so CLP's tolerances or a time limit cannot make it exceed the LP optimum
/// (a relative margin of 1e-9 covers the rounding of the sums). One
/// approximation: a reduced cost within 1e-9 of 0 on an unbounded column
/// counts as 0, which can overstate the bound by 1e-9 per unit of that
/// column's value; only MilpRounding's model has such columns (its
/// auxiliaries), LowerBound's joint LP bounds every column. -infinity
/// without a dual solution or where an unbounded column's reduced cost is
/// not 0.
double weakDualityBound(ClpSimplex &lp);

} // namespace remat::sched::detail

#endif // REMAT_HAVE_CBC

#endif // REMAT_LIB_SCHEDULING_CLPDUALITY_H
