// A training step written by hand in upstream linalg/tensor/arith/math only,
// with its backward and without #remat.phase marks, whose gradient seed (the
// loss gradient, a constant 1 that the backward reads) carries the
// `remat.grad_seed` attribute: the 3-layer tanh MLP of
// upstream-training-step.mlir plus a running mean of h1 over the batch (a
// state result, as a training-mode batch norm updates its statistics),
// written among the backward ops. The phases come from the dependences on
// the seed: the state update is forward (it reads h1, not the seed).
//
// RUN: remat-opt %s --remat-memory-report --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: remat-opt %s --remat-rematerialize='strategy=chain-opt budget=2048' --remat-verify-schedule=budget=2048 --remat-memory-report --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMAT
// RUN: remat-opt %s --remat-rematerialize='strategy=chain-opt budget=2048' 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: remat-compile %s --strategy=chain-opt --budget=2048 -o %t.o --header=%t.h 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: FileCheck %s --check-prefix=HEADER < %t.h
// The same step with the seed named instead of marked (remat-compile's
// --grad-seed, as remat-rematerialize's grad-seed=): the same split, plan
// and arena; a name that matches no op, or a seed without a budget or a
// strategy, is an error. (Without --grad-seed the split would come from
// the loss, with another remark.)
// RUN: sed -e 's/^\(  %%seed = arith.constant\) {remat.grad_seed}\(.*\)$/\1\2 loc("dloss")/' %s > %t.named.mlir
// RUN: remat-compile %t.named.mlir --grad-seed=dloss --strategy=chain-opt --budget=2048 -o %t.named.o --header=%t.named.h 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: FileCheck %s --check-prefix=HEADER < %t.named.h
// RUN: not remat-compile %t.named.mlir --grad-seed=nosuch --budget=2048 -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=NOSUCH
// RUN: not remat-compile %t.named.mlir --grad-seed=dloss -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=NOBUDGET
// NOSUCH: error: grad-seed='nosuch' names no top-level op of @step
// NOBUDGET: error: --grad-seed=dloss needs a positive --budget or --strategy
//
// Store-all peaks at dz2 as in upstream-training-step.mlir: h0, h1, h2,
// dh2, dz2 = 5 x 512 = 2560 B (the running sum of h1, 64 B, lives after it).
// MEM: remark: memory peak: 2560 activation bytes live
// MEM: remark: peak activation bytes 2560
//
// The phases from the seed: 29 forward ops (the loss and what it depends
// on, and the five ops of the state update, which come after the first
// backward op: the planner sees them as 2 late forward units), 30 backward
// ops (the seed, what reads it, and their tensor.empty / linalg.fill inits).
// Under 2048 B chain-opt keeps h1 (the state update reads it after dw2) and
// drops h0 instead, recomputing layer 0 (fill + matmul + tanh) from x and w0
// right before dw1: at dz2, h1 + h2 + dh2 + dz2 = 2048 B. The rewritten IR
// and the independent verifier agree to the byte.
// REMAT: remark: phases from the gradient seed 'arith.constant' at loc({{.*}}upstream-grad-seed-step.mlir":{{[0-9]+}}:11): 29 forward ops, 30 backward ops (the seed and what depends on it), 5 forward ops after the first backward op; loss: result #0 ('linalg.generic')
// REMAT: remark: plan 'chain-opt' ({{.*}}): peak activation bytes 2048 (store-all 2560, ratio 0.800){{.*}}2 recomputed ops{{.*}}; peak in the rewritten IR 2048 bytes
// REMAT: remark: note: order: the input places 2 forward op(s) after the first backward op
// REMAT: remark: schedule verified: peak 2048 bytes, 5 recomputed ops
// REMAT: remark: memory peak: 2048 activation bytes live
//
// IR-LABEL: func.func @step
// IR: %[[H0:.*]] = linalg.generic
// IR: math.tanh
// IR: %[[H1:.*]] = linalg.generic
// IR: math.tanh
// IR: linalg.generic {{.*}} attrs = {remat.phase = #remat.phase<loss>}
// IR: arith.constant {remat.grad_seed, remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
// IR: linalg.matmul {{.*}}{remat.phase = #remat.phase<backward>} ins(%[[H1]], %{{.*}} : tensor<8x16xf32>, tensor<8x16xf32>)
// The state update stays where it was written, unmarked (forward), and reads
// the kept h1.
// IR-NEXT: tensor.empty() : tensor<16xf32>
// IR-NEXT: linalg.fill
// IR-NEXT: %[[RS:.*]] = linalg.generic {{.*}} ins(%[[H1]] : tensor<8x16xf32>) outs(%{{.*}} : tensor<16xf32>) {
// IR: %[[RM:.*]] = linalg.generic {{.*}} ins(%arg6, %[[RS]] : tensor<16xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<16xf32>) {
// IR: %[[R:.*]] = remat.recompute(%{{.*}}, %arg0, %arg2) : (f32, tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> {
// IR: linalg.matmul
// IR: math.tanh
// IR: remat.yield
// IR: linalg.matmul {{.*}} ins(%[[R]], %{{.*}} : tensor<8x16xf32>, tensor<8x16xf32>)
// IR-NOT: remat.recompute
// IR: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[RM]] :
//
// Compiled under the same budget: the arena (1664 B) stays within the
// planned 2048 B (bufferization writes the tanh derivatives in place over
// the gradients they read, which the planner does not model).
// COMPILE: remark: phases from the gradient seed 'arith.constant'
// COMPILE: remark: plan 'chain-opt'{{.*}}peak activation bytes 2048
// COMPILE: remark: schedule verified: peak 2048 bytes, 5 recomputed ops
// COMPILE: remark: remat-plan-arena: arena 1664 bytes, liveness lower bound 1664 bytes
// HEADER: #define REMAT_ARENA_BYTES 1664
// HEADER: #define REMAT_NUM_BUFFERS 13


