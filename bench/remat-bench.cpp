//===- remat-bench.cpp - rematerialization strategy benchmark ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Runs every strategy on generated chains (n = 10 .. 10000) and on the
// training steps of the MLIR files given on the command line (forward models
// are differentiated first; functions marked remat.forward_only, such as the
// imported Moccasin DAGs, are planned as forward-only graphs), and prints
// Markdown tables: peak activation bytes against store-all (the baseline of the
// same run), recompute cost as a percentage of the forward, recomputed ops,
// planning time; and the scaling of the peak with depth for sqrt(n) and log(n).
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Dialect/Remat/Transforms/TrainingGraph.h"
#include "remat/Import/GraphImport.h"
#include "remat/InitAll.h"
#include "remat/Scheduling/ChainOptimal.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/MilpLarge.h"
#include "remat/Scheduling/MilpRounding.h"
#include "remat/Scheduling/Phases.h"
#include "remat/Scheduling/Planner.h"
#include "remat/Scheduling/Revolve.h"
#include "remat/Scheduling/Strategies.h"
#include "remat/Support/ToolOptions.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>
#include <cmath>
#include <random>
#include <tuple>

using namespace mlir;
using namespace remat;
using namespace remat::sched;

/// The options `--help` lists (remat/Support/ToolOptions.h).
static llvm::cl::OptionCategory benchCategory("remat-bench options");

static llvm::cl::list<std::string> inputFiles(llvm::cl::Positional,
                                              llvm::cl::desc("<model.mlir>..."),
                                              llvm::cl::cat(benchCategory));
