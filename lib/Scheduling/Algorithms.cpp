//===- Algorithms.cpp - The planner's strategies --------------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Algorithms.h"

#include "remat/Scheduling/BudgetSearch.h"
#include "remat/Scheduling/Chain.h"
#include "remat/Scheduling/ChainOptimal.h"
#include "remat/Scheduling/ForwardOnly.h"
#include "remat/Scheduling/KeptSetSearch.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/MinCut.h"
#include "remat/Scheduling/Phases.h"
#include "remat/Scheduling/Revolve.h"
#include "remat/Scheduling/StepProgram.h"
#include "remat/Scheduling/Strategies.h"
#include "remat/Scheduling/WindowLowering.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/DebugLog.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#define DEBUG_TYPE "remat-planner"

using namespace remat;
using namespace remat::sched;
namespace names = remat::sched::strategy;

//===----------------------------------------------------------------------===//
// PlanCache and PlanRequest
//===----------------------------------------------------------------------===//

const PlanCache::Entry &PlanCache::get(llvm::StringRef algorithm,
                                       llvm::StringRef parameter,
                                       llvm::function_ref<Entry()> compute) {
  std::string key = (algorithm + "(" + parameter + ")").str();
  auto it = entries.find(key);
  if (it != entries.end())
    return it->second;
  ++runs[algorithm.str()];
  Entry entry = compute();
  LDBG() << "ran " << key << ": "
         << (entry.error ? "declined: " + *entry.error
                         : std::to_string(entry.plans.size()) + " plan(s)");
  return entries.emplace(std::move(key), std::move(entry)).first->second;
}

void PlanRequest::note(llvm::Error err) {
  std::string message = llvm::toString(std::move(err));
  if (!message.empty())
    notes.push_back(std::move(message));
}

/// The one plan of `entry`, or its error.
static llvm::Expected<PlanResult> single(const PlanCache::Entry &entry) {
  if (entry.error || entry.plans.empty())
    return llvm::createStringError(entry.error ? *entry.error : "no plan");
  return entry.plans.front();
}

/// An error with `message` (empty: a decline without a note).
static llvm::Error decline(std::string message) {
  return llvm::createStringError(std::move(message));
}

//===----------------------------------------------------------------------===//
// The algorithms, memoized
//===----------------------------------------------------------------------===//