#id = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> ()>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#nk = affine_map<(m, n, k) -> (n, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#mn = affine_map<(m, n, k) -> (m, n)>
#col = affine_map<(d0, d1) -> (d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @step(%x: tensor<8x16xf32>, %t: tensor<8x4xf32>, %w0: tensor<16x16xf32> {remat.param}, %w1: tensor<16x16xf32> {remat.param}, %w2: tensor<16x16xf32> {remat.param}, %w3: tensor<16x4xf32> {remat.param}, %rm: tensor<16xf32> {remat.state})
    -> (tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x4xf32>, tensor<16xf32> {remat.state = 6 : i64}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  // layer 0: h0 = tanh(hx @ w0)
  %m0_e = tensor.empty() : tensor<8x16xf32>
  %m0_f = linalg.fill ins(%zero : f32) outs(%m0_e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m0 = linalg.matmul indexing_maps = [#mk, #kn, #mn] ins(%x, %w0 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%m0_f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %h0_e = tensor.empty() : tensor<8x16xf32>
  %h0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m0 : tensor<8x16xf32>) outs(%h0_e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  // layer 1: h1 = tanh(h0 @ w1)
  %m1_e = tensor.empty() : tensor<8x16xf32>
  %m1_f = linalg.fill ins(%zero : f32) outs(%m1_e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m1 = linalg.matmul indexing_maps = [#mk, #kn, #mn] ins(%h0, %w1 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%m1_f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %h1_e = tensor.empty() : tensor<8x16xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m1 : tensor<8x16xf32>) outs(%h1_e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  // layer 2: h2 = tanh(h1 @ w2)
  %m2_e = tensor.empty() : tensor<8x16xf32>
  %m2_f = linalg.fill ins(%zero : f32) outs(%m2_e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m2 = linalg.matmul indexing_maps = [#mk, #kn, #mn] ins(%h1, %w2 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%m2_f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %h2_e = tensor.empty() : tensor<8x16xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<8x16xf32>) outs(%h2_e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  // output layer and loss = 0.5 * sum((o - t)^2)
  %o_e = tensor.empty() : tensor<8x4xf32>
  %o_f = linalg.fill ins(%zero : f32) outs(%o_e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %o = linalg.matmul indexing_maps = [#mk, #kn, #mn] ins(%h2, %w3 : tensor<8x16xf32>, tensor<16x4xf32>) outs(%o_f : tensor<8x4xf32>) -> tensor<8x4xf32>
  %loss_e = tensor.empty() : tensor<f32>
  %loss_f = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #id, #sum], iterator_types = ["reduction", "reduction"]} ins(%o, %t : tensor<8x4xf32>, tensor<8x4xf32>) outs(%loss_f : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %s = arith.mulf %d, %d : f32
    %h = arith.mulf %s, %half : f32
    %r = arith.addf %acc, %h : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  // backward: the seed dloss = 1, do = (o - t) * dloss
  %seed = arith.constant {remat.grad_seed} dense<1.0> : tensor<f32>
  %do_e = tensor.empty() : tensor<8x4xf32>
  %do = linalg.generic {indexing_maps = [#id, #id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%o, %t, %seed : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>) outs(%do_e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32, %c: f32):
    %d = arith.subf %a, %b : f32
    %ds = arith.mulf %d, %s : f32
    linalg.yield %ds : f32
  } -> tensor<8x4xf32>
  // dw3 = h2^T @ do
  %dw3_e = tensor.empty() : tensor<16x4xf32>
  %dw3_f = linalg.fill ins(%zero : f32) outs(%dw3_e : tensor<16x4xf32>) -> tensor<16x4xf32>
  %dw3 = linalg.matmul indexing_maps = [#km, #kn, #mn] ins(%h2, %do : tensor<8x16xf32>, tensor<8x4xf32>) outs(%dw3_f : tensor<16x4xf32>) -> tensor<16x4xf32>
  // dh2 = do @ w3^T
  %dh2_e = tensor.empty() : tensor<8x16xf32>
  %dh2_f = linalg.fill ins(%zero : f32) outs(%dh2_e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dh2 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%do, %w3 : tensor<8x4xf32>, tensor<16x4xf32>) outs(%dh2_f : tensor<8x16xf32>) -> tensor<8x16xf32>
  // dz2 = dh2 * (1 - h2^2)
  %dz2_e = tensor.empty() : tensor<8x16xf32>
  %dz2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%dh2, %h2 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%dz2_e : tensor<8x16xf32>) {
  ^bb0(%g: f32, %y: f32, %c: f32):
    %yy = arith.mulf %y, %y : f32
    %d = arith.subf %one, %yy : f32
    %r = arith.mulf %g, %d : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  // dw2 = h1^T @ dz2
  %dw2_e = tensor.empty() : tensor<16x16xf32>
  %dw2_f = linalg.fill ins(%zero : f32) outs(%dw2_e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %dw2 = linalg.matmul indexing_maps = [#km, #kn, #mn] ins(%h1, %dz2 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%dw2_f : tensor<16x16xf32>) -> tensor<16x16xf32>
  // The running mean of h1 over the batch (a state update, momentum 0.1),
  // written among the backward ops: rm' = 0.9 rm + 0.1 / 8 * sum_rows(h1).
  %rs_e = tensor.empty() : tensor<16xf32>
  %rs_f = linalg.fill ins(%zero : f32) outs(%rs_e : tensor<16xf32>) -> tensor<16xf32>
  %rs = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%h1 : tensor<8x16xf32>) outs(%rs_f : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %rm_e = tensor.empty() : tensor<16xf32>
  %rm_next = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%rm, %rs : tensor<16xf32>, tensor<16xf32>) outs(%rm_e : tensor<16xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %keep = arith.constant 0.9 : f32
    %rate = arith.constant 0.0125 : f32
    %p = arith.mulf %a, %keep : f32
    %q = arith.mulf %s, %rate : f32
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  // dh1 = dz2 @ w2^T
  %dh1_e = tensor.empty() : tensor<8x16xf32>
  %dh1_f = linalg.fill ins(%zero : f32) outs(%dh1_e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dh1 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%dz2, %w2 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%dh1_f : tensor<8x16xf32>) -> tensor<8x16xf32>
  // dz1 = dh1 * (1 - h1^2)
  %dz1_e = tensor.empty() : tensor<8x16xf32>
  %dz1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%dh1, %h1 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%dz1_e : tensor<8x16xf32>) {
  ^bb0(%g: f32, %y: f32, %c: f32):
    %yy = arith.mulf %y, %y : f32
    %d = arith.subf %one, %yy : f32
    %r = arith.mulf %g, %d : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  // dw1 = h0^T @ dz1
  %dw1_e = tensor.empty() : tensor<16x16xf32>
  %dw1_f = linalg.fill ins(%zero : f32) outs(%dw1_e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %dw1 = linalg.matmul indexing_maps = [#km, #kn, #mn] ins(%h0, %dz1 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%dw1_f : tensor<16x16xf32>) -> tensor<16x16xf32>
  // dh0 = dz1 @ w1^T
  %dh0_e = tensor.empty() : tensor<8x16xf32>
  %dh0_f = linalg.fill ins(%zero : f32) outs(%dh0_e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dh0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%dz1, %w1 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%dh0_f : tensor<8x16xf32>) -> tensor<8x16xf32>
  // dz0 = dh0 * (1 - h0^2)
  %dz0_e = tensor.empty() : tensor<8x16xf32>
  %dz0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%dh0, %h0 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%dz0_e : tensor<8x16xf32>) {
  ^bb0(%g: f32, %y: f32, %c: f32):
    %yy = arith.mulf %y, %y : f32
    %d = arith.subf %one, %yy : f32
    %r = arith.mulf %g, %d : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  // dw0 = x^T @ dz0
  %dw0_e = tensor.empty() : tensor<16x16xf32>
  %dw0_f = linalg.fill ins(%zero : f32) outs(%dw0_e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %dw0 = linalg.matmul indexing_maps = [#km, #kn, #mn] ins(%x, %dz0 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%dw0_f : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %loss, %dw0, %dw1, %dw2, %dw3, %rm_next : tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x4xf32>, tensor<16xf32>
}
