// --remat-rematerialize on training steps written with their backward and
// without #remat.phase marks, given the op that seeds the gradient (the
// `remat.grad_seed` attribute, or grad-seed=NAME for the op at loc("NAME")):
// the phases come from the dependences (an op is backward iff it is the seed
// or depends on it), a remark says what was inferred, and the rewrite passes
// the independent verifier.
//
// RUN: remat-opt %s --remat-rematerialize='strategy=store-all' --remat-verify-schedule -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: remat-opt %s --remat-rematerialize='strategy=greedy threshold=16 annotate=true' 2>/dev/null | FileCheck %s --check-prefix=GREEDY
// RUN: remat-opt %s --remat-rematerialize='strategy=greedy threshold=16' --remat-verify-schedule=budget=64 -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not remat-opt %s -split-input-file --remat-rematerialize='grad-seed=seed strategy=store-all' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: remat-opt %s --remat-compare-strategies -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPARE

// A 4-layer tanh chain with a running-statistic-like state update `%upd`
// (the next value of the state argument, result #2) placed among the
// backward ops: it reads the forward value %c and not the seed, so it is a
// forward op wherever it stands. Seed: the constant 1 (the loss gradient).
// Forward: a b c d loss upd (6); backward: the seed, gd gc gb ga gx (6).
// REMARK: remark: phases from the gradient seed 'arith.constant' at {{.*}}grad-seed.mlir{{.*}}: 6 forward ops, 6 backward ops (the seed and what depends on it), 1 forward ops after the first backward op; loss: result #0 ('remat.mse')
// REMARK: remark: schedule verified: peak 96 bytes, 0 recomputed ops
//
// Greedy with a 16-byte threshold keeps b and d and recomputes c (node 2)
// before the late state update (node 8), which reads it as gb does, and a
// (node 0) before gx (node 11): peak 64 bytes, as on the marked chain of
// remat-rematerialize.mlir. The rewrite writes the inferred phases on the
// ops; the late forward op stays unmarked and runs where it stood. Nodes:
// a=0 b=1 c=2 d=3 loss=4 one=5 gd=6 gc=7 upd=8 gb=9 ga=10 gx=11.
// GREEDY-LABEL: func.func @seeded(%arg0
// GREEDY-SAME: kept = [1, 3], peak = 64 : i64, recompute = {{\[}}[8, 2], [11, 0]]
// GREEDY: remat.mse {{.*}}#remat.phase<loss>
// GREEDY: arith.constant {remat.grad_seed, remat.phase = #remat.phase<backward>}
// GREEDY: remat.mse_grad {{.*}}#remat.phase<backward>
// GREEDY: remat.tanh_grad {{.*}}#remat.phase<backward>
// GREEDY: %[[C:.*]] = remat.recompute
// GREEDY: %[[UPD:.*]] = remat.add %arg2, %[[C]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GREEDY-NEXT: remat.tanh_grad %{{.*}}, %[[C]] {remat.phase = #remat.phase<backward>}
// GREEDY: return %{{.*}}, %{{.*}}, %[[UPD]]
// VERIFY: remark: phases from the gradient seed
// VERIFY: remark: schedule verified: peak 64 bytes, 2 recomputed ops
func.func @seeded(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>, %rs: tensor<4xf32> {remat.state})
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32> {remat.state = 2 : i64}) {
  %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = remat.tanh %b : (tensor<4xf32>) -> tensor<4xf32>
  %d = remat.tanh %c : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %d, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant {remat.grad_seed} dense<1.0> : tensor<f32>
  %gd = remat.mse_grad %d, %t, %one : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %gc = remat.tanh_grad %gd, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %upd = remat.add %rs, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gb = remat.tanh_grad %gc, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ga = remat.tanh_grad %gb, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gx = remat.tanh_grad %ga, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx, %upd : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// With grad-seed=NAME, a function without an op at loc("NAME") is an error
// (@seeded names its seed with the attribute only).
// NAMED: error: grad-seed='seed' names no top-level op of @seeded (the seed's location must be loc("seed"), or mark the op with 'remat.grad_seed')

// -----

// The same step without the attribute: by default the split is inferred
// from the loss, and the state update (what result #2, a remat.state result,
// depends on) is forward there too; the constant is counted forward.
// With grad-seed=seed the op at loc("seed") is the seed.
// REMARK: remark: no #remat.phase annotations: inferred the split from the loss, result #0 ('remat.mse'): 7 forward ops (the loss, the next state and what they depend on), 5 backward ops (the rest; the first is 'remat.mse_grad'
// NAMED: remark: phases from the gradient seed 'arith.constant' at loc("seed"): 6 forward ops, 6 backward ops (the seed and what depends on it), 1 forward ops after the first backward op; loss: result #0 ('remat.mse')
// COMPARE: remark: phases from the gradient seed 'arith.constant'
// COMPARE: remark: no #remat.phase annotations: inferred the split from the loss
func.func @by_loss(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>, %rs: tensor<4xf32> {remat.state})
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32> {remat.state = 2 : i64}) {
  %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = remat.tanh %b : (tensor<4xf32>) -> tensor<4xf32>
  %d = remat.tanh %c : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %d, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32> loc("seed")
  %gd = remat.mse_grad %d, %t, %one : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %gc = remat.tanh_grad %gd, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %upd = remat.add %rs, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gb = remat.tanh_grad %gc, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ga = remat.tanh_grad %gb, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gx = remat.tanh_grad %ga, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx, %upd : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
