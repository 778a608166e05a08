//===- MilpClaims.cpp - What a time-limited CBC solve may claim -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/MilpClaims.h"

#include <algorithm>
#include <cmath>

using namespace remat::sched;

CbcClaims remat::sched::acceptCbcAnswer(const CbcAnswer &answer) {
  CbcClaims claims;
  bool inTime =
      !answer.secondsLimitReached && answer.returnedAt < answer.deadline;
  claims.finished = inTime && !answer.limitReached;
  claims.stoppedOnLimit = inTime && answer.limitReached;
  claims.optimal = claims.finished && answer.provenOptimal;
  claims.infeasible = claims.finished && answer.provenInfeasible;
  double b = answer.bestPossible;
  if (!std::isfinite(b) || std::fabs(b) >= 1e40)
    return claims;
  if (claims.finished) {
    claims.bound = b;
    return claims;
  }
  if (!answer.bestKnown)
    return claims;
  double known = *answer.bestKnown;
  if (b < known - 1e-6 * std::max(1.0, std::fabs(known)))
    claims.bound = b;
  return claims;
}

std::optional<double> remat::sched::solutionObjective(const MilpRows &model,
                                                      const double *x,
                                                      int cols) {
  auto tolerance = [](double bound) {
    return 1e-6 * (1 + (std::fabs(bound) < 1e30 ? std::fabs(bound) : 0));
  };
  if (!x || cols != int(model.colLb.size()))
    return std::nullopt;
  double objective = 0;
  for (int c = 0; c != cols; ++c) {
    if (!std::isfinite(x[c]) ||
        x[c] < model.colLb[c] - tolerance(model.colLb[c]) ||
        x[c] > model.colUb[c] + tolerance(model.colUb[c]))
      return std::nullopt;
    if (model.colInt[c] && std::fabs(x[c] - std::round(x[c])) > 1e-6)
      return std::nullopt;
    objective += model.colObj[c] * x[c];
  }
  for (size_t r = 0; r + 1 < model.rowStart.size(); ++r) {
    double activity = 0;
    for (int k = model.rowStart[r]; k != model.rowStart[r + 1]; ++k)
      activity += model.rowVal[k] * x[model.rowCol[k]];
    if (activity < model.rowLb[r] - tolerance(model.rowLb[r]) ||
        activity > model.rowUb[r] + tolerance(model.rowUb[r]))
      return std::nullopt;
  }
  return objective;
}

double remat::sched::wholeCostBound(const std::vector<double> &costs,
                                    double bound) {
  if (!std::isfinite(bound) || bound <= 0)
    return bound;
  for (double c : costs)
    if (!std::isfinite(c) || c < 0 || c >= 0x1p52 || std::floor(c) != c)
      return bound;
  return std::ceil(bound - 1e-9 * std::max(1.0, bound));
}

double remat::sched::milpBoundRetrySeconds(double timeLimitSeconds,
                                           double secondsLeft,
                                           double firstSeconds, double bound,
                                           double plan, bool cutShort) {
  if (!cutShort || !std::isfinite(bound) || !std::isfinite(plan) || plan <= 0 ||
      bound >= plan - 1e-9 * plan || bound < (1 - kMilpBoundRetryGap) * plan)
    return 0;
  double seconds =
      std::min(secondsLeft, timeLimitSeconds * kMilpBoundRetryShare);
  return seconds > firstSeconds ? seconds : 0;
}
