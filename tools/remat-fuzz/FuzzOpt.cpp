//===- FuzzOpt.cpp - fuzz target of the MLIR parser and remat passes -------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The input is MLIR text. Like remat-opt, the target first refuses input
/// above the size limit or with brackets nested deeper than the default
/// `--max-nesting` (`remat/Support/InputLimits.h`): the upstream parser is
/// recursive and would overflow the stack. If the rest parses and verifies
/// (with every dialect remat-opt registers), every remat pass runs on its own copy of the
/// module, then a pipeline as a user runs it: `remat-autodiff` (when the
/// module holds no training step yet), `remat-rematerialize` with a strategy
/// and a budget derived from the input (a fraction of the store-all peak of
/// its first training step), and `remat-verify-schedule` with that budget.
/// Properties checked:
///  - no crash, hang or sanitizer report on any input;
///  - a pass that succeeds leaves IR that verifies;
///  - a rewrite that `remat-rematerialize` accepted under a budget passes
///    `remat-verify-schedule` with the same budget.
///
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "remat/Dialect/Remat/Transforms/TrainingGraph.h"
#include "remat/InitAll.h"
#include "remat/Scheduling/Planner.h"
#include "remat/Scheduling/Strategies.h"
#include "remat/Support/InputLimits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace remat;
using namespace remat::sched;
using namespace remat::fuzz;

namespace {
/// Dialects and passes, registered once per process.
struct Registry {
  DialectRegistry dialects;
  Registry() {
    registerAllDialects(dialects);
    registerAllPasses();
  }
};
} // namespace

/// Runs `pipeline` on a copy of `module`. Returns the copy if the pipeline
/// succeeded (then it must verify), null otherwise.
static OwningOpRef<ModuleOp> runOnCopy(ModuleOp module,
                                       llvm::StringRef pipeline) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  // The verifier runs below, so that a pass producing invalid IR is told
  // apart from a pass rejecting its input.
  pm.enableVerifier(false);
  std::string error;
  llvm::raw_string_ostream errorOs(error);
  fuzzCheck(succeeded(parsePassPipeline(pipeline, pm, errorOs)),
            "bad pipeline '" + pipeline + "'", error);
  if (failed(pm.run(*copy)))
    return nullptr;
  bool verified = succeeded(verify(*copy));
  fuzzCheck(verified,
            "'" + pipeline + "' succeeded but left IR that does not verify");
  return copy;
}

/// The store-all activation peak of the first function a rematerialization
/// would plan, or none.
static std::optional<int64_t> storeAllPeak(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!isTrainingStep(func) && !isForwardOnlyGraph(func))
      continue;
    FailureOr<TrainingGraph> tg = TrainingGraph::build(func);
    if (failed(tg))
      return std::nullopt;
    sched::SimResult sim;
    if (sched::simulate(tg->graph, sched::storeAll(tg->graph), sim))
      return std::nullopt;
    return sim.peakBytes;
  }
  return std::nullopt;
}

static bool hasTrainingStep(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    if (isTrainingStep(func) || isForwardOnlyGraph(func))
      return true;
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Registry registry;
  // The prescan of remat-opt (and remat-compile): input it refuses never
  // reaches the parser.
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  if (size > kDefaultMaxInputBytes ||
      findExcessiveNesting(input, kDefaultMaxNesting, NestingSyntax::MLIR))
    return 0;
  MLIRContext context(registry.dialects, MLIRContext::Threading::DISABLED);
  DiagnosticLog log(context);
  // The MLIR lexer reads the byte past the end: it must be a terminator, as
  // in every buffer remat-opt reads (the fuzz input has none).
  std::string text = input.str();
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module || failed(verify(*module)))
    return 0;

  // Every pass alone, with its defaults (reports go to remarks only); the
  // passes that run on functions nested under func.func.
  for (llvm::StringRef pass :
       {"func.func(remat-verify-schedule)",
        "func.func(remat-memory-report{per-op})",
        "func.func(remat-compare-strategies)", "func.func(remat-autodiff)",
        "func.func(remat-lower-to-linalg)", "func.func(remat-open-recompute)",
        "func.func(remat-plan-arena)"})
    runOnCopy(*module, pass);

  // The user's pipeline.
  OwningOpRef<ModuleOp> step = module->clone();
  if (!hasTrainingStep(*step))
    if (OwningOpRef<ModuleOp> differentiated =
            runOnCopy(*module, "func.func(remat-autodiff)"))
      step = std::move(differentiated);
  std::optional<int64_t> peak = storeAllPeak(*step);
  if (!peak)
    return 0;

  uint64_t hash = llvm::xxh3_64bits(llvm::ArrayRef(data, size));
  llvm::ArrayRef<llvm::StringRef> strategies = getStrategyNames();
  llvm::StringRef strategy = strategies[hash % strategies.size()];
  // CBC solves take up to a minute each: one input in 16 may use milp.
  if (strategy == strategy::kMilp && (hash >> 8) % 16)
    strategy = strategy::kAuto;
  // No budget, or 1/8 .. 8/8 of the store-all peak, or one byte.
  int64_t budget = 0;
  switch (uint64_t pick = (hash >> 16) % 10) {
  case 0:
    break;
  case 1:
    budget = 1;
    break;
  default:
    budget = std::max<int64_t>(1, *peak / 8 * int64_t(pick - 1));
  }
  std::string options = "strategy=" + strategy.str() +
                        " budget=" + std::to_string(budget);
  log.clear();
  OwningOpRef<ModuleOp> rewritten =
      runOnCopy(*step, "func.func(remat-rematerialize{" + options + "})");
  if (!rewritten)
    return 0;
  std::string verifyPipeline =
      "func.func(remat-verify-schedule{budget=" + std::to_string(budget) +
      "})";
  bool verified = bool(runOnCopy(*rewritten, verifyPipeline));
  fuzzCheck(verified, "remat-rematerialize{" + options + "} succeeded but " +
                          verifyPipeline + " rejects its rewrite");
  return 0;
}
