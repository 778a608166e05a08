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
  claims.finished =
      !answer.secondsLimitReached && answer.returnedAt < answer.deadline;
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
