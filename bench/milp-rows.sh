#!/usr/bin/env bash
# The exact MILP's 42 (graph, budget) pairs of bench/milp-results.md: remat's
# examples resnet_n4 and gpt_l2 and five published Checkmate graphs at 0.4 ..
# 0.9 of store-all, one remat-bench call per pair (60 s wall-time limit, the
# compact model), each row followed by the call's wall and CPU seconds.
# Usage: bench/milp-rows.sh [build-dir] [budget...]   (default: build, 0.4 .. 0.9)
# Needs ../shared/benchmarks/checkmate (see ../shared/README.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
shift || true
budgets="${*:-0.4 0.5 0.6 0.7 0.8 0.9}"
cd "$root"
checkmate=../shared/benchmarks/checkmate
for g in examples/resnet_n4.mlir $checkmate/mobilenet_b512_train.json \
         $checkmate/vgg_unet_b32_train.json $checkmate/random_layered_n100.json \
         $checkmate/vgg16_b256_train.json $checkmate/vgg19_b256_train.json \
         examples/gpt_l2.mlir; do
  for b in $budgets; do
    echo "== $g $b $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
    /usr/bin/time -f "wall %e s cpu %U+%S" "$build/bin/remat-bench" --no-chains \
      --milp-time-limit=60 --milp-dense=false --milp-graphs="$g" \
      --milp-budgets="$b" 2>&1 | grep -E "^\| [a-z]|^wall" | grep -v "^| graph"
  done
done
