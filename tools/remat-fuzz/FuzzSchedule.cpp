//===- FuzzSchedule.cpp - property fuzz target of the schedulers -*- C++ -*-=//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The input bytes describe a random graph (a training step of forward and
/// backward nodes, or a forward-only DAG; sizes from 0 bytes to 2^40, costs
/// 0 to 2^20), a budget (none, one byte, or a fraction of the store-all
/// peak), a strategy and its parameters. The graph is built as remat IR with
/// the importer's `buildGraphFunction`, read back with `TrainingGraph::build`,
/// and planned with that strategy (and, for one input in eight, with every
/// strategy at its defaults), with the local searches at `kSearchWork` of
/// their evaluation budgets and every tenth point of the min-cut grid (the
/// sweep would otherwise cut 152 times and search up to 50,000 evaluations
/// on these small graphs; plans are valid at any scale, and the lit and
/// unit tests plan at the default). Properties checked:
///  - no crash, hang or sanitizer report;
///  - every plan any strategy returns simulates without error, to the peak
///    and recompute cost the strategy claims; a plan returned under a budget
///    is within it; kept and dropped sets lower to valid schedules;
///  - when a budget cannot be met, the smallest budget the planner names is
///    met by the strategy it names;
///  - every plan, rewritten into IR with `applySchedule`, passes
///    `remat-verify-schedule` with the plan's claimed peak as the budget
///    (at most the budget it was planned for, so this implies that budget),
///    and the verifier measures the peak the simulator claims.
/// A schedule returned by several strategies (or twice) for one input is
/// simulated, rewritten and verified once; the other plans' claims are
/// compared with that simulation.
///
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Dialect/Remat/Transforms/TrainingGraph.h"
#include "remat/Import/GraphImport.h"
#include "remat/Scheduling/ForwardOnly.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Planner.h"
#include "remat/Scheduling/Strategies.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <memory>
#include <set>

using namespace mlir;
using namespace remat;
using namespace remat::sched;
using namespace remat::fuzz;

/// Largest graph the target builds (forward plus backward nodes).
static constexpr unsigned kMaxForward = 24;
static constexpr unsigned kMaxBackward = 24;

/// `PlannerOptions::searchWork` of every plan the target asks for.
static constexpr double kSearchWork = 0.01;
/// The planner's time limit (the exact MILP's, for `milp` and `auto`).
static constexpr double kMilpSeconds = 4;

/// A node or input size: small, a power of two up to 2^40, or any value
/// below 2^32.
static int64_t readBytes(ByteReader &in) {
  switch (in.range(0, 3)) {
  case 0:
    return in.range(0, 255);
  case 1:
    return int64_t(1) << in.range(0, 40);
  case 2:
    return in.range(0, 0xffffffffu);
  default:
    return 0;
  }
}

/// Reads a graph: forward nodes first, each reading up to three earlier
/// forward nodes, then backward nodes reading up to three earlier nodes of
/// either kind. Nodes without inputs read the implicit input.
static ImportedGraph readGraph(ByteReader &in) {
  ImportedGraph graph;
  graph.format = GraphFormat::Checkmate;
  graph.name = "fuzz";
  bool forwardOnly = in.flag();
  unsigned numForward = in.range(1, kMaxForward);
  unsigned numBackward = forwardOnly ? 0 : in.range(1, kMaxBackward);
  graph.inputBytes = readBytes(in);
  for (unsigned i = 0; i < numForward + numBackward; ++i) {
    ImportedGraph::Node node;
    node.name = "n" + std::to_string(i);
    node.backward = i >= numForward;
    node.bytes = readBytes(in);
    node.cost = double(in.range(0, 1u << 20));
    std::set<unsigned> inputs;
    for (unsigned k = 0, e = i ? in.range(0, 3) : 0; k < e; ++k)
      // Recent nodes more often: chains and short skips, as in real steps.
      inputs.insert(i - 1 - in.range(0, std::min(i - 1, in.flag() ? 2u : 63u)));
    node.inputs.assign(inputs.begin(), inputs.end());
    graph.numEdges += node.inputs.size();
    graph.nodes.push_back(std::move(node));
  }
  return graph;
}

namespace {
/// The graph as IR and as a scheduling graph, and the checks on plans.
class Checker {
public:
  Checker(MLIRContext &context, DiagnosticLog &log, ModuleOp module,
          sched::Graph graph)
      : context(context), log(log), module(module), graph(std::move(graph)) {}

