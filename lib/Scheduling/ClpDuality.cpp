//===- ClpDuality.cpp - Weak-duality bounds from CLP's dual ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "ClpDuality.h"

#ifdef REMAT_HAVE_CBC
#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>

#include <cmath>
#include <limits>
#include <vector>

double remat::sched::detail::weakDualityBound(ClpSimplex &lp) {
  const double inf = std::numeric_limits<double>::infinity();
  const double *dual = lp.dualRowSolution();
  if (!dual)
    return -inf;
  int rows = lp.numberRows(), cols = lp.numberColumns();
  const double *rowLo = lp.rowLower(), *rowUp = lp.rowUpper();
  const double *colLo = lp.columnLower(), *colUp = lp.columnUpper();
  const double *obj = lp.objective();
  std::vector<double> y(rows, 0.0), reduced(obj, obj + cols);
  double bound = 0, magnitude = 0;
  for (int r = 0; r != rows; ++r) {
    double v = dual[r];
    if ((v > 0 && rowLo[r] > -COIN_DBL_MAX) ||
        (v < 0 && rowUp[r] < COIN_DBL_MAX))
      y[r] = v;
    if (y[r] == 0)
      continue;
    double side = y[r] > 0 ? rowLo[r] : rowUp[r];
    bound += y[r] * side;
    magnitude += std::fabs(y[r] * side);
  }
  // reduced = c - A^T y, whichever way the matrix is stored.
  const CoinPackedMatrix *matrix = lp.matrix();
  bool byColumn = matrix->isColOrdered();
  const CoinBigIndex *start = matrix->getVectorStarts();
  const int *length = matrix->getVectorLengths();
  const int *index = matrix->getIndices();
  const double *element = matrix->getElements();
  for (int major = 0; major != matrix->getMajorDim(); ++major)
    for (CoinBigIndex e = start[major]; e != start[major] + length[major];
         ++e) {
      int r = byColumn ? index[e] : major, c = byColumn ? major : index[e];
      reduced[c] -= y[r] * element[e];
    }
  for (int c = 0; c != cols; ++c) {
    if (reduced[c] == 0)
      continue;
    double side = reduced[c] > 0 ? colLo[c] : colUp[c];
    if (std::fabs(side) >= COIN_DBL_MAX) {
      // A free column whose reduced cost is the rounding of the sums above
      // counts as 0: a tolerance of 1e-9 per unit of that column, where
      // CLP's own dual feasibility tolerance is 1e-7.
      if (std::fabs(reduced[c]) <= 1e-9)
        continue;
      return -inf;
    }
    bound += reduced[c] * side;
    magnitude += std::fabs(reduced[c] * side);
  }
  return bound - 1e-9 * (magnitude + 1);
}

#endif // REMAT_HAVE_CBC
