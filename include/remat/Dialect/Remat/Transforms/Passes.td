//===- Passes.td - remat passes ----------------------------*- tablegen -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_TRANSFORMS_PASSES_TD
#define REMAT_DIALECT_REMAT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematAutodiff : Pass<"remat-autodiff", "mlir::func::FuncOp"> {
  let summary = "Builds the training step of a forward function (reverse mode)";
  let description = [{
    For every `func.func` that returns a single scalar loss (a rank-0 float
    tensor) and has arguments marked `remat.param`, appends the backward ops
    that compute the gradient of the loss with respect to every marked
    argument, and returns the loss followed by the gradients in argument
    order. Gradients are accumulated with `remat.add` where a value fans out.
    The op computing the returned loss is marked `#remat.phase<loss>` and
    every created op `#remat.phase<backward>`; the function gets the unit
    attribute `remat.training_step`. Functions without `remat.param`
    arguments are left alone, and so are training steps: functions with
    `remat.training_step`, with `#remat.phase<backward>` ops, or with an op
    marked `remat.grad_seed` (a step written with its backward).

    Before:
    ```mlir
    func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param},
                 %t: tensor<4x8xf32>) -> tensor<f32> {
      %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
      return %1 : tensor<f32>
    }
    ```
    After:
    ```mlir
    func.func @f(...) -> (tensor<f32>, tensor<8x8xf32>) attributes {remat.training_step} {
      %0 = remat.matmul %x, %w : ...
      %1 = remat.mse %0, %t {remat.phase = #remat.phase<loss>} : ...
      %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<f32>
      %2 = remat.mse_grad %0, %t, %cst {remat.phase = #remat.phase<backward>} : ...
      %3 = remat.matmul %x, %2 {transpose_a, remat.phase = #remat.phase<backward>} : ...
      return %1, %3 : tensor<f32>, tensor<8x8xf32>
    }
    ```
    Ops without `RematGradientOpInterface` on the path from a parameter to
    the loss are reported with an error at their location. Upstream ops get
    the interface through external models (GradientExternalModels.cpp):
    elementwise arith/math on tensors, linalg.matmul, batch_matmul,
    transpose, broadcast and fill, and elementwise or reduction
    linalg.generic ops whose body is built from scalar ops with a rule
    (differentiated per element by a linalg.generic that recomputes the
    forward scalars); an unsupported body op is named in the error.

    State: a function may also return the next values of non-trainable
    state (the running statistics of a batch norm), each result marked
    `remat.state = N : i64` where argument #N, marked `remat.state`, holds
    the current value (same type). The loss is then the only unmarked
    result. Only the loss is differentiated (no gradient flows into or out
    of the state); the state results are returned after the gradients, in
    their order and with their attributes, computed by the forward ops as
    before (they are outputs of the step: the schedulers keep them to the
    end and count them apart like the gradients).

    Before:
    ```mlir
    func.func @f(%w: tensor<4xf32> {remat.param}, %t: tensor<4xf32>,
                 %s: tensor<4xf32> {remat.state})
        -> (tensor<4xf32> {remat.state = 2 : i64}, tensor<f32>) {
      %0 = remat.tanh %w : ...
      %1 = remat.add %s, %0 : ...
      %2 = remat.mse %0, %t : ...
      return %1, %2 : tensor<4xf32>, tensor<f32>
    }
    ```
    After: `-> (tensor<f32>, tensor<4xf32>, tensor<4xf32> {remat.state = 2 :
    i64})`, returning the loss `%2`, the gradient of `%w` and `%1`.
    Several unmarked results, or none, are an error.

    The pass runs on one `func.func` at a time (it reads and rewrites only
    that function), so functions are differentiated in parallel when the
    pass is nested under `func.func`.
  }];
  let dependentDialects = ["::remat::RematDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numDifferentiated", "functions-differentiated",
              "Functions that got their backward ops">,
    Statistic<"numBackwardOps", "backward-ops",
              "Backward ops created (after dropping the unused ones)">,
  ];
}