  /// Checks a plan some strategy returned: it simulates as claimed, fits
  /// `budget` (0: none), and its IR rewrite passes the verifier. A schedule
  /// already checked for this input (strategies often return the same one)
  /// is not simulated, rewritten and verified again: the simulator and the
  /// verifier are deterministic, so only the claims are compared with the
  /// first check's simulation.
  void checkPlan(const sched::PlanResult &plan, int64_t budget);
  /// Checks a schedule that must simulate without error.
  void checkSchedule(const sched::Schedule &schedule, const llvm::Twine &what);

private:
  /// Rewrites the function with `plan` and runs remat-verify-schedule with
  /// the plan's peak as the budget (checkPlan has checked it is within
  /// `budget`).
  void checkRewrite(const sched::PlanResult &plan);

  MLIRContext &context;
  DiagnosticLog &log;
  ModuleOp module;
  sched::Graph graph;
  /// The simulation of every schedule checked so far.
  std::map<std::vector<std::vector<unsigned>>, sched::SimResult> checked;
};
} // namespace

void Checker::checkSchedule(const sched::Schedule &schedule,
                            const llvm::Twine &what) {
  sched::SimResult sim;
  std::optional<std::string> error = sched::simulate(graph, schedule, sim);
  fuzzCheck(!error, what + " does not simulate", error ? *error : "");
}

void Checker::checkPlan(const sched::PlanResult &plan, int64_t budget) {
  std::string name = plan.strategy + " (" + plan.detail + ")";
  // The target's graphs order every forward node first, so no plan is
  // re-sequenced (`PlanResult::order`), which checkRewrite does not apply.
  fuzzCheck(plan.order.empty(), "the plan of " + name + " is re-sequenced");
  auto [it, isNew] = checked.try_emplace(plan.schedule.recomputeBefore);
  sched::SimResult &sim = it->second;
  if (isNew) {
    std::optional<std::string> error =
        sched::simulate(graph, plan.schedule, sim);
    fuzzCheck(!error, "the plan of " + name + " does not simulate",
              error ? *error : "");
  }
  fuzzCheck(sim.peakBytes == plan.sim.peakBytes &&
                sim.recomputeCount == plan.sim.recomputeCount,
            "the plan of " + name + " claims peak " +
                llvm::Twine(plan.sim.peakBytes) + " but simulates to " +
                llvm::Twine(sim.peakBytes));
  if (budget > 0)
    fuzzCheck(sim.peakBytes <= budget,
              "the plan of " + name + " is over the budget " +
                  llvm::Twine(budget) + ": peak " + llvm::Twine(sim.peakBytes));
  if (isNew)
    checkRewrite(plan);
}

void Checker::checkRewrite(const sched::PlanResult &plan) {
  std::string name = plan.strategy + " (" + plan.detail + ")";
  OwningOpRef<ModuleOp> copy = module.clone();
  auto func = *copy->getOps<func::FuncOp>().begin();
  FailureOr<TrainingGraph> tg = TrainingGraph::build(func);
  fuzzCheck(succeeded(tg), "the copied function has no graph");
  bool rewritten = succeeded(applySchedule(*tg, plan.schedule));
  fuzzCheck(rewritten, "the plan of " + name + " cannot be rewritten into IR");
  bool verified = succeeded(verify(*copy));
  fuzzCheck(verified, "the rewrite of " + name + " does not verify");

  // The verifier with the plan's own claimed peak as the budget: checkPlan
  // has checked that peak against the budget the plan is meant for, so a
  // rewrite that passes here passes with that budget too.
  log.clear();
  PassManager pm(&context);
  RematVerifyScheduleOptions verifyOptions;
  verifyOptions.budget = plan.sim.peakBytes;
  pm.addNestedPass<func::FuncOp>(createRematVerifySchedule(verifyOptions));
  bool accepted = succeeded(pm.run(*copy));
  fuzzCheck(accepted, "remat-verify-schedule{budget=" +
                          llvm::Twine(plan.sim.peakBytes) +
                          "} rejects the rewrite of " + name);
  // The verifier's peak (its remark) is the simulator's.
  llvm::StringRef remark(log.str());
  size_t at = remark.find("schedule verified: peak ");
  if (at == llvm::StringRef::npos)
    return;
  int64_t peak = -1;
  remark.drop_front(at + strlen("schedule verified: peak "))
      .take_until([](char c) { return c == ' '; })
      .getAsInteger(10, peak);
  fuzzCheck(peak == plan.sim.peakBytes,
            "remat-verify-schedule measures peak " + llvm::Twine(peak) +
                " for the plan of " + name + ", the simulator " +
                llvm::Twine(plan.sim.peakBytes));
}

