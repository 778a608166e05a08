#!/usr/bin/env bash
# The exact MILP's 66 (graph, budget) pairs of bench/milp-results.md, every
# graph of at most 300 nodes the project has: remat's examples resnet_n4 and
# gpt_l2 and five published Checkmate graphs (the first 42 rows), then
# examples/chain_n16, the PyTorch-exported bench/graphs-small/encoder1_b4 and
# gpt1_b4 and the Moccasin DAG random_layered_n250 (24 rows), at 0.4 .. 0.9
# of store-all, one remat-bench call per pair (60 s wall-time limit, the
# compact model), each row followed by the call's wall and CPU seconds.
# Usage: REMAT_MILP_ROWS=new bench/milp-rows.sh ... runs the 24 only,
# REMAT_MILP_ROWS=old the 42 only.
# Usage: bench/milp-rows.sh [build-dir] [budget...]   (default: build, 0.4 .. 0.9)
# Needs ../shared/benchmarks/checkmate (see ../shared/README.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
shift || true
budgets="${*:-0.4 0.5 0.6 0.7 0.8 0.9}"
cd "$root"
checkmate=../shared/benchmarks/checkmate
old="examples/resnet_n4.mlir $checkmate/mobilenet_b512_train.json
     $checkmate/vgg_unet_b32_train.json $checkmate/random_layered_n100.json
     $checkmate/vgg16_b256_train.json $checkmate/vgg19_b256_train.json
     examples/gpt_l2.mlir"
new="examples/chain_n16.mlir bench/graphs-small/encoder1_b4.json
     bench/graphs-small/gpt1_b4.json $checkmate/random_layered_n250.json"
case "${REMAT_MILP_ROWS:-all}" in
  old) graphs="$old" ;;
  new) graphs="$new" ;;
  *) graphs="$old $new" ;;
esac
for g in $graphs; do
  for b in $budgets; do
    echo "== $g $b $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
    /usr/bin/time -f "wall %e s cpu %U+%S" "$build/bin/remat-bench" --no-chains \
      --milp-time-limit=60 --milp-dense=false --milp-graphs="$g" \
      --milp-budgets="$b" 2>&1 | grep -E "^\| [a-z]|^wall" | grep -v "^| graph"
  done
done