def RematMemoryReport : Pass<"remat-memory-report", "mlir::func::FuncOp"> {
  let summary = "Reports liveness, live bytes per op and the memory peak";
  let description = [{
    Runs the liveness analysis over the op order of every function: a value
    is live from its definition to its last use (a `remat.keep` hint is not
    a use; the values an op reads and the values it produces are live
    together while it runs). Function arguments (inputs and parameters) and
    returned values (the loss and the parameter gradients, like preallocated
    gradient buffers) are counted apart from activations. The ops inside a
    `remat.recompute` are executed in its place: its block arguments alias
    its inputs and its results alias the yielded values.

    Emits a remark on the function with the peak activation bytes, the total
    with arguments, and the op at which the peak is reached; a remark at that
    op; with `per-op`, a remark at every op with its live bytes. With
    `json-file`, the same report as JSON: the pass leaves it on the function
    (the `remat_reports` attribute, see Reports.h) and `remat-opt` writes
    the file after the pipeline, one JSON array with every function in
    module order. Sizes are 64-bit; a value whose size overflows 64 bits or
    is not statically shaped is an error. The pass runs on one `func.func`
    at a time.

    Before/after: the IR is unchanged; the report is the output, e.g.
    `remark: peak activation bytes 1536 (total with arguments 2048) at remat.matmul`.
  }];
  let options = [
    Option<"perOp", "per-op", "bool", /*default=*/"false",
           "Emit a remark with the live bytes at every op">,
    Option<"jsonFile", "json-file", "std::string", /*default=*/"\"\"",
           "Write the report as JSON to this file ('-' for stdout)">,
  ];
  let statistics = [
    Statistic<"numReported", "functions-reported",
              "Functions whose liveness was reported">,
  ];
}

