// lower-bound=S: a lower bound on the recompute of every schedule within the
// budget (docs/Scheduling.md, "Lower bounds"), reported with the plan's gap,
// on the 4-layer tanh chain of remat-rematerialize.mlir (16-byte
// activations, tanh cost 4, forward cost 17).

// At the least peak (48 bytes) the windows between backward steps add up to
// the optimum: during each tanh_grad only its own operands fit, so c, b, a
// are rebuilt before gb (12), b, a before ga (8), a before gx (4). The bound
// proves the plan optimal.
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="budget=48 lower-bound=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LEAST
// LEAST: peak activation bytes 48 {{.*}}, recompute cost 24 ({{.*}} ms; recompute lower bound 24 (141.2% of forward), gap to bound 0.0%

// At 80 bytes one tanh must be recomputed: bound 4, plan 4.
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="budget=80 lower-bound=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EIGHTY
// EIGHTY: recompute cost 4 ({{.*}} ms; recompute lower bound 4 (23.5% of forward), gap to bound 0.0%

// At 90 bytes the multiplier alone gives 1.5; the branch and bound on the
// knapsack row closes the gap to the plan's 4.
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="budget=90 lower-bound=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NINETY
// NINETY: recompute cost 4 ({{.*}} ms; recompute lower bound 4 (23.5% of forward), gap to bound 0.0%

// At 60 bytes the bound is loose (12 against the plan's 24, which the MILP
// proves optimal): the JSON carries the bound, its share of the forward
// cost and the gap.
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="budget=60 lower-bound=5 report-json=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=JSON
// JSON: "recompute_cost": 24,
// JSON: "lower_bound": {{11\.99|12}}
// JSON-NEXT: "lower_bound_percent": {{70\.58|70\.59}}
// JSON-NEXT: "gap_to_bound": {{49\.99|50}}
// JSON-NEXT: "lower_bound_seconds":
// JSON-NEXT: "lower_bound_complete": true

// Without the option nothing is computed or reported.
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="budget=80 report-json=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=NONE
// NONE-NOT: lower_bound

// RUN: not remat-opt %S/remat-rematerialize.mlir --remat-rematerialize="budget=80 lower-bound=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: lower-bound must be >= 0 seconds, got -1