template <typename Fn> static double timed(Fn &&fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Stage limit of the chain dynamic program (O(L^3 S) time): longer chains
/// are coarsened to this many stages first.
static constexpr unsigned kMaxDPStages = 100;

/// Graphs up to this many ops get the exact MILP plan among auto's
/// candidates (CBC proves such graphs optimal in well under a second).
static constexpr unsigned kAutoMilpMaxOps = 32;

/// Wall-time limit of the exact MILP among `auto`'s candidates (the user's
/// `time-limit=` when smaller).
static constexpr double kAutoMilpSeconds = 10;

/// Lowerings and simulations `auto`'s relaxation to the budget
/// (`relaxToBudget`) may spend, times the graph's size (nodes + operand
/// references): about 10^8 node and operand visits (a few seconds), clamped
/// to 100 .. 4,000 evaluations (graphs of size up to 2.5 * 10^4 keep all
/// 4,000, among them every example and bench/graphs model). Each evaluation
/// is linear in the size, so on larger graphs the relaxation is about
/// constant work instead of 4,000 passes over the graph.
static constexpr double kRelaxWork = 1e8;

/// Lowerings and simulations `auto`'s local search within the budget
/// (`searchWithinBudget`) may spend, times the graph's size (nodes + operand
/// references): about 10^7 node and operand visits (0.4-0.5 s per planned op
/// order on the 1,562-op GPT and the 4,082-op one, 2 loaded cores), clamped
/// to 100 .. 2,000 evaluations.
static constexpr double kBudgetSearchWork = 1e7;

/// Budgets (fractions of store-all's peak) at which the frontier collects
/// the budget-specific plans.
static constexpr double kFrontierBudgets[] = {0.2, 0.3, 0.4, 0.5,
                                              0.6, 0.7, 0.8, 0.9};

/// An entry of one schedule builder's plan (evaluatePlan); a malformed
/// schedule declines with "<name>: <simulate's message>".
static PlanCache::Entry evaluateEntry(const Graph &graph, llvm::StringRef name,
                                      std::string detail,
                                      const ScheduleBuilder &builder) {
  PlanCache::Entry entry;
  llvm::Expected<PlanResult> plan =
      evaluatePlan(graph, name.str(), std::move(detail), builder);
  if (plan)
    entry.plans.push_back(std::move(*plan));
  else
    entry.error = name.str() + ": " + llvm::toString(plan.takeError());
  return entry;
}

/// An entry of a chain strategy's plan; declines (with a note "<name>: ...")
/// when the strategy declined the graph or its schedule is malformed.
static PlanCache::Entry chainEntry(const Graph &graph, llvm::StringRef name,
                                   ChainPlan chain, double seconds) {
  PlanCache::Entry entry;
  if (!chain.ok) {
    entry.error = name.str() + ": " + chain.detail;
    return entry;
  }
  PlanResult plan;
  plan.strategy = name.str();
  plan.detail = chain.detail;
  plan.schedule = std::move(chain.schedule);
  plan.planSeconds = seconds;
  if (std::optional<std::string> err =
          simulate(graph, plan.schedule, plan.sim)) {
    entry.error = name.str() + ": invalid schedule: " + *err;
    return entry;
  }
  entry.plans.push_back(std::move(plan));
  return entry;
}

llvm::Expected<PlanResult> sched::storeAllPlan(PlanRequest &request) {
  const Graph &graph = request.getGraph();
  return single(request.getCache().get(names::kStoreAll, "", [&] {
    return evaluateEntry(graph, names::kStoreAll, "", storeAll);
  }));
}

static llvm::Expected<PlanResult> sqrtPlan(PlanRequest &request) {
  const Graph &graph = request.getGraph();
  return single(request.getCache().get(names::kSqrt, "", [&] {
    return evaluateEntry(graph, names::kSqrt,
                         "segments=" + std::to_string(sqrtNSegments(graph)),
                         sqrtN);
  }));
}

/// Chen's search over the threshold; the entry's parameter is the threshold.
static const PlanCache::Entry &greedySearchEntry(PlanRequest &request) {
  const Graph &graph = request.getGraph();
  return request.getCache().get("greedy-search", "", [&] {
    PlanCache::Entry entry;
    PlanResult p;
    GreedySearchResult r;
    p.planSeconds = timed([&] { r = sched::greedySearch(graph); });
    p.strategy = names::kGreedy.str();
    p.detail = "threshold=" + std::to_string(r.threshold) + " (searched " +
               std::to_string(r.tried) + ")";
    p.schedule = std::move(r.schedule);
    p.sim = r.sim;
    entry.parameters.push_back(r.threshold);
    entry.plans.push_back(std::move(p));
    return entry;
  });
}

static llvm::Expected<PlanResult> greedyPlan(PlanRequest &request,
                                             int64_t threshold) {
  const Graph &graph = request.getGraph();
  std::string detail = "threshold=" + std::to_string(threshold);
  return single(request.getCache().get(names::kGreedy, detail, [&] {
    return evaluateEntry(
        graph, names::kGreedy, detail,
        [threshold](const Graph &g) { return greedy(g, threshold); });
  }));
}

/// Store-all, sqrt(n), greedy at every threshold of `greedyThresholdGrid`
/// and the search's optimum if it lies off the grid: the heuristic plans the
/// budget driver always has (and the MILP's warm starts). Malformed plans
/// are left out without a note.
static std::vector<PlanResult> heuristicPlans(PlanRequest &request) {
  const Graph &graph = request.getGraph();
  std::vector<PlanResult> plans;
  auto add = [&](llvm::Expected<PlanResult> p) {
    if (p)
      plans.push_back(std::move(*p));
    else
      llvm::consumeError(p.takeError());
  };
  add(storeAllPlan(request));
  add(sqrtPlan(request));
  // Every threshold of the grid at once (greedyPlans shares the work that
  // does not depend on the threshold).
  const PlanCache::Entry &grid =
      request.getCache().get("greedy-grid", "", [&] {
        PlanCache::Entry entry;
        entry.parameters = greedyThresholdGrid(graph);
        for (std::optional<PlanResult> &p : greedyPlans(graph, entry.parameters))
          if (p)
            entry.plans.push_back(std::move(*p));
        return entry;
      });
  const std::vector<int64_t> &thresholds = grid.parameters;
  llvm::append_range(plans, grid.plans);
  const PlanCache::Entry &search = greedySearchEntry(request);
  int64_t searched = search.parameters.front();
  if (!std::binary_search(thresholds.begin(), thresholds.end(), searched)) {
    PlanResult p = search.plans.front();
    p.detail = "threshold=" + std::to_string(searched);
    plans.push_back(std::move(p));
  }
  return plans;
}

static llvm::Expected<PlanResult> logNPlan(PlanRequest &request) {
  const Graph &graph = request.getGraph();
  return single(request.getCache().get(names::kLogN, "", [&] {
    ChainPlan chain;
    double s = timed([&] { chain = logN(graph); });
    return chainEntry(graph, names::kLogN, std::move(chain), s);
  }));
}

/// The number of stages of the graph's stage chain (at least 1).
static unsigned numStages(PlanRequest &request) {
  const Graph &graph = request.getGraph();
  return request.getCache()
      .get("stage-chain", "",
           [&] {
             PlanCache::Entry entry;
             entry.parameters.push_back(
                 std::max<size_t>(1, buildStageChain(graph).stages.size()));
             return entry;
           })
      .parameters.front();
}

static llvm::Expected<PlanResult> revolvePlan(PlanRequest &request,
                                              unsigned slots) {
  const Graph &graph = request.getGraph();
  return single(request.getCache().get(
      names::kRevolve, "c=" + std::to_string(slots), [&] {
        ChainPlan chain;
        double s = timed([&] { chain = revolve(graph, slots); });
        return chainEntry(graph, names::kRevolve, std::move(chain), s);
      }));
}

/// Revolve with ceil(sqrt(#stages)) slots.
static llvm::Expected<PlanResult> revolveDefaultPlan(PlanRequest &request) {
  unsigned c = std::max<unsigned>(
      1,
      static_cast<unsigned>(std::ceil(std::sqrt(double(numStages(request))))));
  return revolvePlan(request, c);
}

/// Revolve with the most slots whose peak fits `budget` (fewest
/// recomputations among the Revolve plans that fit), by bisection over the
/// slot count; if none fits, Revolve's smallest peak (one slot). When Revolve
/// declines the graph, its message is a note (and the error if no plan was
/// found before).
static llvm::Expected<PlanResult> revolveForBudget(PlanRequest &request,
                                                   int64_t budget) {
  std::optional<PlanResult> best;
  unsigned lo = 1, hi = numStages(request);
  while (lo <= hi) {
    unsigned mid = lo + (hi - lo) / 2;
    llvm::Expected<PlanResult> p = revolvePlan(request, mid);
    if (!p) {
      if (!best)
        return p.takeError();
      request.note(p.takeError());
      return std::move(*best);
    }
    if (p->sim.peakBytes <= budget) {
      best = std::move(*p);
      lo = mid + 1;
    } else {
      if (mid == 1) {
        if (!best)
          best = std::move(*p); // Smallest Revolve peak, reported if nothing
                                // fits.
        break;
      }
      hi = mid - 1;
    }
  }
  if (!best)
    return decline("");
  return std::move(*best);
}

static llvm::Expected<PlanResult> chainOptPlan(PlanRequest &request,
                                               int64_t budget) {
  const Graph &graph = request.getGraph();
  unsigned dpSlots = request.getOptions().dpSlots;
  return single(request.getCache().get(
      names::kChainOpt,
      "budget=" + std::to_string(budget) + ",slots=" + std::to_string(dpSlots),
      [&] {
        ChainPlan chain;
        ChainOptimalOptions opts;
        opts.slots = dpSlots;
        opts.maxStages = kMaxDPStages;
        double s = timed([&] { chain = chainOptimal(graph, budget, opts); });
        return chainEntry(graph, names::kChainOpt, std::move(chain), s);
      }));
}

/// The chain model's least-memory plan: the dynamic program at the smallest
/// budget it reports feasible. Declines like chainOptimal (and without a note
/// when every budget is feasible).
static llvm::Expected<PlanResult> chainMinMemoryPlan(PlanRequest &request) {
  const Graph &graph = request.getGraph();
  unsigned dpSlots = request.getOptions().dpSlots;
  return single(request.getCache().get(
      "chain-opt-min-memory", "slots=" + std::to_string(dpSlots), [&] {
        PlanCache::Entry entry;
        ChainOptimalOptions opts;
        opts.slots = dpSlots;
        opts.maxStages = kMaxDPStages;
        ChainPlan probe;
        double s = timed([&] { probe = chainOptimal(graph, 0, opts); });
        if (probe.ok || !probe.infeasible || !probe.minFeasibleBytes) {
          entry.error = probe.ok ? std::string()
                                 : "chain-opt (least memory): " + probe.detail;
          return entry;
        }
        ChainPlan chain;
        s += timed([&] {
          chain = chainOptimal(graph, *probe.minFeasibleBytes, opts);
        });
        entry = chainEntry(graph, names::kChainOpt, std::move(chain), s);
        if (!entry.error)
          entry.plans.front().detail =
              "least memory; " + entry.plans.front().detail;
        return entry;
      }));
}

/// The cache parameter of the searches at `searchWork` (empty at the
/// default scale).
static std::string workParameter(double searchWork) {
  return searchWork == 1 ? std::string()
                         : "work=" + std::to_string(searchWork);
}

/// Every plan of the min-cut sweep (MinCut.h), as "mincut" plans.
static const std::vector<PlanResult> &minCutPlans(PlanRequest &request) {
  const Graph &graph = request.getGraph();
  double searchWork = request.getOptions().searchWork;
  return request.getCache()
      .get(names::kMinCut, workParameter(searchWork),
           [&] {
             PlanCache::Entry entry;
             std::vector<MinCutPlan> sweep;
             double seconds =
                 timed([&] { sweep = minCutSweep(graph, searchWork); });
             for (MinCutPlan &m : sweep) {
               PlanResult p;
               p.strategy = names::kMinCut.str();
               p.detail = std::move(m.detail);
               p.schedule = std::move(m.schedule);
               p.sim = m.sim;
               p.planSeconds = seconds / std::max<size_t>(1, sweep.size());
               entry.plans.push_back(std::move(p));
             }
             return entry;
           })
      .plans;
}

/// The exact MILP (CBC) within `seconds` of wall time in all, warm-started
/// from the cheapest of `heuristics` within the budget (the least peak
/// without one): with a budget the least recompute within it, without one
/// the least peak. When the budget is proved infeasible (or no plan is found
/// in time), the least-peak plan is tried with the time left, so that an
/// error can name the smallest budget; the first attempt's message is then
/// added to `notes`. Not memoized: the result depends on the warm start and
/// the time limit.
static llvm::Expected<PlanResult>
milpPlan(PlanRequest &request, int64_t budget, double seconds,
         const std::vector<PlanResult> &heuristics,
         std::vector<std::string> &notes) {
  const Graph &graph = request.getGraph();
  auto pick = [&](int64_t limit) -> const Schedule * {
    const PlanResult *best = nullptr;
    for (const PlanResult &p : heuristics) {
      if (!p.order.empty()) // Planned in another op order.
        continue;
      if (limit > 0 ? p.sim.peakBytes > limit
                    : best && p.sim.peakBytes > best->sim.peakBytes)
        continue;
      if (!best || (limit <= 0 && p.sim.peakBytes < best->sim.peakBytes) ||
          p.sim.recomputeCost < best->sim.recomputeCost)
        best = &p;
    }
    return best ? &best->schedule : nullptr;
  };
  auto start = std::chrono::steady_clock::now();
  std::string note;
  request.getCache().countRun(names::kMilp);
  // Above the size solved whole, a budget no candidate meets is repaired
  // from the least-peak candidate (MilpLarge.h), so that one is passed.
  const Schedule *warm = pick(budget);
  if (!warm && budget > 0 && graph.size() > kMilpMaxNodes)
    warm = pick(0);
  std::optional<PlanResult> p = milpOptimal(graph, budget, seconds, note, warm);
  if (!p && budget > 0) {
    notes.push_back(note);
    double left = seconds - std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count();
    if (left > 0.05) {
      request.getCache().countRun(names::kMilp);
      p = milpOptimal(graph, 0, left, note, pick(0));
    }
  }
  if (!p)
    return decline(note);
  return std::move(*p);
}

//===----------------------------------------------------------------------===//
// Candidate sets
//===----------------------------------------------------------------------===//

/// The forward-only least-peak search (ForwardOnly.h) at `budget`.
PlanResult sched::forwardMinPeakPlan(PlanRequest &request, int64_t budget) {
  const Graph &graph = request.getGraph();
  return request.getCache()
      .get(names::kForwardMinPeak, "budget=" + std::to_string(budget),
           [&] {
             PlanCache::Entry entry;
             entry.plans.push_back(forwardOnlyMinPeak(graph, budget));
             return entry;
           })
      .plans.front();
}

/// The training-step strategies `planAllStrategies` runs (for the note on a
/// forward-only graph).
static constexpr llvm::StringLiteral kTrainingStrategies[] = {
    names::kSqrt, names::kGreedy, names::kLogN, names::kRevolve,
    names::kChainOpt};

/// planAllInOrder on a forward-only graph: store-all and the least-peak
/// search; the training-step strategies are declined in the notes.
static std::vector<PlanResult> planAllForwardOnly(PlanRequest &request) {
  std::vector<PlanResult> plans;
  if (llvm::Expected<PlanResult> p = storeAllPlan(request))
    plans.push_back(std::move(*p));
  else
    request.note(p.takeError());
  plans.push_back(forwardMinPeakPlan(request, 0));
  std::string list;
  for (llvm::StringRef name : kTrainingStrategies)
    list += (list.empty() ? "" : ", ") + name.str();
  request.notes.push_back(list + ": need a training step (forward and "
                                 "backward ops); the graph is forward-only");
  return plans;
}

/// Appends the chain strategies' default plans to `plans`: logn, Revolve
/// with sqrt(#stages) slots, the chain optimum at the memory of `sqrt` (if
/// given) and the chain model's least-memory plan; declines become notes.
static void appendChainPlans(PlanRequest &request,
                             const std::optional<int64_t> &sqrtPeak,
                             std::vector<PlanResult> &plans) {
  auto add = [&](llvm::Expected<PlanResult> p) {
    if (p)
      plans.push_back(std::move(*p));
    else
      request.note(p.takeError());
  };
  add(logNPlan(request));
  add(revolveDefaultPlan(request));
  // The heterogeneous-chain optimum at the memory of the sqrt(n) plan: the
  // least recompute that memory allows in the chain model.
  if (sqrtPeak)
    add(chainOptPlan(request, *sqrtPeak));
  add(chainMinMemoryPlan(request));
}

/// Step evaluations of the lower bound whose cut seeds `auto`'s search
/// within the budget, times the graph's size (nodes + operand references),
/// clamped to 64 .. 4,000 evaluations: on an idle machine the seeds add
/// 0.8 s (578-op ResNet-18) to 3.7 s (4,082-op GPT-32) to a plan, and give
/// the plans that the bound's former 1 s time limit gave there.
static constexpr double kCutSeedWork = 3e6;

/// Extra branch-and-bound splits at the lower bound's best step for a
/// cheaper cut there (`LowerBoundOptions::cutSplits`), times the graph's
/// size, clamped to 16 .. 256 splits: the multiplier search often leaves a
/// poor cut within the cap (MobileNetV2 at 0.5: 5.58% of the forward against
/// a bound of 3.97%, where 250 more splits find a cut of 3.97%), and a
/// split costs two cut problems of the graph's size.
static constexpr double kCutSplitWork = 1e6;

/// Split nodes of the exact step program (StepProgram.h) at the seeding
/// bound's best step (`LowerBoundOptions::exactStepNodes`), a deterministic
/// limit: the knapsack row's branch and bound often leaves a dearer cut than
/// the step's integer optimum (GPT-32 at 0.6 of store-all: 0.605% of the
/// forward against 0.530%), and auto only searches from the cuts it gets.
static constexpr unsigned kCutSeedExactNodes = 30;

/// The share of `kCutSeedWork` the lower bound gets whose cut seeds the
/// search with late forward values droppable (`lateForwardCandidates`).
static constexpr double kLateCutSeedShare = 0.5;

/// Seeds of `auto`'s local search within the budget from the recompute
/// lower bound's cut at its best step (LowerBound.h, `cutRecomputed`): the
/// values the cut recomputes dropped, once recomputed once and once
/// recomputed before each reader. The cut fits the budget at its own step
/// only; `searchWithinBudget` makes the seeds fit everywhere first. None
/// without a cut (no step's cut gives the bound, or no time for it).
static std::vector<KeptSeed> boundCutSeeds(const Graph &graph,
                                           const PlannerOptions &options,
                                           bool cutSplits,
                                           LowerBound *bound = nullptr) {
  if (options.budgetSearchCutSeconds <= 0)
    return {};
  // A fixed number of step evaluations for the graph's size (about a second
  // on an idle machine), so that the cut, and so the plan, does not depend
  // on the machine's speed or load; the seconds are only a safety cap.
  size_t size = graph.workSize();
  LowerBoundOptions boundOptions;
  boundOptions.timeLimitSeconds = options.budgetSearchCutSeconds;
  // Only the cut seeds the search: the count disjunction raises bounds, not
  // cuts, and would only spend the seed's time.
  boundOptions.cardinality = false;
  boundOptions.maxEvaluations = static_cast<unsigned>(std::max(
      4.0, std::clamp(kCutSeedWork / double(std::max<size_t>(size, 1)), 64.0,
                      4000.0) *
               options.searchWork));
  boundOptions.exactSteps = 1;
  boundOptions.exactStepNodes = static_cast<unsigned>(
      std::max(1.0, kCutSeedExactNodes * options.searchWork));
  if (cutSplits)
    boundOptions.cutSplits = static_cast<unsigned>(
        std::clamp(kCutSplitWork / double(std::max<size_t>(size, 1)), 16.0,
                   256.0) *
        options.searchWork);
  LowerBound lb = recomputeLowerBound(graph, options.budget, boundOptions);
  if (bound)
    *bound = lb;
  if (lb.infeasible || lb.cutRecomputed.empty())
    return {};
  KeptChoice dropped{std::vector<bool>(graph.size(), true),
                     std::vector<bool>(graph.size(), false)};
  for (unsigned v : lb.cutRecomputed)
    dropped.kept[v] = false;
  std::string detail = "the lower bound's cut at step " +
                       std::to_string(lb.step) + " (" +
                       std::to_string(lb.cutRecomputed.size()) + " values";
  std::vector<KeptSeed> seeds;
  seeds.push_back({dropped, std::string(strategy::kMinCut),
                   detail + " recomputed once)"});
  for (unsigned v : lb.cutRecomputed)
    dropped.refresh[v] = true;
  seeds.push_back({std::move(dropped), std::string(strategy::kMinCut),
                   detail + " recomputed before each reader)"});
  // So does the cut the final one replaced (LowerBound::previousCut).
  if (options.budgetSearchPreviousCut && !lb.previousCut.empty()) {
    KeptChoice previous{std::vector<bool>(graph.size(), true),
                        std::vector<bool>(graph.size(), false)};
    for (unsigned v : lb.previousCut)
      previous.kept[v] = false;
    seeds.push_back({std::move(previous), std::string(strategy::kMinCut),
                     "the lower bound's cut before its last (" +
                         std::to_string(lb.previousCut.size()) +
                         " values recomputed once)"});
  }
  // So does the exact step program's cheaper cut there.
  if (!lb.exactCut.empty()) {
    KeptChoice exactCut{std::vector<bool>(graph.size(), true),
                        std::vector<bool>(graph.size(), false)};
    for (unsigned v : lb.exactCut)
      exactCut.kept[v] = false;
    seeds.push_back({std::move(exactCut), std::string(strategy::kMinCut),
                     "the exact step program's cut (" +
                         std::to_string(lb.exactCut.size()) +
                         " values recomputed once)"});
  }
  // The cut the extra splits improved on seeds too: a cheaper cut at one
  // step is not always the better start (MobileNetV2 at 0.8).
  if (!lb.cutBeforeSplits.empty()) {
    KeptChoice before{std::vector<bool>(graph.size(), true),
                      std::vector<bool>(graph.size(), false)};
    for (unsigned v : lb.cutBeforeSplits)
      before.kept[v] = false;
    seeds.push_back({std::move(before), std::string(strategy::kMinCut),
                     "the lower bound's cut at step " +
                         std::to_string(lb.step) +
                         " before its extra splits (" +
                         std::to_string(lb.cutBeforeSplits.size()) +
                         " values recomputed once)"});
  }
  return seeds;
}

/// `auto` lowers interval programs by windows (`windowPlanCandidate`) when
/// its cheapest plan within the budget is more than this fraction above
/// the seeds' lower bound: the target is 5% from the bound, and
/// elsewhere the programs would only spend time.
static constexpr double kWindowPlanGap = 0.05;

/// Branch-and-bound nodes of each interval program of `auto`'s window plan
/// while steps are added, and of the program of the steps whose lowering
/// fits, solved once more (`WindowPlanOptions::maxNodes`, `finalNodes`),
/// times `PlannerOptions::searchWork`: deterministic limits. On ResNet-50
/// at 0.5 of store-all (1,513 ops) they give a plan of 2.040% of the
/// forward (4 steps) in about 5 s of CPU (bench/bound-results.md, r50b).
static constexpr double kWindowPlanNodes = 3;
static constexpr double kWindowPlanFinalNodes = 30;

/// No step is added to the window plan's programs once a solution costs
/// more than this multiple of the cheapest plan within the budget
/// (`WindowPlanOptions::stopAboveCost`): on ResNet-50 at 0.4 of store-all
/// the program of 4 steps costs 9.58% of the forward against `auto`'s
/// 7.40%, and its 5-step successor fits at 9.63%: the row's plan takes
/// 4.7 s of CPU with the stop against 8.6 s without (bench/bound-results.md,
/// r50c); ResNet-50 0.5, where the window plan wins, keeps its 2.03%.
static constexpr double kWindowPlanStopFactor = 1.2;

/// Graphs above this many ops get no window plan: the programs grow with
/// the graph, and on the largest exported graph (GPT-32, 4,082 ops, whose
/// other plans take about 8 s) they took the plan to 17-27 s at load 3.5
/// and found nothing better.
static constexpr unsigned kWindowPlanMaxOps = 2000;

/// The safety cap of the window plan in units of
/// `PlannerOptions::budgetSearchCutSeconds`: on ResNet-50 at 0.5 its
/// programs take about 5.6 s of CPU.
static constexpr double kWindowPlanSecondsShare = 2;

/// ... and at most this share of `PlannerOptions::timeLimitSeconds`, which
/// `strategy=milp` sets to the user's `time-limit=` and whose warm starts
/// (these candidates) count against it: at `time-limit=3` the cap is 0.75 s,
/// not 10 s. `auto`'s default limit (60 s) leaves the cap above at 10 s.
static constexpr double kWindowPlanLimitShare = 0.25;

/// The schedule of interval programs lowered by windows (WindowLowering.h)
/// from the forward step whose cut to the end gives the seeds' bound its
/// highest value (the earliest of equal ones), else from that bound's step,
/// as a candidate of `auto` when its cheapest plan within the budget among
/// `candidates` is more than `kWindowPlanGap` above `bound` (or none fits).
/// None otherwise, without CLP, when no lowering fits, and above
/// `kWindowPlanMaxOps` ops; the planner turns it off for the forward-first
/// order of graphs with late forward ops (PlannerOptions::
/// budgetSearchWindows: the programs would run in both orders).
static std::optional<PlanResult>
windowPlanCandidate(const Graph &graph,
                    const std::vector<PlanResult> &candidates,
                    const PlannerOptions &options, const LowerBound &bound) {
  if (!options.budgetSearchWindows || options.budgetSearchCutSeconds <= 0 ||
      !stepProgramAvailable() || bound.infeasible || options.budget <= 0 ||
      graph.size() > kWindowPlanMaxOps)
    return std::nullopt;
  const PlanResult *cheapest = nullptr;
  for (const PlanResult &p : candidates)
    if (p.order.empty() && p.sim.peakBytes <= options.budget &&
        (!cheapest || p.sim.recomputeCost < cheapest->sim.recomputeCost))
      cheapest = &p;
  if (cheapest &&
      cheapest->sim.recomputeCost * (1 - kWindowPlanGap) <= bound.recomputeCost)
    return std::nullopt;
  // The first step: the forward step whose cut to the end bounds the
  // recompute highest (the earliest of equal ones: its first window is the
  // longest), else the bound's step. Nothing is dropped before it.
  unsigned backward = firstBackwardNode(graph), first = bound.step;
  double best = -1;
  for (const LowerBound::Range &r : bound.ranges)
    if (r.first > 0 && r.first - 1 < backward && r.last + 1 == graph.size() &&
        (r.cost > best || (r.cost == best && r.first - 1 < first))) {
      best = r.cost;
      first = r.first - 1;
    }
  if (first >= graph.size())
    return std::nullopt;
  WindowPlanOptions windowOptions;
  windowOptions.maxNodes = static_cast<unsigned>(
      std::max(1.0, kWindowPlanNodes * options.searchWork));
  windowOptions.finalNodes = static_cast<unsigned>(
      std::max(1.0, kWindowPlanFinalNodes * options.searchWork));
  windowOptions.seconds =
      std::min(kWindowPlanSecondsShare * options.budgetSearchCutSeconds,
               kWindowPlanLimitShare * options.timeLimitSeconds);
  if (cheapest)
    windowOptions.stopAboveCost =
        kWindowPlanStopFactor * cheapest->sim.recomputeCost;
  WindowPlanStats stats;
  auto start = std::chrono::steady_clock::now();
  std::optional<Schedule> schedule =
      intervalWindowPlan(graph, options.budget, first, windowOptions, &stats);
  if (!schedule)
    return std::nullopt;
  std::string detail = "an interval program of " +
                       std::to_string(stats.steps.size()) +
                       " steps lowered by windows";
  // The node limits decide the plan unless the safety cap ran out first.
  if (stats.timedOut)
    detail += llvm::formatv(" (its {0:F2} s time limit reached: the plan "
                            "depends on the machine's speed)",
                            windowOptions.seconds)
                  .str();
  llvm::Expected<PlanResult> p =
      evaluatePlan(graph, std::string(strategy::kMinCut), detail,
                   [&](const Graph &) { return std::move(*schedule); });
  if (!p) {
    llvm::consumeError(p.takeError());
    return std::nullopt;
  }
  p->planSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (p->sim.peakBytes > options.budget)
    return std::nullopt;
  return std::move(*p);
}

/// The refresh gaps (`BudgetSearchOptions::refreshGap`) of `auto`'s searches
/// within the budget (`searchWithinBudgetGaps`), each from the same starts
/// and seeds, every plan a candidate: 0 gives the better plans on small
/// graphs (resnet_n4 at 0.4 of store-all 29.6% recompute against 76.4% with
/// 8 alone), 8 on ResNet-50 (7.40% against 8.36% at 0.4), and neither is
/// known in advance.
static constexpr unsigned kAutoRefreshGaps[] = {0, 8};

/// The evaluations of one `searchWithinBudget` of `auto` on `graph`.
static BudgetSearchOptions autoBudgetSearch(const Graph &graph,
                                            const PlannerOptions &options) {
  size_t size = graph.workSize();
  BudgetSearchOptions search;
  search.refresh = search.chains = options.budgetSearchLargerMoves;
  search.maxEvaluations = static_cast<unsigned>(std::max(
      1.0, std::clamp(kBudgetSearchWork / double(std::max<size_t>(size, 1)),
                      100.0, 2000.0) *
               options.searchWork));
  return search;
}

std::vector<PlanResult> sched::planAllInOrder(PlanRequest &request) {
  if (request.getGraph().isForwardOnly())
    return planAllForwardOnly(request);
  std::vector<PlanResult> plans;
  if (llvm::Expected<PlanResult> p = storeAllPlan(request))
    plans.push_back(std::move(*p));
  else
    request.note(p.takeError());
  std::optional<int64_t> sqrtPeak;
  if (llvm::Expected<PlanResult> p = sqrtPlan(request)) {
    sqrtPeak = p->sim.peakBytes;
    plans.push_back(std::move(*p));
  } else {
    request.note(p.takeError());
  }
  plans.push_back(greedySearchEntry(request).plans.front());
  appendChainPlans(request, sqrtPeak, plans);
  // Min-cut: the least peak of the sweep, and its cheapest plan below
  // store-all (the cheap end of the frontier).
  const std::vector<PlanResult> &cuts = minCutPlans(request);
  const PlanResult *least = leastPeak(cuts);
  if (least)
    plans.push_back(*least);
  const PlanResult *cheapest = nullptr;
  for (const PlanResult &p : cuts)
    if (p.sim.peakBytes < plans.front().sim.peakBytes &&
        (!cheapest || p.sim.recomputeCost < cheapest->sim.recomputeCost))
      cheapest = &p;
  if (cheapest && cheapest != least)
    plans.push_back(*cheapest);
  return plans;
}

std::vector<PlanResult> sched::autoCandidates(PlanRequest &request) {
  const PlannerOptions &options = request.getOptions();
  std::vector<PlanResult> all = heuristicPlans(request);
  // The notes of store-all and sqrt as planAllInOrder gives them.
  std::optional<int64_t> sqrtPeak;
  if (llvm::Expected<PlanResult> p = storeAllPlan(request); !p)
    request.note(p.takeError());
  if (llvm::Expected<PlanResult> p = sqrtPlan(request))
    sqrtPeak = p->sim.peakBytes;
  else
    request.note(p.takeError());
  appendChainPlans(request, sqrtPeak, all);
  llvm::append_range(all, minCutPlans(request));
  if (options.budget > 0) {
    if (llvm::Expected<PlanResult> p =
            revolveForBudget(request, options.budget))
      all.push_back(std::move(*p));
    else
      request.note(p.takeError());
    if (llvm::Expected<PlanResult> p = chainOptPlan(request, options.budget))
      all.push_back(std::move(*p));
    else
      request.note(p.takeError());
    // The budget's slack spent on less recompute, from the cheapest plans
    // within it (KeptSetSearch.h).
    const Graph &graph = request.getGraph();
    size_t size = graph.workSize();
    double evaluations =
        std::clamp(kRelaxWork / double(std::max<size_t>(size, 1)), 100.0,
                   4000.0) *
        options.searchWork;
    llvm::append_range(
        all, relaxToBudget(graph, all, options.budget, /*maxStarts=*/8,
                           static_cast<unsigned>(std::max(1.0, evaluations))));
    // Less recompute within the budget: kept values traded against cheap
    // ones live at the peak (BudgetSearch.h), from the cheapest plans.
    if (options.budgetSearch) {
      LowerBound seedBound;
      std::vector<KeptSeed> seeds = boundCutSeeds(
          graph, options, options.budgetSearchCutSplits, &seedBound);
      llvm::append_range(
          all, searchWithinBudgetGaps(graph, all, options.budget,
                                      autoBudgetSearch(graph, options),
                                      kAutoRefreshGaps, seeds));
      // Interval programs lowered by windows where the plans stay far
      // from the bound.
      if (std::optional<PlanResult> p =
              windowPlanCandidate(graph, all, options, seedBound))
        all.push_back(std::move(*p));
    }
    // Small graphs: the exact optimum joins the candidates (the least
    // recompute within the budget, or the least peak when none fits), so
    // that auto is optimal where that can be proven.
    if (milpAvailable() && request.getGraph().size() <= kAutoMilpMaxOps) {
      std::vector<std::string> milpNotes;
      llvm::Expected<PlanResult> p = milpPlan(
          request, options.budget,
          std::min(options.timeLimitSeconds, kAutoMilpSeconds), all, milpNotes);
      if (p) {
        all.push_back(std::move(*p));
      } else {
        llvm::append_range(request.notes, milpNotes);
        request.note(p.takeError());
      }
    }
  }
  return all;
}

std::vector<PlanResult>
sched::lateForwardCandidates(const Graph &graph,
                             const std::vector<PlanResult> &candidates,
                             const PlannerOptions &options) {
  if (options.budget <= 0 || !options.budgetSearch ||
      lateForwardNodes(graph).empty())
    return {};
  // The pinned order's search had its own cut seeds: this bound gets half
  // their step evaluations, to keep auto within its time.
  PlannerOptions seedOptions = options;
  seedOptions.searchWork *= kLateCutSeedShare;
  std::vector<PlanResult> plans = searchWithinBudget(
      graph, candidates, options.budget, autoBudgetSearch(graph, options),
      boundCutSeeds(graph, seedOptions,
                    /*cutSplits=*/true));
  for (PlanResult &p : plans)
    p.detail += ", late forward values droppable";
  return plans;
}

std::vector<PlanResult> sched::frontierCandidates(PlanRequest &request) {
  int64_t storeAllPeak = 0;
  if (llvm::Expected<PlanResult> p = storeAllPlan(request))
    storeAllPeak = p->sim.peakBytes;
  else
    llvm::consumeError(p.takeError());
  PlannerOptions atBudget = request.getOptions();
  atBudget.budget = 0;
  PlanRequest unbounded(request.getCache(), atBudget);
  std::vector<PlanResult> all = autoCandidates(unbounded);
  llvm::append_range(request.notes, unbounded.notes);
  for (double f : kFrontierBudgets) {
    int64_t budget = std::max<int64_t>(1, f * storeAllPeak);
    if (llvm::Expected<PlanResult> p = revolveForBudget(unbounded, budget))
      all.push_back(std::move(*p));
    else
      llvm::consumeError(p.takeError());
    if (llvm::Expected<PlanResult> p = chainOptPlan(unbounded, budget))
      all.push_back(std::move(*p));
    else
      llvm::consumeError(p.takeError());
  }
  return all;
}

//===----------------------------------------------------------------------===//
// The strategies
//===----------------------------------------------------------------------===//

/// The one plan of `p` as a strategy's result.
static llvm::Expected<std::vector<PlanResult>>
one(llvm::Expected<PlanResult> p) {
  if (!p)
    return p.takeError();
  return std::vector<PlanResult>{std::move(*p)};
}

llvm::Expected<std::vector<PlanResult>> sched::planAuto(PlanRequest &request) {
  if (request.getGraph().isForwardOnly())
    return planForwardMinPeak(request);
  std::vector<PlanResult> candidates = autoCandidates(request);
  if (request.getOptions().maxRecomputePercent >= 0)
    // A recompute limit: the plans a budget brings too (frontier).
    llvm::append_range(candidates, frontierCandidates(request));
  return candidates;
}

llvm::Expected<std::vector<PlanResult>>
sched::planStoreAll(PlanRequest &request) {
  return one(storeAllPlan(request));
}

llvm::Expected<std::vector<PlanResult>> sched::planSqrt(PlanRequest &request) {
  return one(sqrtPlan(request));
}

llvm::Expected<std::vector<PlanResult>>
sched::planGreedy(PlanRequest &request) {
  if (int64_t t = request.getOptions().threshold; t > 0)
    return one(greedyPlan(request, t));
  return greedySearchEntry(request).plans;
}

llvm::Expected<std::vector<PlanResult>> sched::planLogN(PlanRequest &request) {
  return one(logNPlan(request));
}

llvm::Expected<std::vector<PlanResult>>
sched::planRevolve(PlanRequest &request) {
  const PlannerOptions &options = request.getOptions();
  if (options.slots > 0)
    return one(revolvePlan(request, options.slots));
  if (options.budget > 0)
    return one(revolveForBudget(request, options.budget));
  return one(revolveDefaultPlan(request));
}

llvm::Expected<std::vector<PlanResult>>
sched::planChainOpt(PlanRequest &request) {
  const PlannerOptions &options = request.getOptions();
  if (options.budget > 0)
    return one(chainOptPlan(request, options.budget));
  // Without a budget: the least recompute at the memory of sqrt(n); the
  // chain model's least-memory plan when that memory is below what the
  // model can meet.
  llvm::Expected<PlanResult> sqrtP = sqrtPlan(request);
  if (!sqrtP)
    return sqrtP.takeError();
  llvm::Expected<PlanResult> p = chainOptPlan(request, sqrtP->sim.peakBytes);
  if (p)
    return one(std::move(p));
  request.note(p.takeError());
  return one(chainMinMemoryPlan(request));
}

llvm::Expected<std::vector<PlanResult>>
sched::planForwardMinPeak(PlanRequest &request) {
  // Without a budget the search returns the least peak it finds; with a
  // budget it returns a plan within it, or (when it cannot meet it) again
  // the least peak, which is then the smallest budget it meets.
  return std::vector<PlanResult>{
      forwardMinPeakPlan(request, request.getOptions().budget)};
}

llvm::Expected<std::vector<PlanResult>> sched::planMilp(PlanRequest &request) {
  // Exact (CBC): with a budget the least recompute within it, without one
  // the least peak. When the budget is proved infeasible, the least-peak
  // plan becomes the candidate so that the error names the smallest budget.
  // Above the size it solves whole, the MILP searches windows of stages
  // inside a plan within the budget (MilpWindows.h): on training graphs
  // auto's candidates are then the warm starts, and their time counts
  // against the time limit.
  const PlannerOptions &options = request.getOptions();
  const Graph &graph = request.getGraph();
  double seconds = options.timeLimitSeconds, autoSeconds = -1;
  std::vector<PlanResult> starts;
  // Within a budget the warm starts are auto's candidates on training
  // graphs above kAutoMilpMaxOps (smaller ones: auto's candidates hold this
  // MILP's own plan), so that `milp` never returns a plan dearer than
  // auto's (examples/resnet_n4.mlir at 0.4 of store-all, 10 s: from the
  // heuristics' plans, none of which met the budget, 30.5% of the forward
  // against auto's 29.6%); where the caller planned them already
  // (PlanRequest::autoStarts), those, outside the MILP's time.
  if (request.autoStarts) {
    starts = *request.autoStarts;
  } else if (options.budget > 0 && graph.size() > kAutoMilpMaxOps &&
             !graph.isForwardOnly()) {
    autoSeconds = timed([&] { starts = autoCandidates(request); });
    seconds = std::max(0.01, seconds - autoSeconds);
  } else if (graph.size() > kMilpMaxNodes && !graph.isForwardOnly()) {
    // The least peak above the size solved whole descends from the
    // least-peak candidate (MilpLarge.h): the chain methods' least-memory
    // plans peak far below the heuristics' (mlp_d100: chain-opt 131,072 B,
    // logn 327,680 B, greedy 917,504 B).
    autoSeconds = timed([&] {
      starts = heuristicPlans(request);
      auto add = [&](llvm::Expected<PlanResult> p) {
        if (p)
          starts.push_back(std::move(*p));
        else
          llvm::consumeError(p.takeError());
      };
      add(logNPlan(request));
      add(chainMinMemoryPlan(request));
    });
    seconds = std::max(0.01, seconds - autoSeconds);
  } else {
    starts = heuristicPlans(request);
  }
  if (graph.isForwardOnly())
    starts.push_back(forwardMinPeakPlan(request, options.budget));
  llvm::Expected<PlanResult> p =
      milpPlan(request, options.budget, seconds, starts, request.notes);
  if (p && request.autoStarts)
    p->detail += "; warm starts: auto's candidates, planned before the MILP";
  else if (p && autoSeconds >= 0)
    p->detail += std::string("; warm starts: ") +
                 (options.budget > 0 ? "auto's candidates"
                                     : "the heuristics' and the chain "
                                       "methods' least-memory plans") +
                 ", planned in " + llvm::formatv("{0:F2}", autoSeconds).str() +
                 " s of the " +
                 llvm::formatv("{0:F2}", options.timeLimitSeconds).str() +
                 " s limit";
  return one(std::move(p));
}

llvm::Expected<std::vector<PlanResult>>
sched::planMinCut(PlanRequest &request) {
  return minCutPlans(request);
}
