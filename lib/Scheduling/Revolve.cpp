//===- Revolve.cpp - Griewank and Walther's binomial checkpointing --------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The binomial schedule. reverse(a, b, s) reverses steps a+1..b with the
/// state at a held in one of s available slots. With s = 1 every step k is
/// reached by advancing from a. Otherwise the schedule advances lhat steps,
/// stores that state, reverses the right part with s - 1 slots and then the
/// left part with s slots, so
///   forwards(l, s) = lhat + forwards(l - lhat, s - 1) + forwards(lhat, s).
/// t(., s) is convex and piecewise linear with slope r on
/// (beta(s, r-1), beta(s, r)]; the split is optimal when the left part lies
/// in the slope r-1 range and the right part in the slope r range of
/// t(., s-1):
///   beta(s, r-2) <= lhat <= beta(s, r-1),
///   beta(s-1, r-1) <= l - lhat <= beta(s-1, r).
/// These two ranges intersect because beta(s, r-1) + beta(s-1, r) =
/// beta(s, r) >= l and beta(s, r-2) + beta(s-1, r-1) = beta(s, r-1) < l; the
/// generator takes the largest lhat of the intersection.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Revolve.h"

#include <algorithm>
#include <limits>

using namespace remat::sched;

static constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

/// C(n, k), saturating.
static uint64_t binomial(uint64_t n, uint64_t k) {
  if (k > n)
    return 0;
  k = std::min(k, n - k);
  uint64_t result = 1;
  for (uint64_t i = 1; i <= k; ++i) {
    // result = C(n - k + i - 1, i - 1); next = result * (n - k + i) / i.
    uint64_t factor = n - k + i;
    if (result > kSaturated / factor)
      return kSaturated;
    result = result * factor / i;
  }
  return result;
}

uint64_t remat::sched::revolveBeta(unsigned s, int r) {
  if (r < 0)
    return 0;
  return binomial(static_cast<uint64_t>(s) + r, s);
}

uint64_t remat::sched::revolveMinForwards(uint64_t l, unsigned c) {
  if (l <= 1 || c == 0)
    return 0;
  int r = 0;
  while (revolveBeta(c, r) < l)
    ++r;
  return static_cast<uint64_t>(r) * l - revolveBeta(c + 1, r - 1);
}

namespace {
/// Receives the actions; stores them only if `out` is set.
struct Emitter {
  ChainSchedule *out = nullptr;
  uint64_t forwards = 0;

  void push(ChainAction action) {
    if (out)
      out->push_back(action);
  }
  void advance(unsigned from, unsigned to) {
    forwards += to - from;
    push(ChainAction::advance(from, to));
  }
};
} // namespace

/// The split point for l >= 2 steps and s >= 2 slots (see the file comment).
static unsigned splitPoint(unsigned l, unsigned s) {
  // Smallest r with beta(s, r) >= l (r >= 1 as beta(s, 0) = 1 < l).
  int r = 1;
  while (revolveBeta(s, r) < l)
    ++r;
  uint64_t upper =
      std::min<uint64_t>(revolveBeta(s, r - 1), l - revolveBeta(s - 1, r - 1));
  return static_cast<unsigned>(upper);
}

static void reverse(unsigned a, unsigned b, unsigned s, Emitter &emit) {
  while (true) {
    unsigned l = b - a;
    if (l == 1) {
      emit.push(ChainAction::tape(b));
      emit.push(ChainAction::backward(b));
      return;
    }
    if (s == 1) {
      for (unsigned k = b; k > a; --k) {
        if (k - 1 > a)
          emit.advance(a, k - 1);
        emit.push(ChainAction::tape(k));
        emit.push(ChainAction::backward(k));
      }
      return;
    }
    // More slots than steps are of no use.
    s = std::min(s, l);
    unsigned lhat = splitPoint(l, s);
    unsigned m = a + lhat;
    emit.advance(a, m);
    emit.push(ChainAction::checkpoint(m));
    reverse(m, b, s - 1, emit);
    emit.push(ChainAction::free(m));
    b = m;
  }
}

static void generate(unsigned l, unsigned c, Emitter &emit) {
  if (l == 0 || c == 0)
    return;
  emit.push(ChainAction::checkpoint(0));
  reverse(0, l, c, emit);
  emit.push(ChainAction::free(0));
}

ChainSchedule remat::sched::revolveSchedule(unsigned l, unsigned c) {
  ChainSchedule out;
  Emitter emit;
  emit.out = &out;
  generate(l, c, emit);
  return out;
}

uint64_t remat::sched::revolveScheduleForwards(unsigned l, unsigned c) {
  Emitter emit;
  generate(l, c, emit);
  return emit.forwards;
}

ChainPlan remat::sched::revolve(const Graph &graph, unsigned checkpoints) {
  std::string what = "revolve(c=" + std::to_string(checkpoints) + ")";
  std::vector<StageChain> chains = buildStageChains(graph);
  if (!chains.front().reversible) {
    ChainPlan plan;
    plan.detail =
        what + ": graph is not a reversible chain: " + chains.front().reason;
    return plan;
  }
  std::vector<ChainPlan> plans;
  for (const StageChain &chain : chains) {
    unsigned slots = std::min(checkpoints, chain.size()) + 1;
    plans.push_back(
        makeChainPlan(chain, revolveSchedule(chain.size(), slots), what));
  }
  return leastPeakChainPlan(graph, std::move(plans));
}
