// REQUIRES: cbc
// The exact MILP strategy (CBC) on the 4-layer tanh chain of
// remat-rematerialize.mlir: the least peak is 48 bytes (during the first
// tanh_grad, gd, d and gc are live), reached with 6 tanh recomputations
// (cost 4 each); the independent verifier measures the same peak.
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize=strategy=milp --remat-verify-schedule -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: plan 'milp' (optimal (peak 48 B, {{.*}} of 60 s, warm start)): peak activation bytes 48 (store-all 96
// CHECK-SAME: 6 recomputed ops
// CHECK: remark: schedule verified: peak 48 bytes, 6 recomputed ops

// The plan attribute (nodes a=0 b=1 c=2 d=3 gb=8 ga=9 gx=10): at 48 bytes the
// plan is unique (see AUTO48 in remat-rematerialize.mlir): only d is held,
// a, b, c are rebuilt from the input before gb, a, b before ga, a before gx.
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="strategy=milp annotate=true" 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN: remat.plan = {detail = "optimal{{.*}}", kept = [3], peak = 48 : i64, recompute = {{\[}}[8, 0, 1, 2], [9, 0, 1], [10, 0]], recomputed_ops = 6 : i64, store_all_peak = 96 : i64, strategy = "milp"}

// With a budget: the least recompute within it. At 64 bytes two tanh
// recomputations suffice (the greedy plan of remat-rematerialize.mlir). The
// recompute lower bound (LowerBound.h) is 8 there too, so the warm start is
// proven optimal without running CBC.
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="strategy=milp budget=64" --remat-verify-schedule=budget=64 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: remark: plan 'milp' (optimal (recompute cost 8, {{.*}}); the warm start, proven optimal by the lower bound (LowerBound.h) without CBC): peak activation bytes 64 (store-all 96
// BUDGET-SAME: recompute cost 8 ({{.*}}), 2 recomputed ops
// BUDGET: remark: schedule verified
// At 64 bytes two plans tie (drop a and c, or a and b; 2 recomputations
// each), so only the peak and the count are pinned.
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="strategy=milp budget=64 annotate=true" 2>&1 | FileCheck %s --check-prefix=PLAN64
// PLAN64: remat.plan = {detail = "optimal{{.*}}", kept = {{\[}}{{.*}}], peak = 64 : i64, recompute = {{\[}}{{.*}}], recomputed_ops = 2 : i64, store_all_peak = 96 : i64, strategy = "milp"}

// Below the least peak the planner names the smallest budget.
// RUN: not remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="strategy=milp budget=40" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// INFEASIBLE: error: budget of 40 bytes is below what strategy 'milp' can meet; the smallest budget remat can meet for this graph is 48 bytes

// time-limit= bounds the solver's wall time; the JSON reports the objective,
// the best bound, the gap and the time (proven here: bound = objective).
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="strategy=milp time-limit=5 report-json=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=JSON
// JSON: "strategy": "milp",
// JSON: "detail": "optimal (peak 48 B, {{.*}} of 5 s, warm start)",
// JSON: "solver": {
// JSON-NEXT: "optimal": true,
// JSON-NEXT: "objective": 48,
// JSON-NEXT: "bound": 48,
// JSON-NEXT: "gap_percent": 0,
// JSON-NEXT: "seconds":
// JSON-NEXT: "time_limit_seconds": 5,
// JSON-NEXT: "warm_start": true,
// JSON-NEXT: "from_warm_start": false

// RUN: not remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="strategy=milp time-limit=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: error: time-limit must be positive, got 0
