//===- MilpClaims.h - What a time-limited CBC solve may claim --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rule by which `milpOptimal` (Milp.h) decides which of a CBC solve's
/// answers count: a proof (optimal, infeasible, a bound that meets the best
/// known objective) only from a search that ended before the call's
/// deadline. Apart from the CBC calls so that it is tested without CBC
/// (gtest `MilpClaims.*`).
///
/// Why: CBC checks its clock only between its own steps, and Clp's
/// wall-clock limit stops an LP shortly after the deadline. An LP cut short
/// there proves nothing, but CBC may treat its node as closed (above the
/// cutoff, or infeasible) and then report the search "ended": proven
/// optimal, proven infeasible (nothing beats the cutoff), or a best possible
/// objective at the cutoff. Such answers arrive after the deadline. An
/// early run counted them and claimed random_layered_n100 at 0.8 of
/// store-all optimal at 6.36% recompute after 120 s of a 60 s limit; a
/// 3.39% plan refutes it (bench/milp-results.md, audit note).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_MILPCLAIMS_H
#define REMAT_SCHEDULING_MILPCLAIMS_H

#include <chrono>
#include <optional>
#include <vector>

namespace remat {
namespace sched {

/// What CBC said when its solve returned, in the model's objective units.
struct CbcAnswer {
  /// CBC's status: the search proved optimality, or that nothing (nothing
  /// below the cutoff, with one) is feasible.
  bool provenOptimal = false;
  bool provenInfeasible = false;
  /// CBC stopped on its own time limit.
  bool secondsLimitReached = false;
  /// CBC stopped on a node or solution limit (`-maxNodes`, `-maxSolutions`):
  /// open nodes were left, whatever its status says.
  bool limitReached = false;
  /// The call's deadline and the time CBC returned.
  std::chrono::steady_clock::time_point deadline, returnedAt;
  /// CBC's best possible objective (its lower bound), as it reports it.
  double bestPossible = 0;
  /// The best objective known when CBC returned, without any tolerance: the
  /// cutoff (a warm start's objective) or CBC's best solution, the smaller;
  /// none if there is neither.
  std::optional<double> bestKnown;
};

/// The part of a `CbcAnswer` that counts.
struct CbcClaims {
  /// The search ended before the deadline and on no limit (time, nodes or
  /// solutions): only then do optimality and infeasibility count.
  bool finished = false;
  /// The search stopped on a node or solution limit before the deadline and
  /// not on its time limit: the answer depends on the model alone (solved
  /// again it would be the same), but it proves nothing.
  bool stoppedOnLimit = false;
  bool optimal = false;
  bool infeasible = false;
  /// A lower bound on every solution's objective, if CBC's counts.
  std::optional<double> bound;
};

/// The rule: optimality and infeasibility count only from a finished search
/// (not stopped on its time, node or solution limit, and returned before the
/// deadline); a search stopped on a node or solution limit left nodes open,
/// so it is no proof even where CBC's status would say so. CBC's
/// best possible objective counts from a finished search; from one that was
/// not, only when it lies strictly below the best known objective (by a
/// relative 1e-6), so that it never closes the gap by itself: cut short at
/// the root CBC reported 2.9e12 on gpt_l2 against a cutoff of 2.1, and a
/// bound at the cutoff itself (the cutoff plus CBC's 1e-6 tolerance) is what
/// an LP cut short and taken as closed leaves. Values that are not finite or
/// of magnitude 1e40 and above never count.
CbcClaims acceptCbcAnswer(const CbcAnswer &answer);

/// A MILP row by row, as `milpOptimal` builds it before handing it to CBC:
/// column bounds, objective and integrality, and each row's coefficients
/// (`rowCol`/`rowVal` from `rowStart[r]` to `rowStart[r + 1]`) and range.
struct MilpRows {
  std::vector<double> colLb, colUb, colObj;
  std::vector<char> colInt;
  std::vector<int> rowStart{0}, rowCol;
  std::vector<double> rowVal, rowLb, rowUb;
};

/// The objective of the point `x` (`cols` values) if it is a solution of
/// `model`: as many values as columns, integral (within 1e-6) where the
/// column is, within the column bounds and every row's range (within 1e-6
/// relative to the bound). None otherwise. `milpOptimal` keeps only such
/// points of the ones CBC reports as it finds them: at an event the model's
/// bestSolution() is not always the solution reported (a point with a
/// binary at 0.5 and a row violated by 1 was seen), and such a point must
/// not displace CBC's result or be lowered to a plan.
std::optional<double> solutionObjective(const MilpRows &model, const double *x,
                                        int cols);

/// A lower bound on a plan's recompute cost, a sum of node costs (`costs`,
/// each counted once per execution): when every cost is a whole number
/// (below 2^52), so is every plan's recompute cost, and a bound proves the
/// next whole number at or above it. The bound is first lowered by a
/// relative 1e-9, so that one a floating-point sum put a hair above a whole
/// optimum is not rounded past it. Otherwise `bound` unchanged.
double wholeCostBound(const std::vector<double> &costs, double bound);

/// A bound within this fraction of the best plan's recompute is retried
/// with more time (`milpBoundRetrySeconds`).
/// 5% (milp20; 1% before): VGG U-Net at 0.4 of store-all, whose bound
/// ends at 43.05% of the forward within 2 s under load against a plan of
/// 44.78%, reaches 43.97% given 10 s, and the plan that bound's interval
/// solution lowers to is 43.97%.
constexpr double kMilpBoundRetryGap = 0.05;
/// The share of the time limit the retried bound gets.
constexpr double kMilpBoundRetryShare = 1.0 / 6;

/// The seconds `milpOptimal` gives LowerBound a second time when its first
/// bound (`bound`, after `firstSeconds`) falls short of the best plan's
/// recompute (`plan`) by at most kMilpBoundRetryGap of the plan and was cut
/// short (`cutShort`, `LowerBound::cutShort`): the time limit's
/// kMilpBoundRetryShare, at most `secondsLeft`; 0 (no retry) when the bound
/// meets the plan, is farther from it, finished within its time (more time
/// gives the same bound), or the retry would not get more time than the
/// first call. The bound's joint exact program is a
/// branch and bound cut short by its time limit: at 0.4 of store-all on
/// gpt_l2 it ends at 10,313,728 flops within 2 s and at the plan's
/// 10,317,824 (a proof) within 8 s (milp19, bench/milp-results.md).
double milpBoundRetrySeconds(double timeLimitSeconds, double secondsLeft,
                             double firstSeconds, double bound, double plan,
                             bool cutShort);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_MILPCLAIMS_H