static llvm::cl::opt<unsigned>
    maxChain("max-chain", llvm::cl::desc("Longest generated chain"),
             llvm::cl::init(10000), llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> noChains("no-chains",
                                    llvm::cl::desc("Skip generated chains"),
                                    llvm::cl::cat(benchCategory));
static llvm::cl::list<std::string> torchGraphs(
    "torch-graphs",
    llvm::cl::desc("Exported PyTorch graphs (python/remat_export, Checkmate "
                   "JSON with pytorch_saved): PyTorch's saved sets replayed "
                   "in remat's simulator against remat's frontier"),
    llvm::cl::CommaSeparated, llvm::cl::cat(benchCategory));
static llvm::cl::list<std::string> boundGraphs(
    "bound-graphs",
    llvm::cl::desc("Graphs (Checkmate JSON) planned by auto at budgets of "
                   "0.4 .. 0.9 of store-all, against the recompute lower "
                   "bound (LowerBound.h)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(benchCategory));
static llvm::cl::opt<double> boundSeconds(
    "bound-seconds",
    llvm::cl::desc("Time limit of the lower bound in --bound-graphs "
                   "(seconds)"),
    llvm::cl::init(LowerBoundOptions().timeLimitSeconds),
    llvm::cl::cat(benchCategory));
static llvm::cl::opt<unsigned> boundSplits(
    "bound-splits",
    llvm::cl::desc("Branch-and-bound splits per step of the lower bound in "
                   "--bound-graphs"),
    llvm::cl::init(LowerBoundOptions().maxSplits),
    llvm::cl::cat(benchCategory));
static llvm::cl::opt<unsigned> boundJointSteps(
    "bound-joint-steps",
    llvm::cl::desc("Steps of the joint LP in the lower bound of "
                   "--bound-graphs (LowerBoundOptions::jointSteps)"),
    llvm::cl::init(LowerBoundOptions().jointSteps),
    llvm::cl::cat(benchCategory));
static llvm::cl::opt<unsigned> boundJointExactSteps(
    "bound-joint-exact-steps",
    llvm::cl::desc("Steps of the joint exact program in the lower bound of "
                   "--bound-graphs (LowerBoundOptions::jointExactSteps; 4, "
                   "as in the bound the planner reports; 0: none)"),
    llvm::cl::init(4), llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> boundIntervalSteps(
    "bound-interval-steps",
    llvm::cl::desc("With --bound-joint-exact-steps, pay each window between "
                   "two joint steps for the values it executes "
                   "(LowerBoundOptions::intervalSteps)"),
    llvm::cl::init(LowerBoundOptions().intervalSteps),
    llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> boundJointOverflowSteps(
    "bound-joint-overflow-steps",
    llvm::cl::desc("With --bound-joint-exact-steps, add the step of the "
                   "largest overflow not yet in when the lowered cut peaks "
                   "at a step already in (LowerBoundOptions::"
                   "jointOverflowSteps)"),
    llvm::cl::init(LowerBoundOptions().jointOverflowSteps),
    llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> boundWindowPlans(
    "bound-window-plans",
    llvm::cl::desc("In --bound-graphs, let auto lower interval programs by "
                   "windows where its plans stay more than 5% above its "
                   "seeds' bound (PlannerOptions::budgetSearchWindows); "
                   "false: auto as before"),
    llvm::cl::init(PlannerOptions().budgetSearchWindows),
    llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> boundCardinality(
    "bound-cardinality",
    llvm::cl::desc("In --bound-graphs, bound the two sides of a disjunction "
                   "on how many values of a class of equal cost a step's cut "
                   "recomputes (LowerBoundOptions::cardinality)"),
    llvm::cl::init(true), llvm::cl::cat(benchCategory));
static llvm::cl::list<double> boundBudgets(
    "bound-budgets",
    llvm::cl::desc("Budgets of --bound-graphs and --budget-search-graphs as "
                   "fractions of store-all's peak (default "
                   "0.4,0.5,0.6,0.7,0.8,0.9)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(benchCategory));
static llvm::cl::opt<double> boundMilpTimeLimit(
    "bound-milp-time-limit",
    llvm::cl::desc("In --bound-graphs, also run the exact MILP (forward-first "
                   "order, graphs it accepts) with this time limit in "
                   "seconds, to tell a loose bound from a loose plan "
                   "(0: off)"),
    llvm::cl::init(0), llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> boundCompareRecomputeMemory(
    "bound-compare-recompute-memory",
    llvm::cl::desc("In --bound-graphs, also print the lower bound without "
                   "the memory of recomputations "
                   "(LowerBoundOptions::recomputeMemory off) and its gap"),
    llvm::cl::init(false), llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> boundCutPlan(
    "bound-cut-plan",
    llvm::cl::desc("In --bound-graphs, also lower the cut within the budget "
                   "that the bound found at its best step "
                   "(LowerBound::cutRecomputed) as a kept set, once with each "
                   "dropped value recomputed once and once with it "
                   "recomputed before each reader (lowerKeptSet), and print "
                   "the cut's cost and both plans' peak and recompute: a "
                   "plan near the bound within the budget says the planner "
                   "is the loose side"),
    llvm::cl::init(false), llvm::cl::cat(benchCategory));
static llvm::cl::list<std::string> budgetSearchGraphs(
    "budget-search-graphs",
    llvm::cl::desc("Graphs (Checkmate JSON) planned by auto at budgets of "
                   "0.4 .. 0.9 of store-all without its local search "
                   "within the budget (BudgetSearch.h), with its single-value "
                   "moves only, and with its larger changes too, against the "
                   "recompute lower bound"),
    llvm::cl::CommaSeparated, llvm::cl::cat(benchCategory));
static llvm::cl::opt<double> budgetSearchCutSeeds(
    "budget-search-cut-seeds",
    llvm::cl::desc("In --budget-search-graphs, compare auto without the "
                   "search, with it, and with it seeded by the lower bound's "
                   "cut computed in this many seconds "
                   "(PlannerOptions::budgetSearchCutSeconds), instead of the "
                   "single and larger moves; 0: off"),
    llvm::cl::init(0), llvm::cl::cat(benchCategory));

static llvm::cl::list<std::string> milpGraphs(
    "milp-graphs",
    llvm::cl::desc("Graphs (Checkmate JSON) on which the exact MILP is run "
                   "(or MLIR models) at budgets of 0.4 .. 0.9 of store-all's "
                   "peak: proven?, "
                   "gap, time, recompute against the dense (old) MILP and "
                   "auto"),
    llvm::cl::CommaSeparated, llvm::cl::cat(benchCategory));
static llvm::cl::opt<double>
    milpTimeLimit("milp-time-limit",
                  llvm::cl::desc("Time limit of each MILP solve in "
                                 "--milp-graphs (seconds)"),
                  llvm::cl::init(60), llvm::cl::cat(benchCategory));
static llvm::cl::list<double> milpBudgets(
    "milp-budgets",
    llvm::cl::desc("Budgets of --milp-graphs as fractions of store-all's "
                   "peak (default 0.4,0.5,...,0.9)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> milpCostFixing(
    "milp-cost-fixing",
    llvm::cl::desc("Fix recomputations dearer than the warm start to 0 in "
                   "the MILP of --milp-graphs (off by default)"),
    llvm::cl::init(false), llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> milpKnapsackRows(
    "milp-knapsack-rows",
    llvm::cl::desc("Restate each stage's memory row at its backward node as "
                   "a knapsack row over the keep binaries in the MILP of "
                   "--milp-graphs (on by default; training graphs only)"),
    llvm::cl::init(true), llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> milpTreeCuts(
    "milp-tree-cuts",
    llvm::cl::desc("With the knapsack rows, keep CBC's cuts in the "
                   "branch-and-bound tree on every model of --milp-graphs "
                   "(on by default; off: root only from 2,000 columns)"),
    llvm::cl::init(true), llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> milpRangeRows(
    "milp-range-rows",
    llvm::cl::desc("Add LowerBound's bounds on parts of the schedule as "
                   "rows of the MILP in --milp-graphs (stage rows)"),
    llvm::cl::init(false), llvm::cl::cat(benchCategory));
static llvm::cl::opt<std::string> milpDump(
    "milp-dump",
    llvm::cl::desc("Write the compact model CBC gets in --milp-graphs to this "
                   "file as MPS (each call overwrites it: the last pair's; "
                   "nothing when no whole-graph model reaches CBC)"),
    llvm::cl::value_desc("file"), llvm::cl::init(""),
    llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool>
    milpDense("milp-dense",
              llvm::cl::desc("Also run the dense (old) MILP in "
                             "--milp-graphs on graphs it accepts"),
              llvm::cl::init(true), llvm::cl::cat(benchCategory));

static llvm::cl::opt<bool> milpDetail(
    "milp-detail",
    llvm::cl::desc("Print each --milp-graphs plan's detail (how it was found "
                   "and proven; the case split's root cases, counts and "
                   "every leaf's ranges, bound and forced-late step) to "
                   "stderr"),
    llvm::cl::init(false), llvm::cl::cat(benchCategory));

static llvm::cl::opt<bool> milpRounding(
    "milp-rounding",
    llvm::cl::desc("Instead of the MILP rows of --milp-graphs, the LP "
                   "relaxation of the compact model and its rounding "
                   "(MilpRounding.h) within --milp-time-limit"),
    llvm::cl::init(false), llvm::cl::cat(benchCategory));
static llvm::cl::opt<bool> milpRoundingBarrier(
    "milp-rounding-barrier",
    llvm::cl::desc("--milp-rounding: solve the LP at the budget by CLP's "
                   "barrier instead of the dual simplex (it may run past "
                   "--milp-time-limit)"),
    llvm::cl::init(false), llvm::cl::cat(benchCategory));

static llvm::cl::opt<double> milpLargeLpShare(
    "milp-large-lp-share",
    llvm::cl::desc("The compact MILP column of --milp-graphs calls "
                   "milpLargePlan (MilpLarge.h) directly, with this "
                   "lpRoundingShare (0: the LP rounding off); negative: "
                   "milpOptimal as usual (the default)"),
    llvm::cl::init(-1), llvm::cl::cat(benchCategory));

/// A homogeneous training chain: forward layers f_1..f_n of `bytes` each
/// (f_i reads f_{i-1}), a loss, and the backward g_i = grad of layer i that
/// reads g_{i+1}, f_{i-1} and f_i (like tanh/matmul gradients).
static Graph makeChain(unsigned n, int64_t bytes) {
  Graph g;
  std::vector<unsigned> f(n + 1);
  for (unsigned i = 1; i <= n; ++i) {
    Node node;
    node.name = "f" + std::to_string(i);
    node.cost = 1;
    node.bytes = bytes;
    if (i > 1)
      node.operands = {f[i - 1]};
    f[i] = g.addNode(node);
  }
  Node loss;
  loss.name = "loss";
  loss.cost = 1;
  loss.bytes = 4;
  loss.operands = {f[n]};
  loss.output = true;
  unsigned prev = g.addNode(loss);
  for (unsigned i = n; i >= 1; --i) {
    Node node;
    node.name = "g" + std::to_string(i);
    node.cost = 2;
    node.bytes = bytes;
    node.backward = true;
    node.operands = {prev, f[i]};
    if (i > 1)
      node.operands.push_back(f[i - 1]);
    node.output = i == 1;
    prev = g.addNode(node);
  }
  g.inputBytes = bytes;
  return g;
}

/// Graphs up to this many ops also get the exact MILP plan (least peak),
/// the reference the heuristics are measured against.
static constexpr unsigned kMilpMaxOps = 32;

/// Appends the MILP's least-peak plan for small graphs (when CBC is built in).
static void addMilp(const Graph &graph, std::vector<PlanResult> &plans,
                    std::vector<std::string> &notes) {
  if (!milpAvailable() || graph.size() > kMilpMaxOps)
    return;
  std::string note;
  if (std::optional<PlanResult> p = milpOptimal(graph, 0, 30.0, note))
    plans.push_back(std::move(*p));
  else
    notes.push_back("milp: " + note);
}

static void printRows(llvm::StringRef name, const Graph &graph,
                      const std::vector<PlanResult> &plans,
                      const std::vector<std::string> &notes) {
  int64_t storeAll = plans.empty() ? 0 : plans.front().sim.peakBytes;
  double fwd = graph.forwardCost();
  for (const PlanResult &p : plans) {
    llvm::outs() << llvm::format(
        "| %s | %u | %s | %lld | %.3f | %.1f | %zu | %.2f |\n",
        name.str().c_str(), graph.size(), p.strategy.c_str(),
        static_cast<long long>(p.sim.peakBytes),
        storeAll ? double(p.sim.peakBytes) / storeAll : 1.0,
        fwd > 0 ? 100.0 * p.sim.recomputeCost / fwd : 0.0,
        p.sim.recomputeCount, p.planSeconds * 1e3);
  }
  for (const std::string &n : notes)
    llvm::outs() << "| " << name << " | " << graph.size()
                 << " | (declined) | | | | | " << n << " |\n";
}

static void tableHeader() {
  llvm::outs() << "| graph | ops | strategy | peak bytes | vs store-all | "
                  "recompute % of fwd | recomputed ops | plan ms |\n"
               << "|---|---|---|---|---|---|---|---|\n";
}

/// chain-opt at Revolve's simulated peak on the generated chains: the
/// recompute of both (ops), Revolve's closed form, and which candidate
/// chain-opt returned (the DP, or the binomial schedule on chains the DP sees
/// coarsened).
static void runChainVsRevolve() {
  const int64_t layer = 1 << 20;
  llvm::outs() << "## chain-opt against Revolve at Revolve's peak\n\n"
               << "chain-opt with the planner's settings (exact DP up to 100 "
                  "stages; longer chains coarsened for the DP, the binomial "
                  "schedule on the full chain competing).\n\n"
               << "| n | revolve checkpoints | peak (layers) | revolve "
                  "recomputed ops | t(L, c+1) | chain-opt recomputed ops | "
                  "chain-opt peak (layers) | chain-opt / revolve | chain-opt "
                  "ms | chain-opt plan |\n"
               << "|---|---|---|---|---|---|---|---|---|---|\n";
  ChainOptimalOptions options;
  options.maxStages = 100;
  for (unsigned n : {100u, 1000u, 10000u}) {
    if (n > maxChain)
      break;
    Graph g = makeChain(n, layer);
    unsigned stages = buildStageChain(g).size();
    for (unsigned c : {1u, 2u, 5u, 12u}) {
      ChainPlan rev = revolve(g, c);
      SimResult revSim;
      if (!rev.ok || simulate(g, rev.schedule, revSim))
        continue;
      auto start = std::chrono::steady_clock::now();
      ChainPlan opt = chainOptimal(g, revSim.peakBytes, options);
      double ms = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count() *
                  1e3;
      SimResult optSim;
      bool ok = opt.ok && !simulate(g, opt.schedule, optSim);
      std::string which =
          !ok ? "declined"
              : opt.detail.find("binomial") != std::string::npos ? "binomial"
                                                                 : "DP";
      llvm::outs() << llvm::format(
          "| %u | %u | %.0f | %zu | %llu | %s | %s | %s | %.0f | %s |\n", n, c,
          double(revSim.peakBytes) / layer, revSim.recomputeCount,
          static_cast<unsigned long long>(revolveMinForwards(stages, c + 1)),
          ok ? std::to_string(optSim.recomputeCount).c_str() : "-",
          ok ? llvm::formatv("{0:F0}", double(optSim.peakBytes) / layer)
                   .str()
                   .c_str()
             : "-",
          ok ? llvm::formatv("{0:F3}", double(optSim.recomputeCount) /
                                           double(revSim.recomputeCount))
                   .str()
                   .c_str()
             : "-",
          ms, which.c_str());
    }
  }
  llvm::outs() << "\n";
}

/// A random training graph like the unit tests' (`numForward` forward nodes
/// with up to 3 operands among earlier forward nodes, then `numBackward`
/// backward nodes reading any earlier nodes), sizes 1..100 B, costs 1..10.
static Graph makeRandomTrainingGraph(unsigned seed, unsigned numForward,
                                     unsigned numBackward) {
  std::mt19937 rng(seed);
  auto pick = [&](unsigned bound) {
    return std::uniform_int_distribution<unsigned>(0, bound - 1)(rng);
  };
  Graph g;
  for (unsigned i = 0, e = numForward + numBackward; i < e; ++i) {
    Node node;
    node.name = "n" + std::to_string(i);
    node.backward = i >= numForward;
    node.bytes = 1 + pick(100);
    node.cost = 1 + pick(10);
    node.output = i + 1 == e;
    if (i > 0)
      for (unsigned k = 0, numOps = 1 + pick(3); k < numOps; ++k)
        node.operands.push_back(pick(i));
    g.addNode(node);
  }
  return g;
}

/// The exact MILP under a wall-time limit at the memory of sqrt(n), with and
/// without the sqrt plan as warm start: wall time against the limit, the
/// plan's recompute against sqrt's, CBC's bound and gap.
static void runMilpTimeLimit() {
  if (!milpAvailable())
    return;
  const double limit = 10;
  llvm::outs() << "## milp under a time limit (random training graphs)\n\n"
               << "Budget: the peak of sqrt(n) on the same graph; time "
                  "limit "
               << llvm::format("%.0f", limit)
               << " s of wall time for the whole call.\n\n"
               << "| graph | ops | warm start | wall s | sqrt recompute | milp "
                  "recompute | bound | gap % | detail |\n"
               << "|---|---|---|---|---|---|---|---|---|\n";
  for (auto [seed, nf, nb] : {std::tuple<unsigned, unsigned, unsigned>{1, 18, 17},
                              {2, 25, 25}}) {
    Graph g = makeRandomTrainingGraph(seed, nf, nb);
    Schedule warm = sqrtN(g);
    SimResult warmSim;
    if (simulate(g, warm, warmSim))
      continue;
    for (bool useWarm : {false, true}) {
      std::string note;
      auto start = std::chrono::steady_clock::now();
      std::optional<PlanResult> p = milpOptimal(
          g, warmSim.peakBytes, limit, note, useWarm ? &warm : nullptr);
      double wall = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      std::string name = "random-" + std::to_string(seed);
      if (!p) {
        llvm::outs() << llvm::format("| %s | %u | %s | %.1f | %.0f | - | - | "
                                     "- | %s |\n",
                                     name.c_str(), g.size(),
                                     useWarm ? "sqrt" : "none", wall,
                                     warmSim.recomputeCost, note.c_str());
        continue;
      }
      llvm::outs() << llvm::format(
          "| %s | %u | %s | %.1f | %.0f | %.0f | %.4g | %.1f | %s |\n",
          name.c_str(), g.size(), useWarm ? "sqrt" : "none", wall,
          warmSim.recomputeCost, p->sim.recomputeCost, p->solver->bound,
          p->solver->gapPercent, p->detail.c_str());
    }
  }
  llvm::outs() << "\n";
}

static int runChains() {
  const int64_t layer = 1 << 20;
  llvm::outs() << "## Generated chains (1 MiB layers)\n\n";
  tableHeader();
  struct Scaling {
    unsigned n;
    double sqrtLayers, lognLayers;
  };
  std::vector<Scaling> scaling;
  for (unsigned n : {10u, 30u, 100u, 300u, 1000u, 3000u, 10000u}) {
    if (n > maxChain)
      break;
    Graph g = makeChain(n, layer);
    std::vector<std::string> notes;
    std::vector<PlanResult> plans = planAllStrategies(g, notes);
    addMilp(g, plans, notes);
    printRows("chain-" + std::to_string(n), g, plans, notes);
    Scaling s{n, 0, 0};
    for (const PlanResult &p : plans) {
      if (p.strategy == strategy::kSqrt)
        s.sqrtLayers = double(p.sim.peakBytes) / layer;
      if (p.strategy == strategy::kLogN)
        s.lognLayers = double(p.sim.peakBytes) / layer;
    }
    scaling.push_back(s);
  }
  llvm::outs() << "\n## Peak memory against depth (in layers of 1 MiB)\n\n"
               << "| n | store-all | sqrt(n) peak | 2*sqrt(n) | sqrt peak / "
                  "sqrt(n) | log(n) peak | log2(n) | log peak / log2(n) |\n"
               << "|---|---|---|---|---|---|---|---|\n";
  for (const Scaling &s : scaling)
    llvm::outs() << llvm::format(
        "| %u | %u | %.0f | %.1f | %.2f | %.0f | %.1f | %.2f |\n", s.n, s.n + 2,
        s.sqrtLayers, 2 * std::sqrt(double(s.n)),
        s.sqrtLayers / std::sqrt(double(s.n)), s.lognLayers,
        std::log2(double(s.n)), s.lognLayers / std::log2(double(s.n)));
  llvm::outs() << "\n";
  runChainVsRevolve();
  runMilpTimeLimit();
  return 0;
}

/// Parses an MLIR model, differentiates its forward functions and calls `fn`
/// with the file's stem and the graph of every training step (or
/// forward-only graph) in it.
static int forEachModelGraph(
    MLIRContext &ctx, llvm::StringRef path,
    llvm::function_ref<void(const std::string &, const Graph &)> fn) {
  llvm::SourceMgr sm;
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &ctx);
  if (!module)
    return 1;
  PassManager pm(&ctx);
  pm.addNestedPass<func::FuncOp>(createRematAutodiff());
  if (failed(pm.run(*module)))
    return 1;
  std::string base = llvm::sys::path::stem(path).str();
  for (auto func : module->getOps<func::FuncOp>()) {
    if (!isTrainingStep(func) && !isForwardOnlyGraph(func))
      continue;
    FailureOr<TrainingGraph> tg = TrainingGraph::build(func);
    if (failed(tg))
      return 1;
    fn(base, tg->graph);
  }
  return 0;
}

static int runFile(MLIRContext &ctx, llvm::StringRef path) {
  return forEachModelGraph(
      ctx, path, [](const std::string &base, const Graph &graph) {
        std::vector<std::string> notes;
        std::vector<PlanResult> plans = planAllStrategies(graph, notes);
        addMilp(graph, plans, notes);
        printRows(base, graph, plans, notes);
      });
}

/// The least peak among `plans` recomputing at most `cost` (none: -1).
static int64_t peakWithin(const std::vector<PlanResult> &plans, double cost) {
  int64_t best = -1;
  for (const PlanResult &p : plans)
    if (p.sim.recomputeCost <= cost * (1 + 1e-12) &&
        (best < 0 || p.sim.peakBytes < best))
      best = p.sim.peakBytes;
  return best;
}

/// The least recompute among `plans` within `peak` bytes (none: -1).
static double recomputeWithin(const std::vector<PlanResult> &plans,
                              int64_t peak) {
  double best = -1;
  for (const PlanResult &p : plans)
    if (p.sim.peakBytes <= peak && (best < 0 || p.sim.recomputeCost < best))
      best = p.sim.recomputeCost;
  return best;
}

/// Reads a Checkmate-format graph as the importer and the pass see it; the
/// parsed file (with PyTorch's saved sets) goes to `importedOut` if given.
static std::optional<Graph> loadGraph(MLIRContext &ctx, llvm::StringRef path,
                                      ImportedGraph *importedOut = nullptr) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    llvm::errs() << path << ": cannot read\n";
    return std::nullopt;
  }
  llvm::Expected<ImportedGraph> imported =
      parseGraph(path, (*buffer)->getBuffer(), GraphImportOptions());
  if (!imported) {
    llvm::errs() << llvm::toString(imported.takeError()) << "\n";
    return std::nullopt;
  }
  OpBuilder builder(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());
  func::FuncOp func = buildGraphFunction(builder, *imported, "g");
  FailureOr<TrainingGraph> tg = TrainingGraph::build(func);
  if (failed(tg))
    return std::nullopt;
  if (importedOut)
    *importedOut = std::move(*imported);
  return tg->graph;
}

/// PyTorch's saved sets of an exported graph replayed in remat's simulator,
/// against remat's frontier, in the same run.
static int runTorchGraph(MLIRContext &ctx, llvm::StringRef path) {
  ImportedGraph importedGraph;
  std::optional<Graph> loaded = loadGraph(ctx, path, &importedGraph);
  if (!loaded)
    return 1;
  const ImportedGraph *imported = &importedGraph;
  std::string name = llvm::sys::path::stem(path).str();
  const Graph &g = *loaded;
  // Late forward ops (AOTAutograd places ReLU masks and normalisation terms
  // among the backward ops) run where PyTorch placed them: the pinned graph
  // has the same indices and simulates identically (Phases.h).
  Graph pinned = pinLateForward(g);
  SimResult storeAllSim;
  simulate(g, Schedule(g.size()), storeAllSim);
  double sa = double(storeAllSim.peakBytes), fwd = g.forwardCost();
  std::vector<std::string> notes;
  std::vector<PlanResult> frontier = planFrontier(g, notes);
  std::vector<PlanResult> plans = planAllStrategies(g, notes);
  // Small graphs: the exact least peak (MILP) joins the frontier, so that a
  // missed target can be told apart from a graph that does not allow it.
  std::optional<PlanResult> milp;
  if (milpAvailable() && g.size() <= kMilpMaxOps) {
    PlannerOptions options;
    options.strategy = strategy::kMilp;
    options.timeLimitSeconds = 30;
    if (llvm::Expected<PlannerResult> r = planRematerialization(g, options)) {
      milp = r->plan;
      frontier.push_back(r->plan);
    } else {
      llvm::consumeError(r.takeError());
    }
  }
  auto pct = [&](double c) { return 100 * c / fwd; };
  auto row = [&](llvm::StringRef what, int64_t peak, double cost,
                 llvm::StringRef target) {
    llvm::outs() << llvm::format("| %s | %zu | %s | ", name.c_str(), g.size(),
                                 what.str().c_str());
    if (peak < 0)
      llvm::outs() << "- | - | ";
    else
      llvm::outs() << llvm::format("%.3f | %.2f | ", peak / sa, pct(cost));
    llvm::outs() << target << " |\n";
  };
  for (const auto &[setName, nodes] : imported->savedSets) {
    std::vector<bool> kept(g.size(), false);
    for (unsigned v : nodes)
      kept[v] = true;
    SimResult torch;
    if (std::optional<std::string> err =
            simulate(pinned, lowerKeptSet(pinned, kept), torch)) {
      llvm::errs() << name << ": " << *err << "\n";
      return 1;
    }
    row("PyTorch " + setName + " (replayed)", torch.peakBytes,
        torch.recomputeCost, "");
    int64_t atCost = peakWithin(frontier, torch.recomputeCost);
    row("remat at PyTorch " + setName + "'s recompute", atCost,
        torch.recomputeCost,
        atCost <= torch.peakBytes ? "met (peak <= PyTorch's)"
                                  : "NOT met (peak > PyTorch's)");
    double atPeak = recomputeWithin(frontier, torch.peakBytes);
    row("remat at PyTorch " + setName + "'s peak", torch.peakBytes, atPeak,
        atPeak >= 0 && atPeak <= torch.recomputeCost
            ? "met (recompute <= PyTorch's)"
            : "NOT met (recompute > PyTorch's)");
  }
  double limit = 0.35 * fwd;
  int64_t at35 = peakWithin(frontier, limit);
  double at35Cost = 0;
  for (const PlanResult &p : frontier)
    if (p.sim.peakBytes == at35 && p.sim.recomputeCost <= limit * (1 + 1e-12))
      at35Cost = p.sim.recomputeCost;
  row("remat, least peak within 35% recompute", at35, at35Cost,
      at35 <= 0.5 * sa ? "met (<= 0.5)" : "NOT met (> 0.5)");
  for (const PlanResult &p : plans)
    if (p.strategy == strategy::kSqrt || p.strategy == strategy::kGreedy) {
      row(p.strategy, p.sim.peakBytes, p.sim.recomputeCost, "");
      int64_t at = peakWithin(frontier, p.sim.recomputeCost);
      row("remat at " + p.strategy + "'s recompute", at, p.sim.recomputeCost,
          at <= p.sim.peakBytes ? "met (peak <= " + p.strategy + "'s)"
                                : "NOT met");
    }
  int64_t least = peakWithin(frontier, std::numeric_limits<double>::max());
  double leastCost = 0;
  for (const PlanResult &p : frontier)
    if (p.sim.peakBytes == least)
      leastCost = p.sim.recomputeCost;
  row("remat, least peak (any recompute)", least, leastCost, "");
  if (milp)
    row(milp->solver && milp->solver->optimal
            ? "milp least peak (proven optimal)"
            : "milp least peak (not proven)",
        milp->sim.peakBytes, milp->sim.recomputeCost, "");
  return 0;
}

/// The exact MILP (compact model) against the dense one and `auto` on one
/// imported graph at budgets of 0.4 .. 0.9 of store-all's peak; both MILPs
/// are warm-started from auto's plan and run under the same time limit.
static void runMilpRows(const std::string &name, const Graph &g);

/// Loads `path` (Checkmate JSON, or an MLIR model whose training steps are
/// differentiated first) and prints its rows of the MILP table.
static int runMilpGraph(MLIRContext &ctx, llvm::StringRef path) {
  if (path.ends_with(".mlir"))
    return forEachModelGraph(ctx, path, runMilpRows);
  std::optional<Graph> loaded = loadGraph(ctx, path);
  if (!loaded)
    return 1;
  runMilpRows(llvm::sys::path::stem(path).str(), *loaded);
  return 0;
}

/// The compact MILP's cells of a --milp-graphs row on a graph with late
/// forward ops (Phases.h): `p` is the MILP's plan in `order` (none: `note`
/// says why), `autoPlan` auto's plan within the budget.
/// The plan is the cheaper of the two ("(auto's)" where auto's); proven
/// and bound are `lb`'s, LowerBound's any-order bound (`orderClaimBound`),
/// which holds over every order; the MILP's own claim, where it proved its
/// plan optimal (or the budget infeasible) in its order, is named in
/// parentheses. s and cpu count the MILP and that bound from `start`.
static void printLateMilpCells(const LowerBound &lb, int64_t budget,
                               const std::optional<PlanResult> &autoPlan,
                               const std::optional<PlanResult> &p,
                               const std::string &note, const char *order,
                               llvm::function_ref<double(double)> pct,
                               std::chrono::steady_clock::time_point start,
                               std::clock_t cpuStart) {
  std::optional<double> milpCost, autoCost;
  bool stageProven = false;
  if (p) {
    milpCost = p->sim.recomputeCost;
    stageProven = p->solver && p->solver->optimal;
  } else {
    stageProven = note.find("(proved)") != std::string::npos;
  }
  if (autoPlan && autoPlan->sim.peakBytes <= budget)
    autoCost = autoPlan->sim.recomputeCost;
  bool fromAuto = autoCost && (!milpCost || *autoCost < *milpCost);
  std::optional<double> cost = fromAuto ? autoCost : milpCost;
  double cpu = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::string stage =
      stageProven ? std::string(" (") + order + ": yes)" : std::string();
  long long nodes = p && p->solver ? p->solver->nodes : 0;
  if (!cost) {
    // No plan: infeasible only where LowerBound proves it for every order.
    llvm::outs() << llvm::format("%s | - | %s%s | - | %.1f | %.1f | - | ",
                                 lb.infeasible ? "infeasible" : "none",
                                 lb.infeasible ? "yes" : "no",
                                 lb.infeasible ? "" : stage.c_str(), wall, cpu);
    return;
  }
  double bound = lb.infeasible ? 0 : std::min(lb.recomputeCost, *cost);
  if (milpDetail)
    llvm::errs() << llvm::formatv("  [{0}'s plan {1:F0}, any-order bound "
                                  "{2:F3}]\n",
                                  fromAuto ? "auto" : "the MILP", *cost,
                                  lb.recomputeCost);
  bool proven = orderClaimBoundMeets(bound, *cost);
  double gap = proven || *cost <= 0 ? 0 : 100 * (*cost - bound) / *cost;
  // A gap below 0.05% would print as 0.0 beside "no": E notation.
  std::string gapText =
      llvm::formatv(gap > 0 && gap < 0.05 ? "{0:E1}" : "{0:F1}", gap).str();
  llvm::outs() << llvm::format(
      "%.2f%s | %.2f | %s%s | %s | %.1f | %.1f | %lld | ", pct(*cost),
      fromAuto ? " (auto's)" : "", pct(bound), proven ? "yes" : "no",
      proven ? "" : stage.c_str(), gapText.c_str(), wall, cpu, nodes);
}

static void runMilpRows(const std::string &name, const Graph &g) {
  SimResult storeAllSim;
  if (std::optional<std::string> err =
          simulate(g, Schedule(g.size()), storeAllSim)) {
    llvm::errs() << name << ": " << *err << "\n";
    return;
  }
  double fwd = g.forwardCost();
  auto pct = [&](double c) { return fwd > 0 ? 100 * c / fwd : 0.0; };
  std::vector<double> fractions(milpBudgets.begin(), milpBudgets.end());
  if (fractions.empty())
    fractions = {0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
  for (double fraction : fractions) {
    int64_t budget = int64_t(fraction * double(storeAllSim.peakBytes));
    llvm::outs() << llvm::format("| %s | %u | %.1f | ", name.c_str(), g.size(),
                                 fraction);
    if (milpRounding) {
      MilpRoundingOptions ro;
      ro.barrier = milpRoundingBarrier;
      auto start = std::chrono::steady_clock::now();
      std::clock_t cpuStart = std::clock();
      MilpRoundingResult r = milpRoundRelaxation(g, budget, milpTimeLimit, ro);
      double cpu = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
      double wall = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      const char *lp = r.lpOptimal      ? "optimal"
                       : r.lpInfeasible ? "infeasible"
                       : r.points       ? "cut short"
                                        : "not solved";
      llvm::outs() << llvm::format(
          "%zu | %zu | %zu | %.1f | %.1f | %d | %s | %s | %s | %u/%u | %s | "
          "%.1f | %.1f |\n",
          r.rows, r.columns, r.nonzeros, r.buildSeconds, r.lpSeconds,
          r.lpIterations, lp,
          r.lpOptimal ? llvm::formatv("{0:f2}", pct(r.bound)).str().c_str()
                      : "-",
          r.schedule
              ? llvm::formatv("{0:f2} (peak {1:f3}, at {2:f2})",
                              pct(r.sim.recomputeCost),
                              double(r.sim.peakBytes) / storeAllSim.peakBytes,
                              r.allowance)
                    .str()
                    .c_str()
          : r.leastPeak ? llvm::formatv("none (least peak {0:f3})",
                                        double(r.leastPeakSim.peakBytes) /
                                            storeAllSim.peakBytes)
                              .str()
                              .c_str()
                        : "none",
          r.fit, r.rounded, r.declined.empty() ? "-" : r.declined.c_str(), wall,
          cpu);
      llvm::outs().flush();
      continue;
    }
    PlannerOptions options;
    options.budget = budget;
    std::optional<PlanResult> autoPlan;
    std::vector<PlanResult> candidates;
    if (llvm::Expected<PlannerResult> r = planRematerialization(g, options)) {
      autoPlan = r->plan;
      candidates = std::move(r->candidates);
    } else {
      llvm::consumeError(r.takeError());
    }
    if (autoPlan)
      llvm::outs() << llvm::format("%.2f | ", pct(autoPlan->sim.recomputeCost));
    else
      llvm::outs() << "none | ";
    // The stage model needs the forward pass first: a graph with late
    // forward ops is solved forward-first (reordered) or in the input order
    // with the late ops pinned (Phases.h). The warm start is auto's plan
    // where one of those takes it, else the cheapest of auto's candidates
    // within the budget that one does (auto's plan may recompute late
    // forward ops, which the pinned order never does).
    bool late = !lateForwardNodes(g).empty();
    std::vector<unsigned> ffOrder;
    Graph pinned, reordered;
    if (late) {
      ffOrder = forwardFirstOrder(g);
      pinned = pinLateForward(g);
      reordered = reorderGraph(g, ffOrder);
    }
    const Schedule *warm = nullptr;
    const Graph *warmGraph = nullptr;
    double warmCost = 0;
    auto consider = [&](const PlanResult &p) {
      const Graph *on = !late ? (p.order.empty() ? &g : nullptr)
                        : p.order.empty() ? &pinned
                        : p.order == ffOrder ? &reordered
                                             : nullptr;
      SimResult sim;
      if (!on || simulate(*on, p.schedule, sim) || sim.peakBytes > budget)
        return;
      if (!warm || sim.recomputeCost < warmCost - 1e-9) {
        warm = &p.schedule;
        warmGraph = on;
        warmCost = sim.recomputeCost;
      }
    };
    if (autoPlan)
      consider(*autoPlan);
    for (const PlanResult &p : candidates)
      consider(p);
    std::optional<Graph> staged;
    if (late)
      staged = warmGraph == &reordered ? reordered : pinned;
    const Graph &solved = staged ? *staged : g;
    for (MilpModel model : {MilpModel::Compact, MilpModel::Dense}) {
      if (model == MilpModel::Dense &&
          (!milpDense || g.size() > kMilpDenseMaxNodes)) {
        llvm::outs() << "- | - | - | - | - | - | - | ";
        continue;
      }
      std::string note;
      auto start = std::chrono::steady_clock::now();
      std::clock_t cpuStart = std::clock();
      std::optional<PlanResult> p;
      // On a graph with late forward ops, as `strategy=milp` does
      // (Planner.cpp): LowerBound's any-order bound first, and where it
      // meets auto's plan the MILP does not run.
      std::optional<LowerBound> claim;
      if (late && model == MilpModel::Compact) {
        claim = orderClaimBound(g, budget, milpTimeLimit);
        if (autoPlan && autoPlan->sim.peakBytes <= budget &&
            !claim->infeasible &&
            orderClaimBoundMeets(claim->recomputeCost,
                                 autoPlan->sim.recomputeCost)) {
          note = "auto's plan, proven by the any-order bound: no MILP run";
          printLateMilpCells(*claim, budget, autoPlan, p, note, "", pct, start,
                             cpuStart);
          continue;
        }
      }
      if (model == MilpModel::Compact && milpLargeLpShare >= 0) {
        MilpLargeOptions large;
        large.lpRoundingShare = milpLargeLpShare;
        p = milpLargePlan(solved, budget, milpTimeLimit, warm,
                          "milpLargePlan called directly", note, large);
        llvm::errs() << name << " " << fraction << ": "
                     << (p ? p->detail : note) << "\n";
      } else {
        p = milpOptimal(
            solved, budget, milpTimeLimit, note, warm, model, milpRangeRows,
            milpCostFixing, milpKnapsackRows, milpTreeCuts,
            model == MilpModel::Compact ? milpDump.getValue() : std::string());
      }
      // On a graph with late forward ops the MILP's claim covers the order
      // it solved only, and auto's plans that drop late forward values lie
      // outside it: the row reports the cheaper of the two plans and the
      // claim over every order (Planner.h, orderClaimBound), as
      // `strategy=milp` does.
      if (late && model == MilpModel::Compact) {
        if (milpDetail)
          llvm::errs() << name << " " << fraction << ": "
                       << (p ? p->detail : note) << "\n";
        printLateMilpCells(*claim, budget, autoPlan, p, note,
                           warmGraph == &reordered ? "forward-first order"
                                                   : "pinned order",
                           pct, start, cpuStart);
        continue;
      }
      double cpu = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
      double wall = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      if (!p) {
        bool proved = note.find("(proved)") != std::string::npos;
        std::string what = proved ? "infeasible" : "none (" + note + ")";
        llvm::outs() << llvm::format("%s | - | %s | - | %.1f | %.1f | - | ",
                                     what.c_str(), proved ? "yes" : "no",
                                     wall, cpu);
        continue;
      }
      if (milpDetail)
        llvm::errs() << name << " " << fraction << ": " << p->detail
                     << llvm::formatv(" [recompute {0:F0}, bound {1:F3}]",
                                      p->sim.recomputeCost,
                                      p->solver ? p->solver->bound : 0.0)
                     << "\n";
      llvm::outs() << llvm::format(
          "%.2f | %.2f | %s | %.1f | %.1f | %.1f | %lld | ",
          pct(p->sim.recomputeCost), pct(p->solver ? p->solver->bound : 0.0),
          p->solver && p->solver->optimal ? "yes" : "no",
          p->solver ? p->solver->gapPercent : 0.0, wall, cpu,
          (long long)(p->solver ? p->solver->nodes : 0));
    }
    llvm::outs() << "\n";
    llvm::outs().flush();
  }
}

/// The MILP column of --bound-graphs: CBC's plan in the forward-first order
/// (the order the stage model needs), warm-started from auto's plan when
/// that plan is in the same order; "proven" when CBC proved it optimal in
/// the stage model.
static void printMilpColumn(const Graph &g, int64_t budget,
                           const PlanResult *autoPlan) {
  double fwd = g.forwardCost();
  if (g.size() > kMilpMaxNodes) {
    llvm::outs() << " - |";
    return;
  }
  bool reordered = !lateForwardNodes(g).empty();
  std::vector<unsigned> order;
  if (reordered)
    order = forwardFirstOrder(g);
  Graph ordered = reordered ? reorderGraph(g, order) : g;
  const Schedule *warm =
      autoPlan && autoPlan->order == order ? &autoPlan->schedule : nullptr;
  std::string note;
  std::optional<PlanResult> p =
      milpOptimal(ordered, budget, boundMilpTimeLimit, note, warm);
  if (!p) {
    bool proved = note.find("(proved)") != std::string::npos;
    llvm::outs() << (proved ? " infeasible (proven) |" : " none |");
    return;
  }
  bool optimal = p->solver && p->solver->optimal;
  llvm::outs() << llvm::format(" %.2f", 100 * p->sim.recomputeCost / fwd);
  if (optimal)
    llvm::outs() << " (proven) |";
  else if (p->solver)
    llvm::outs() << llvm::format(" (CBC bound %.2f) |",
                                 100 * p->solver->bound / fwd);
  else
    llvm::outs() << " |";
}

/// The columns of --bound-cut-plan: the bound's cut at its best step (its
/// cost, % of the forward) lowered as a kept set, plain and with every
/// dropped value recomputed before each reader: peak vs store-all,
/// recompute % and the step of the peak.
static void printCutPlanColumns(const Graph &g, const LowerBound &lb,
                                int64_t storeAllPeak) {
  double fwd = g.forwardCost();
  if (lb.infeasible || lb.cutCost < 0) {
    llvm::outs() << " - | - | - |";
    return;
  }
  llvm::outs() << llvm::format(" %.2f (%zu values) |", 100 * lb.cutCost / fwd,
                               lb.cutRecomputed.size());
  std::vector<bool> kept(g.size(), true), refresh(g.size(), false);
  for (unsigned v : lb.cutRecomputed) {
    kept[v] = false;
    refresh[v] = true;
  }
  for (bool again : {false, true}) {
    Schedule s = again ? lowerKeptSet(g, kept, refresh) : lowerKeptSet(g, kept);
    SimResult sim;
    if (std::optional<std::string> err = simulate(g, s, sim)) {
      llvm::outs() << " invalid |";
      continue;
    }
    llvm::outs() << llvm::format(" %.3f / %.2f (peak at %u%s) |",
                                 double(sim.peakBytes) / double(storeAllPeak),
                                 100 * sim.recomputeCost / fwd, sim.peakStep,
                                 sim.peakInRecompute ? ", recomputing" : "");
  }
}

/// `auto` at budgets of 0.4 .. 0.9 of store-all (or --bound-budgets) against
/// the recompute lower bound, both timed, in the same run.
static void runBoundRows(const std::string &name, const Graph &g);

/// Loads `path` (Checkmate JSON, or an MLIR model whose training steps are
/// differentiated first) and prints its rows of the bound table.
static int runBoundGraph(MLIRContext &ctx, llvm::StringRef path) {
  if (path.ends_with(".mlir"))
    return forEachModelGraph(ctx, path, runBoundRows);
  std::optional<Graph> loaded = loadGraph(ctx, path);
  if (!loaded)
    return 1;
  runBoundRows(llvm::sys::path::stem(path).str(), *loaded);
  return 0;
}

static void runBoundRows(const std::string &name, const Graph &g) {
  SimResult sa;
  simulate(g, Schedule(g.size()), sa);
  double fwd = g.forwardCost();
  auto seconds = [](auto start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  std::vector<double> fractions(boundBudgets.begin(), boundBudgets.end());
  if (fractions.empty())
    fractions = {0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
  for (double f : fractions) {
    int64_t budget = int64_t(f * double(sa.peakBytes));
    auto t0 = std::chrono::steady_clock::now();
    LowerBoundOptions boundOptions;
    boundOptions.timeLimitSeconds = boundSeconds;
    boundOptions.maxSplits = boundSplits;
    boundOptions.jointSteps = boundJointSteps;
    boundOptions.jointExactSteps = boundJointExactSteps;
    boundOptions.intervalSteps = boundIntervalSteps;
    boundOptions.jointOverflowSteps = boundJointOverflowSteps;
    boundOptions.cardinality = boundCardinality;
    LowerBound lb = recomputeLowerBoundAnyOrder(g, budget, boundOptions);
    double boundWall = seconds(t0);
    PlannerOptions options;
    options.budget = budget;
    options.budgetSearchWindows = boundWindowPlans;
    auto t1 = std::chrono::steady_clock::now();
    llvm::Expected<PlannerResult> r = planRematerialization(g, options);
    double planSeconds = seconds(t1);
    llvm::outs() << llvm::format("| %s | %u | %.1f | ", name.c_str(), g.size(),
                                 f);
    if (r)
      llvm::outs() << llvm::format("%.3f | %.2f%s | ",
                                   double(r->plan.sim.peakBytes) / sa.peakBytes,
                                   100 * r->plan.sim.recomputeCost / fwd,
                                   r->plan.order.empty() ? "" : " (ff)");
    else
      llvm::outs() << "none | - | ";
    if (lb.infeasible)
      llvm::outs() << "infeasible (proven) | - | ";
    else if (lb.strongerOrderCost >= 0)
      llvm::outs() << llvm::format("%.2f (%.2f) | ", 100 * lb.recomputeCost / fwd,
                                   100 * lb.strongerOrderCost / fwd);
    else
      llvm::outs() << llvm::format("%.2f | ", 100 * lb.recomputeCost / fwd);
    if (r && !lb.infeasible) {
      double ub = r->plan.sim.recomputeCost;
      if (ub <= lb.recomputeCost * (1 + 1e-9))
        llvm::outs() << "0 (optimal) | ";
      else
        llvm::outs() << llvm::format("%.1f%% | ",
                                     100 * (ub - lb.recomputeCost) / ub);
    } else if (!lb.infeasible) {
      llvm::outs() << "- | "; // No plan: no gap, the columns stay aligned.
    }
    llvm::outs() << llvm::format(
        "%.2f | %.2f | %u/%u%s", planSeconds, boundWall, lb.stepsEvaluated,
        lb.stepsCandidate, lb.complete ? "" : " (time limit)");
    if (lb.jointExactSteps)
      llvm::outs() << ", joint " << lb.jointExactSteps;
    llvm::outs() << llvm::format(" | %u |", lb.splits);
    if (boundCompareRecomputeMemory) {
      LowerBoundOptions without;
      without.timeLimitSeconds = boundSeconds;
      without.maxSplits = boundSplits;
      without.jointSteps = boundJointSteps;
      without.recomputeMemory = false;
      LowerBound old = recomputeLowerBoundAnyOrder(g, budget, without);
      if (old.infeasible)
        llvm::outs() << " infeasible (proven) | - |";
      else
        llvm::outs() << llvm::format(" %.2f |", 100 * old.recomputeCost / fwd);
      if (r && !old.infeasible) {
        double ub = r->plan.sim.recomputeCost;
        if (ub <= old.recomputeCost * (1 + 1e-9))
          llvm::outs() << " 0 (optimal) |";
        else
          llvm::outs() << llvm::format(" %.1f%% |",
                                       100 * (ub - old.recomputeCost) / ub);
      } else if (!old.infeasible) {
        llvm::outs() << " - |";
      }
    }
    if (boundCutPlan)
      printCutPlanColumns(g, lb, sa.peakBytes);
    if (boundMilpTimeLimit > 0)
      printMilpColumn(g, budget, r ? &r->plan : nullptr);
    llvm::outs() << "\n";
    llvm::outs().flush();
    if (!r)
      llvm::consumeError(r.takeError());
  }
}

/// `auto` at budgets of 0.4 .. 0.9 of store-all without its local search
/// within the budget, with its single-value moves only, and with its larger
/// changes (chain drops, refreshes) too, in the same run, against the lower
/// bound.
static int runBudgetSearchGraph(MLIRContext &ctx, llvm::StringRef path) {
  std::optional<Graph> loaded = loadGraph(ctx, path);
  if (!loaded)
    return 1;
  const Graph &g = *loaded;
  std::string name = llvm::sys::path::stem(path).str();
  SimResult sa;
  simulate(g, Schedule(g.size()), sa);
  double fwd = g.forwardCost();
  std::vector<double> fractions(boundBudgets.begin(), boundBudgets.end());
  if (fractions.empty())
    fractions = {0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
  for (double f : fractions) {
    int64_t budget = int64_t(f * double(sa.peakBytes));
    LowerBoundOptions boundOptions;
    boundOptions.timeLimitSeconds = boundSeconds;
    boundOptions.maxSplits = boundSplits;
    LowerBound lb = recomputeLowerBoundAnyOrder(g, budget, boundOptions);
    // 0: no search; 1: single-value moves; 2: with the larger changes.
    double cost[3] = {-1, -1, -1}, secs[3] = {0, 0, 0};
    for (int mode : {0, 1, 2}) {
      PlannerOptions options;
      options.budget = budget;
      options.budgetSearch = mode > 0;
      if (budgetSearchCutSeeds > 0) {
        options.budgetSearchCutSeconds = mode == 2 ? budgetSearchCutSeeds : 0;
      } else {
        options.budgetSearchLargerMoves = mode == 2;
        options.budgetSearchCutSeconds = 0;
      }
      auto start = std::chrono::steady_clock::now();
      llvm::Expected<PlannerResult> r = planRematerialization(g, options);
      secs[mode] = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
      if (r)
        cost[mode] = r->plan.sim.recomputeCost;
      else
        llvm::consumeError(r.takeError());
    }
    llvm::outs() << llvm::format("| %s | %u | %.1f | ", name.c_str(), g.size(),
                                 f);
    if (cost[0] < 0 || cost[1] < 0 || cost[2] < 0) {
      llvm::outs() << "none | none | none | - | - | - | - | - |";
    } else {
      auto gap = [&](double c) -> std::string {
        if (lb.infeasible)
          return "-";
        if (c <= lb.recomputeCost * (1 + 1e-9))
          return "0 (optimal)";
        return llvm::formatv("{0:F1}%", 100 * (c - lb.recomputeCost) / c)
            .str();
      };
      std::string change =
          cost[1] > 0 ? llvm::formatv("{0:F1}%", 100 * (cost[2] - cost[1]) /
                                                     cost[1])
                            .str()
                      : "0";
      llvm::outs() << llvm::format(
          "%.3f | %.3f | %.3f | %s | %.3f | %s | %s | %s |",
          100 * cost[0] / fwd, 100 * cost[1] / fwd, 100 * cost[2] / fwd,
          change.c_str(), 100 * lb.recomputeCost / fwd, gap(cost[0]).c_str(),
          gap(cost[1]).c_str(), gap(cost[2]).c_str());
    }
    llvm::outs() << llvm::format(" %.2f | %.2f | %.2f |\n", secs[0], secs[1],
                                 secs[2]);
    llvm::outs().flush();
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  hideForeignOptions({&benchCategory}, /*keepMLIROptions=*/false);
  llvm::cl::ParseCommandLineOptions(argc, argv, "remat strategy benchmark\n");
  if (!noChains && runChains())
    return 1;
  if (inputFiles.empty() && torchGraphs.empty() && milpGraphs.empty() &&
      boundGraphs.empty() && budgetSearchGraphs.empty())
    return 0;
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  if (!torchGraphs.empty()) {
    llvm::outs()
        << "## Exported PyTorch graphs: PyTorch's saved sets against remat\n\n"
        << "Peak = activation peak / store-all's in the same run; recompute "
           "= % of the forward cost. remat rows: its (peak, recompute) "
           "frontier over every strategy and parameter (planFrontier).\n\n"
        << "| graph | ops | plan | peak vs store-all | recompute % of fwd | "
           "target |\n|---|---|---|---|---|---|\n";
    for (const std::string &f : torchGraphs)
      if (runTorchGraph(ctx, f))
        return 1;
    llvm::outs() << "\n";
  }
  if (!milpGraphs.empty()) {
    if (milpRounding)
      llvm::outs()
          << "## LP relaxation and rounding (MilpRounding.h)\n\n"
          << "Budget = fraction of store-all's activation peak; recompute "
             "and bound = % of the forward cost; rows / columns / nonzeros of "
             "the LP, build and LP seconds (the LP at the budget), CLP's "
             "iterations and status there, the LP bound (when optimal), the "
             "rounded plan (least recompute within the budget, its peak as a "
             "fraction of store-all's, and the fraction of the budget whose LP "
             "it came from), plans within the budget / rounded, wall and CPU "
             "seconds of the whole call.\n\n"
          << "| graph | ops | budget | rows | columns | nonzeros | build s | "
             "LP s | iterations | LP | bound % | rounded % | fit | declined | "
             "s | cpu |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|"
             "---|---|---|\n";
    else
      llvm::outs()
          << "## The exact MILP on imported graphs\n\n"
          << "Budget = fraction of store-all's activation peak; recompute = % "
             "of the forward cost; both MILPs (compact: the default model; "
             "dense: Checkmate's, the old one) warm-started from auto's plan, "
          << llvm::format("%.0f", double(milpTimeLimit))
          << " s wall-time limit each; proven = the plan is proven optimal "
             "(or the budget infeasible) in remat's stage model, by CBC or by "
             "the lower bound (LowerBound.h); bound = the best lower bound on "
             "the recompute (% of the forward cost). On a graph with late "
             "forward ops (Phases.h) the MILP solves one order (the input "
             "order with them pinned, or forward-first) and auto's plans may "
             "lie outside it: the compact row's plan is the cheaper of the "
             "MILP's and auto's (\"(auto's)\"), proven and bound are "
             "LowerBound's any-order bound's (over every order, "
             "`orderClaimBound`, its time in s and cpu), and the MILP's own "
             "proof, where it does not hold over every order, is named in "
             "parentheses (\"no (pinned order: yes)\"); s = wall seconds, cpu "
             "= "
             "CPU seconds of the call, nodes = CBC's branch-and-bound "
             "nodes (all its solves, the search over the recomputable "
             "set's moves included).\n\n"
          << "| graph | ops | budget | auto recompute % | milp recompute % | "
             "bound % | proven | gap % | s | cpu | nodes | dense recompute % | "
             "bound % | proven | gap % | s | cpu | nodes |\n"
          << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
             "---|---|\n";
    for (const std::string &f : milpGraphs)
      if (runMilpGraph(ctx, f))
        return 1;
    llvm::outs() << "\n";
  }
  if (!boundGraphs.empty()) {
    llvm::outs()
        << "## auto against the recompute lower bound\n\n"
        << "Budget = fraction of store-all's activation peak; recompute and "
           "bound = % of the forward cost; gap = (plan - bound) / plan, as "
           "a MILP solver reports it; times in seconds (auto's plan; the bound "
           "over both op orders); steps = "
           "steps whose cut bound was computed / steps that could give one; "
           "(ff) after auto's recompute: its plan re-sequences the graph "
           "forward-first; (x) after the bound: the bound of the stronger op "
           "order where "
           "both the input order and the forward-first one are planned "
           "(it holds for that order's plans only); "
           "splits = branch-and-bound splits of the knapsack row (both "
           "orders)."
        << (boundMilpTimeLimit > 0
                ? llvm::formatv(" milp = the exact MILP's plan (forward-first "
                                "order, {0} s limit, graphs of at most {1} "
                                "ops), proven = optimal in its stage model, else CBC's "
                                "bound in that model.",
                                double(boundMilpTimeLimit), kMilpMaxNodes)
                      .str()
                : std::string())
        << "\n\n"
        << "| graph | ops | budget | auto peak vs store-all | auto recompute "
           "% | lower bound % | gap | plan s | bound s | steps | splits |"
        << (boundCompareRecomputeMemory
                ? " bound without recompute memory % | gap without |"
                : "")
        << (boundCutPlan ? " cut % | cut kept: peak / recompute % | cut "
                           "recomputed per reader: peak / recompute % |"
                         : "")
        << (boundMilpTimeLimit > 0 ? " milp % |\n" : "\n")
        << "|---|---|---|---|---|---|---|---|---|---|---|"
        << (boundCompareRecomputeMemory ? "---|---|" : "")
        << (boundCutPlan ? "---|---|---|" : "")
        << (boundMilpTimeLimit > 0 ? "---|\n" : "\n");
    for (const std::string &f : boundGraphs)
      if (runBoundGraph(ctx, f))
        return 1;
    llvm::outs() << "\n";
  }
  if (!budgetSearchGraphs.empty()) {
    if (budgetSearchCutSeeds > 0)
      llvm::outs()
          << "## auto's local search within the budget without and with the "
             "lower bound's cut as a seed\n\n"
          << "Budget = fraction of store-all's activation peak; recompute and "
             "bound = % of the forward cost (3 decimals); columns: auto "
             "without the search, with it, with it seeded by the lower "
             "bound's cut too (PlannerOptions::budgetSearchCutSeconds); "
             "change = (cut - search) / search; gap = (plan - bound) / plan; "
             "plan s = auto's wall seconds in the three modes, same run.\n\n"
          << "| graph | ops | budget | recompute % without | search | cut | "
             "change | lower bound % | gap without | gap search | gap cut | "
             "plan s without | search | cut "
             "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    else
      llvm::outs()
          << "## auto without and with its local search within the budget\n\n"
          << "Budget = fraction of store-all's activation peak; recompute and "
           "bound = % of the forward cost (3 decimals); columns: auto "
           "without the search, with its single-value moves only (keep + "
           "drop), with its larger changes too (chain drops, refreshes); "
           "change = (larger - single) / single; gap = (plan - bound) / "
           "plan; plan s = auto's wall seconds in the three modes, same "
           "run.\n\n"
        << "| graph | ops | budget | recompute % without | single | larger | "
           "change | lower bound % | gap without | gap single | gap larger | "
           "plan s without | single | larger "
           "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const std::string &f : budgetSearchGraphs)
      if (runBudgetSearchGraph(ctx, f))
        return 1;
    llvm::outs() << "\n";
  }
  if (inputFiles.empty())
    return 0;
  llvm::outs() << "## Models\n\n";
  tableHeader();
  for (const std::string &f : inputFiles)
    if (runFile(ctx, f))
      return 1;
  return 0;
}