def RematRematerialize : Pass<"remat-rematerialize", "mlir::func::FuncOp"> {
  let summary = "Chooses what to keep and what to recompute, and rewrites the IR";
  let description = [{
    Plans every training step (a `func.func` with `#remat.phase<backward>`
    ops) and every forward-only function (below) with one strategy and
    materialises the plan with the one rewriter: the forward ops a plan
    recomputes are cloned into `remat.recompute` regions placed right before
    the first backward op (in a forward-only function, the op) that needs
    them, and later uses read the recomputed values.

    Strategies (`strategy=`):
    - `store-all`: keep everything (the baseline).
    - `sqrt`: Chen et al. Algorithm 1, ceil(sqrt(n)) segments whose
      boundaries are separators of the forward graph (values no edge jumps
      over, so residual and skip connections stay inside a segment).
    - `greedy`: Chen et al. Algorithm 2 with `threshold=` bytes, or with
      `threshold=0` the paper's search over the threshold for the smallest
      peak (the chosen threshold is reported).
    - `logn`: Chen's recursive segmentation, O(log n) memory.
    - `revolve`: Griewank's binomial checkpointing with `slots=` checkpoints
      on the chain of segments; with a budget and `slots=0`, the most slots
      that fit.
    - `chain-opt`: the optimum for heterogeneous chains (dynamic programming
      over exact memory; `dp-slots=` discretises it only when the exact
      table grows too long) under the budget; on chains longer than 100
      segments the binomial schedule on the full chain competes with the DP
      on the coarsened one.
    - `auto`: the budget driver: every strategy and parameter above, and the
      plan that fits `budget=` with the least recompute cost.
    - `forward-min-peak`: for forward-only functions (below).
    - `milp`: exact mixed-integer program (Checkmate-style, solved with CBC;
      only when remat was built with coinor-libcbc-dev) for training steps of
      at most 80 ops: with `budget=` the least recompute within it, without
      one the least peak; the plan is checked by simulation. The solve is
      warm-started from the best heuristic plan and stops after
      `time-limit=` seconds of wall time in all (CBC checks its clock between
      branch-and-bound nodes); the remark and the JSON report the objective,
      the best bound, the gap and the time. `auto` includes it on graphs of
      at most 32 ops with at most 10 s.
    - `mincut`: the saved set as a minimum cut (PyTorch's min-cut
      partitioner generalised: saved bytes + a weight times recomputed cost,
      expensive ops optionally banned), swept over weights and ban levels;
      with `budget=` the least recompute within it, without one the least
      peak. `auto` includes every plan of the sweep.

    `max-recompute=P%` (or `P`): the least peak among the plans that
    recompute at most P percent of the forward cost (for `auto`: every
    strategy, and Revolve and the chain optimum at budgets of 0.2 .. 0.9 of
    store-all); with `budget=` too, the plan must also fit it.

    `lower-bound=S` (with `budget=`): spend up to S seconds on a lower bound
    on the recompute cost of every schedule within the budget (Lagrangian
    min-cut bounds at single steps, tightened by a branch and bound on each
    step's knapsack row, and over windows of steps, whose bounds add up,
    combined by a dynamic program; docs/Scheduling.md); the remark
    and the JSON report it with the plan's gap to it (`lower_bound`,
    `gap_to_bound`).

    Forward-only functions (the unit attribute `remat.forward_only`, which
    remat-import sets on graphs without a backward phase such as the Moccasin
    DAGs) are planned too: any value may be freed after a use and recomputed
    right before a later consumer, so the `remat.recompute` regions sit
    before forward ops. There `auto` and `forward-min-peak` run a greedy
    search over which values to drop (guided by the exact simulation; a
    heuristic, not the optimum that Moccasin's CP or Checkmate's MILP
    compute): without a budget it returns the least peak it finds (where a
    training step's `auto` returns store-all), with one the least recompute
    it finds within it. `store-all` is the baseline; the other strategies
    need a training step and fail.
    Functions without `#remat.phase` annotations (a training step written
    in upstream `linalg`/`tensor`/`arith`/`math`, as a framework lowering
    hands it over) are planned when their split can be inferred: the loss is
    the returned value `loss-result=` names (default: the first returned
    scalar float), the forward ops are the ops the loss depends on, the
    backward ops the rest. A remark says what was inferred, and the pass
    writes the inferred phases on the ops (`#remat.phase<loss>`,
    `#remat.phase<backward>`) so that `--remat-verify-schedule` sees the
    same split. With `budget=`, a function that has no backward, is not
    forward-only and whose split cannot be inferred is an error saying why.
    The loss-based split counts the ops computing the `remat.state` results
    (the next batch-norm running statistics) as forward too.

    A function written with its backward (by hand, or a joint graph from an
    exporter) can name the op that seeds the gradient (the loss gradient,
    usually a constant 1): the `remat.grad_seed` unit attribute on that op,
    or `grad-seed=NAME` for the op at `loc("NAME")`. The phases then come
    from the dependences: an op is backward iff it is a seed or depends on
    one, so forward values computed after backward ops (state updates,
    statistics read only by the backward) stay forward and are planned
    wherever they stand. A remark names the seed and counts the forward and
    backward ops and the forward ops after the first backward op. On a
    function that also has `#remat.phase` marks, each mark that contradicts
    the dependences is a located error.
    Structured ops with regions (`linalg.generic`, `linalg.matmul`, ...) are
    single units, cloned whole into recompute regions, together with the ops
    that only produce their destination-passing inits (`tensor.empty`, a
    `linalg.fill`); see docs/Conventions.md.

    `budget=` is in bytes of activations (function arguments excluded). A
    plan whose simulated peak equals the budget is accepted. If nothing fits,
    the pass fails with the smallest budget that any strategy meets. Hints
    are honoured: values marked by `remat.keep` stay, ops marked
    `remat.no_recompute`, with side effects, or with regions that are not a
    scalar payload are never recomputed.

    Reports a remark per function (peak activation bytes against store-all,
    total with arguments, recompute cost absolute and as a percentage of the
    forward cost, recomputed op count, planning time) and, with
    `report-json=`, the same as JSON: the pass leaves each function's report
    on the function (the `remat_reports` attribute, see Reports.h) and
    `remat-opt` writes the file after the pipeline, one JSON array with
    every planned function in module order.

    The pass runs on one `func.func` at a time (planning and the rewrite
    read and change only that function; no module-level symbol is used), so
    functions are planned in parallel when it is nested under `func.func`.
    The options are checked once, before any function is planned.

    With `annotate=true` every planned function also gets the plan as the
    `remat.plan` dictionary attribute, written after the rewrite (and after
    `verify=true`), so that tests pin a strategy's decisions with CHECK lines.
    Nodes are named by their index in the scheduling graph: the position
    among the function's top-level ops before the rewrite, the terminator and
    `remat.keep` hints not counted. Fields: `strategy`, `detail` (the
    strategy's parameter, when it has one), `peak` (the simulated activation
    peak in bytes), `store_all_peak`, `recomputed_ops` (recomputed op
    executions), `kept` (the forward nodes whose forward instance the
    backward phase or a recomputation reads: the checkpoints) and
    `recompute` (one `[k, n1, n2, ...]` per node `k` that gets a
    `remat.recompute` region: the nodes recomputed right before `k`, in
    order). The attribute is bookkeeping: no pass reads it, and the schedule
    verifier compares function bodies, not function attributes. For the
    4-layer tanh chain of `test/Transforms/remat-rematerialize.mlir`
    (a=0 b=1 c=2 d=3 loss=4 ... gb=8 ga=9 gx=10), `strategy=greedy
    threshold=16` gives `remat.plan = {detail = "threshold=16", kept = [1,
    3], peak = 64 : i64, recompute = [[8, 2], [10, 0]], recomputed_ops = 2 :
    i64, store_all_peak = 96 : i64, strategy = "greedy"}`: `b` and `d` stay,
    `c` is recomputed before the `tanh_grad` that reads it and `a` before
    the last one.

    Before:
    ```mlir
    %1 = remat.tanh %0 : ...
    ...
    %9 = remat.tanh_grad %8, %1 {remat.phase = #remat.phase<backward>} : ...
    ```
    After (`%1` recomputed from `%0` before its backward use):
    ```mlir
    %r = remat.recompute(%0) : (tensor<..>) -> tensor<..> {
    ^bb0(%a: tensor<..>):
      %t = remat.tanh %a : ...
      remat.yield %t : tensor<..>
    }
    %9 = remat.tanh_grad %8, %r {remat.phase = #remat.phase<backward>} : ...
    ```
  }];
  let options = [
    Option<"gradSeed", "grad-seed", "std::string", /*default=*/"\"\"",
           "Name location (loc(\"NAME\")) of the op that seeds the gradient: "
           "phases from the dependences on it (as the remat.grad_seed "
           "attribute)">,
    Option<"lossResult", "loss-result", "int64_t", /*default=*/"-1",
           "Index of the returned loss in functions without #remat.phase "
           "annotations (-1: the first returned scalar float)">,
    Option<"strategy", "strategy", "std::string", /*default=*/"\"auto\"",
           "auto, store-all, sqrt, greedy, logn, revolve, chain-opt, forward-min-peak, milp or mincut">,
    Option<"maxRecompute", "max-recompute", "std::string", /*default=*/"\"\"",
           "Recompute limit in percent of the forward cost, e.g. 30%: the least peak within it">,
    Option<"budget", "budget", "int64_t", /*default=*/"0",
           "Activation memory budget in bytes (0: none)">,
    Option<"slots", "slots", "unsigned", /*default=*/"0",
           "Revolve checkpoint slots (0: most that fit the budget, or sqrt of the stages)">,
    Option<"threshold", "threshold", "int64_t", /*default=*/"0",
           "Greedy segment threshold in bytes (0: search)">,
    Option<"dpSlots", "dp-slots", "unsigned", /*default=*/"500",
           "Memory discretisation of the chain dynamic program (fallback of its exact table)">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"60",
           "Wall-time limit in seconds of the exact MILP (strategy milp; auto gives it at most 10 s)">,
    Option<"lowerBound", "lower-bound", "double", /*default=*/"0",
           "With a budget: seconds for a lower bound on the recompute of "
           "any schedule within it, reported with the plan's gap to it "
           "(0: none)">,
    Option<"reportJson", "report-json", "std::string", /*default=*/"\"\"",
           "Write the plan report as JSON to this file ('-' for stdout)">,
    Option<"verify", "verify", "bool", /*default=*/"false",
           "Check every rewritten function with the independent schedule "
           "verifier against a copy of the function taken before the rewrite "
           "(as --remat-verify-schedule with original= and the same budget)">,
    Option<"annotate", "annotate", "bool", /*default=*/"false",
           "Write the chosen plan into the IR as the remat.plan dictionary "
           "attribute of each planned function">,
  ];
  let statistics = [
    Statistic<"numPlanned", "functions-planned",
              "Functions planned and rewritten">,
    Statistic<"numRecomputedOps", "ops-recomputed",
              "Ops cloned into remat.recompute regions">,
    Statistic<"numBytesSaved", "bytes-saved",
              "Simulated activation peak bytes saved against store-all, "
              "summed over the functions">,
    Statistic<"numValuesKept", "values-kept",
              "Forward values kept as checkpoints (read in their forward "
              "instance by the backward phase or a recomputation)">,
  ];
}