/// The context of the input being run. Creating a context and loading the
/// dialects for every input cost about a tenth of an input's time, so one
/// context serves `kInputsPerContext` inputs in a row. What they share is
/// the uniqued types and attributes, which do not change what an input
/// computes (a crash reproduces from its input alone); they accumulate, so
/// the context is then replaced.
static MLIRContext &fuzzContext() {
  static constexpr unsigned kInputsPerContext = 256;
  static std::unique_ptr<MLIRContext> context;
  static unsigned inputs = 0;
  if (!context || ++inputs % kInputsPerContext == 0) {
    context.reset();
    context = std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED);
    context->loadDialect<RematDialect, func::FuncDialect>();
  }
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ByteReader in(data, size);
  ImportedGraph imported = readGraph(in);

  MLIRContext &context = fuzzContext();
  DiagnosticLog log(context);
  OpBuilder builder(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());
  func::FuncOp func = buildGraphFunction(builder, imported, "fuzz");
  bool verified = succeeded(verify(*module));
  fuzzCheck(verified, "the graph's IR does not verify");
  FailureOr<TrainingGraph> tg = TrainingGraph::build(func);
  fuzzCheck(succeeded(tg), "TrainingGraph::build rejects an imported graph");
  const sched::Graph &graph = tg->graph;
  std::optional<std::string> invalid = graph.validate();
  fuzzCheck(!invalid, "the graph of the IR is invalid",
            invalid ? *invalid : "");

  sched::SimResult storeAll;
  std::optional<std::string> error =
      sched::simulate(graph, sched::storeAll(graph), storeAll);
  fuzzCheck(!error, "store-all does not simulate", error ? *error : "");
  int64_t budget = 0;
  switch (unsigned pick = in.range(0, 9)) {
  case 0:
    break;
  case 1:
    budget = 1;
    break;
  default:
    budget = std::max<int64_t>(1, storeAll.peakBytes / 8 * (pick - 1));
  }
  Checker checker(context, log, *module, graph);

  // Kept and dropped sets chosen by the input.
  std::vector<bool> chosen(graph.size());
  for (unsigned i = 0; i < graph.size(); ++i)
    chosen[i] = in.flag();
  if (graph.isForwardOnly())
    checker.checkSchedule(sched::lowerDroppedSet(graph, chosen),
                          "lowerDroppedSet");
  else
    checker.checkSchedule(sched::lowerKeptSet(graph, chosen), "lowerKeptSet");

  // One strategy (chosen by the input) through the planner, under the
  // budget: planning every strategy for every input would be several times
  // slower, and the fuzzer reaches each strategy through the input anyway.
  PlannerOptions options;
  llvm::ArrayRef<llvm::StringRef> strategies = getStrategyNames();
  options.strategy = strategies[in.range(0, strategies.size() - 1)].str();
  options.budget = budget;
  options.slots = in.range(0, 6);
  options.threshold = in.flag() ? 0 : readBytes(in);
  options.dpSlots = in.range(1, 64);
  options.searchWork = kSearchWork;
  // CBC (when built in) takes up to the time limit per call: small graphs
  // only, and a limit far below the fuzzer's -timeout (a 16-node graph with
  // late forward ops kept CBC busy for both op orders' full 60 s before
  // 2026-11-29; the plan is checked the same whether proven or not).
  if (options.strategy == strategy::kMilp && graph.size() > 16)
    options.strategy = strategy::kAuto;
  options.timeLimitSeconds = kMilpSeconds;
  llvm::Expected<PlannerResult> result = planRematerialization(graph, options);
  std::optional<int64_t> minFeasibleBudget;
  std::string minFeasibleStrategy;
  if (result)
    checker.checkPlan(result->plan, budget);
  else
    llvm::handleAllErrors(result.takeError(), [&](const PlanningError &err) {
      minFeasibleBudget = err.getMinFeasibleBudget();
      minFeasibleStrategy = err.getMinFeasibleStrategy();
    });
  if (minFeasibleBudget) {
    // The smallest budget named in the diagnostic is met by the named
    // strategy (with its default parameters, as the diagnostic names none).
    PlannerOptions retryOptions;
    retryOptions.budget = *minFeasibleBudget;
    retryOptions.strategy = minFeasibleStrategy;
    retryOptions.dpSlots = options.dpSlots;
    retryOptions.searchWork = kSearchWork;
    retryOptions.timeLimitSeconds = kMilpSeconds;
    llvm::Expected<PlannerResult> retry =
        planRematerialization(graph, retryOptions);
    std::string retryError =
        retry ? std::string() : llvm::toString(retry.takeError());
    fuzzCheck(bool(retry),
              "strategy " + options.strategy + " names the smallest budget " +
                  llvm::Twine(retryOptions.budget) + " (strategy '" +
                  retryOptions.strategy +
                  "'), which that strategy cannot meet",
              retryError);
    checker.checkPlan(retry->plan, retryOptions.budget);
  }

  // One plan per strategy with default parameters, as compare-strategies
  // (one input in eight).
  if (in.range(0, 7) == 0) {
    std::vector<std::string> notes;
    for (const sched::PlanResult &plan :
         planAllStrategies(graph, notes, options.dpSlots, kSearchWork))
      checker.checkPlan(plan, /*budget=*/0);
  }
  return 0;
}
