// --remat-shuffle-ops: the ops of a training step in another valid order
// (sched::shuffledOrder, the orders remat-import --shuffle draws).
//
// RUN: remat-opt %s --remat-shuffle-ops=mode=forward-first 2>&1 | FileCheck %s --check-prefix=FF
// RUN: remat-opt %s '--remat-shuffle-ops=mode=interleave seed=2' 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: remat-opt %s '--remat-shuffle-ops=mode=interleave seed=2' 2>&1 | FileCheck %s --check-prefix=BWD
// RUN: remat-opt %s '--remat-shuffle-ops=mode=topological seed=5' --remat-compare-strategies=table=- -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOPO
// RUN: remat-opt %s --remat-shuffle-ops=mode=forward-first --remat-shuffle-ops=mode=forward-first 2>&1 | FileCheck %s --check-prefix=IDEM
// RUN: not remat-opt %s --remat-shuffle-ops=mode=sideways -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// s (forward) comes after g1 (backward); forward-first moves it before g1:
// the 2 ops s and g1 change places.
// FF: remark: ops shuffled (forward-first, seed 1): 2 of 6 ops moved
// FF-LABEL: func.func @late_forward
// FF: remat.opaque "x"
// FF-NEXT: remat.opaque "y"
// FF-NEXT: remat.opaque "loss"
// FF-NEXT: remat.opaque "s"
// FF-NEXT: remat.opaque "g1"
// FF-NEXT: remat.opaque "g2"
// A second forward-first pass moves nothing.
// IDEM: remark: ops shuffled (forward-first, seed 1): 2 of 6 ops moved
// IDEM: remark: ops shuffled (forward-first, seed 1): 0 of 6 ops moved
// An interleaving keeps each phase's order.
// FWD: remark: ops shuffled (interleave, seed 2): 2 of 6 ops moved
// FWD: remat.opaque "x"
// FWD: remat.opaque "y"
// FWD: remat.opaque "loss"
// FWD: remat.opaque "s"
// BWD: remat.opaque "g1"
// BWD: remat.opaque "g2"
// Any topological order still plans.
// TOPO: remark: ops shuffled (topological, seed 5)
// TOPO: late_forward (6 ops, forward cost 4)
// TOPO: store-all
// BAD: error: unknown mode 'sideways'; expected interleave, topological or forward-first
func.func @late_forward(%input: tensor<0xi8>) -> tensor<4xi8> {
  %x = remat.opaque "x"(%input) {cost = 1.0 : f64} : (tensor<0xi8>) -> tensor<100xi8>
  %y = remat.opaque "y"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %loss = remat.opaque "loss"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<4xi8>
  %g1 = remat.opaque "g1"(%loss) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<4xi8>) -> tensor<100xi8>
  %s = remat.opaque "s"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<4xi8>
  %g2 = remat.opaque "g2"(%g1, %s, %y) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<4xi8>, tensor<100xi8>) -> tensor<4xi8>
  return %g2 : tensor<4xi8>
}