def RematCompareStrategies : Pass<"remat-compare-strategies", "mlir::func::FuncOp"> {
  let summary = "Plans every training step with every strategy and prints a table";
  let description = [{
    Runs store-all, sqrt, greedy (with the threshold search), logn, revolve
    (sqrt(#segments) slots) and chain-opt (at the memory of sqrt) on every
    training step without changing the IR, and writes a readable table (peak
    activation bytes, ratio to store-all, recompute cost and percentage of
    the forward, recomputed ops, planning time) to `table=` ('-' for stdout)
    and the same as JSON to `json=`. Strategies that decline a graph (for
    example chain strategies on a graph that is not a chain of segments) are
    listed with the reason. Each row is also emitted as a remark.
    Forward-only functions (`remat.forward_only`) get store-all and
    forward-min-peak; the training-step strategies are listed as declined.

    With `pareto=FILE`, also writes the (peak, recompute) frontier of every
    function as JSON: the non-dominated plans over every strategy and
    parameter and Revolve and the chain optimum at budgets of 0.2 .. 0.9 of
    store-all, and the plan chosen under `max-recompute=` (default 30%),
    marked; `scripts/plot-pareto.py` draws it.

    The pass runs on one `func.func` at a time and leaves the function's
    table row, JSON object and frontier on the function (the
    `remat_reports` attribute, see Reports.h); `remat-opt` writes each file
    after the pipeline, with every function in module order (the table as
    the concatenation of the functions' tables, the JSON files as arrays).
  }];
  let options = [
    Option<"gradSeed", "grad-seed", "std::string", /*default=*/"\"\"",
           "Name location (loc(\"NAME\")) of the op that seeds the gradient: "
           "phases from the dependences on it (as the remat.grad_seed "
           "attribute)">,
    Option<"lossResult", "loss-result", "int64_t", /*default=*/"-1",
           "Index of the returned loss in functions without #remat.phase "
           "annotations (-1: the first returned scalar float)">,
    Option<"pareto", "pareto", "std::string", /*default=*/"\"\"",
           "Write the peak/recompute frontier as JSON to this file ('-' for stdout)">,
    Option<"maxRecompute", "max-recompute", "std::string", /*default=*/"\"30%\"",
           "Recompute limit (percent of the forward cost) of the plan marked in the frontier">,
    Option<"table", "table", "std::string", /*default=*/"\"\"",
           "Write the table to this file ('-' for stdout)">,
    Option<"json", "json", "std::string", /*default=*/"\"\"",
           "Write the comparison as JSON to this file ('-' for stdout)">,
    Option<"dpSlots", "dp-slots", "unsigned", /*default=*/"500",
           "Memory discretisation of the chain dynamic program">,
  ];
  let statistics = [
    Statistic<"numCompared", "functions-compared",
              "Functions planned with every strategy">,
    Statistic<"numPlans", "plans", "Plans computed (declined ones not counted)">,
  ];
}

def RematShuffleOps : Pass<"remat-shuffle-ops", "mlir::func::FuncOp"> {
  let summary = "Moves a training step's ops into another valid order (a test utility)";
  let description = [{
    Re-sequences the ops of every training step (or forward-only function)
    into a random topological order drawn from `seed`, for tests that
    planning does not depend on the op order (docs/Scheduling.md, "Any op
    order"); the same orders as `remat-import --shuffle` draws for imported
    graphs (`sched::shuffledOrder`, Phases.h):

    * `mode=interleave`: forward ops move among the backward ones, each
      phase keeping its relative order (as exporters emit them);
    * `mode=topological`: any op whose operands are defined may come next;
    * `mode=forward-first`: every forward op first, each phase in its order.

    Ops move as the units the planner sees (an op with the constants and
    initial values only it reads); `remat.keep` hints follow their op. A
    function without a forward/backward split (no backward ops, no gradient
    seed, no loss to infer it from) is left unchanged. Emits a remark with
    the number of ops moved.

    Before (`mode=interleave`):
      %a = remat.matmul %x, %w ...      // forward
      %b = remat.tanh %a ...            // forward
      %g = remat.mul %seed, %c ...      // backward, reads only %c
    After: %g may come before %b.
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"interleave\"",
           "How to re-sequence: interleave, topological or forward-first">,
    Option<"seed", "seed", "unsigned", /*default=*/"1",
           "Seed of the random order">,
    Option<"gradSeed", "grad-seed", "std::string", /*default=*/"\"\"",
           "Name location (loc(\"NAME\")) of the op that seeds the gradient: "
           "phases from the dependences on it">,
    Option<"lossResult", "loss-result", "int64_t", /*default=*/"-1",
           "Index of the returned loss in functions without #remat.phase "
           "annotations (-1: the first returned scalar float)">,
  ];
}

def RematVerifySchedule : Pass<"remat-verify-schedule", "mlir::func::FuncOp"> {
  let summary = "Independently checks a rewritten schedule: the values it computes (against the original), its recomputed clones and its memory peak";
  let description = [{
    Checks every `func.func` that a rematerialization rewrite produced,
    sharing no code with the schedulers, the rewriter or the memory
    analysis. With `original=FILE` (the module before the rewrite; functions
    are matched by symbol name) it proves that the rewrite computes the same
    values; without it only the structural checks 1, 3 and 4 run, and the
    success remark says that the values were not compared.

    1. Availability: every operand (and every `remat.recompute` input) is
       defined earlier in the function body, every op inside a recompute
       region reads only the region's block arguments or earlier ops of the
       region, and the region's block arguments are used only inside it. No
       op inside a region is a backward op (`#remat.phase<backward>`), has
       side effects, has regions or is marked `remat.no_recompute`.
    2. Translation validation (with `original=`): both functions are value
       numbered with hash-consed terms over the function arguments. A term is
       an op name, its result types, its attributes except `remat.phase` and
       `remat.no_recompute` (bookkeeping: the rewriter drops the phase from
       clones and the lowering drops both), the result number and the terms
       of the operands; a recompute block argument has the term of the input
       it captures and a recompute result the term of the value it yields;
       an op with side effects or regions also carries its position, so it
       is never equal to another execution. Randomness is in the term: a
       `remat.dropout` depends on its seed operand and `rate`, so a
       recomputed dropout is equal to the original only if it reproduces the
       mask. The ops outside recompute regions (the return included) must be
       those of the original, in order (same name, attributes, result types,
       operand count), and every operand of each must have the term of the
       corresponding operand in the original: every value a forward,
       backward or loss op reads and every returned value (loss, gradients)
       equals, as a computation from the arguments, what the original step
       reads there. The first difference is an error at the consumer naming
       the operand, what it should read (the original's defining op and
       location) and what it reads.
    3. Equivalence: every op inside a recompute region has the term of an op
       of the function outside the regions (a clone of it, reading values
       that compute the same thing). That op must be a forward (or loss) op
       that is not marked `remat.no_recompute` and whose result is not hinted
       `remat.keep`.
    4. Memory: the peak of the activation bytes over the execution order
       (recompute bodies executed in place; a value is live from its
       definition to its last use; a recompute's block arguments alias its
       inputs and its results alias the yielded values; `remat.keep` is not a
       use; function arguments and the values the function returns are
       counted apart, as resident buffers, and are not activations). With
       `budget` > 0, a peak above it is an error at the op where the peak is
       reached.

    Not proven: that the original step itself is correct, numerical
    properties of the ops (terms are syntactic: `a + b` and `b + a` differ),
    and anything about functions without a counterpart in `original=`
    (an error). Every check is linear in the size of the function (hash maps,
    one sweep for the peak).

    The IR is not changed. `--remat-rematerialize=verify=true` runs the same
    checks against a copy of each function taken before its rewrite
    (`remat-compile --budget/--strategy` does so).

    Before (a swapped yield: a backward op reads the wrong recomputed value;
    the original step `orig.mlir` reads the layer-2 activation there):
    ```mlir
    %r:2 = remat.recompute(%x, %w1, %w2) : ... {
    ^bb0(%a: ..., %b: ..., %c: ...):
      %h1 = remat.tanh ...
      %h2 = remat.tanh ...
      remat.yield %h2, %h1 : ...
    }
    %g = remat.tanh_grad %d, %r#1 {remat.phase = #remat.phase<backward>} : ...
    ```
    After `--remat-verify-schedule=original=orig.mlir` (the IR is
    unchanged; the pass fails):
    ```
    error: operand #1 of 'remat.tanh_grad' is not the value the original
    step reads: it should be result #0 of 'remat.tanh' at orig.mlir:9:8 in
    the original, but it is equal to result #0 of 'remat.tanh' at
    orig.mlir:7:8 in the original
    ```
    On success the function gets the remark `schedule verified: peak N
    bytes, M recomputed ops; ...` followed by what was compared; otherwise
    the first problem is reported as an error at the offending op (never
    with the function body).

    The pass runs on one `func.func` at a time; the `original=` file is
    parsed once, when the pass is initialised, and shared by the functions.
  }];
  let statistics = [
    Statistic<"numVerified", "functions-verified",
              "Functions whose schedule was verified">,
    Statistic<"numConsumersChecked", "consumers-checked",
              "Ops outside recompute regions (the return included) whose "
              "operands were compared with the original">,
    Statistic<"numRecomputedChecked", "recomputed-ops-checked",
              "Recomputed ops matched with an original forward op">,
  ];
  let options = [
    Option<"budget", "budget", "int64_t", /*default=*/"0",
           "Memory budget in bytes for the activation peak (0: none)">,
    Option<"original", "original", "std::string", /*default=*/"\"\"",
           "MLIR file holding the functions before the rewrite (same "
           "symbol names): prove that every op reads the values it read "
           "there">,
  ];
}

#endif // REMAT_DIALECT_REMAT_TRANSFORMS_PASSES_TD
