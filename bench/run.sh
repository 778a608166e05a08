#!/usr/bin/env bash
# Regenerates bench/results.md: every rematerialization strategy on generated
# chains (n = 10 .. 10000), generated ResNet-like, GPT-like and LSTM models of
# several depths, the bundled examples, and the published Checkmate and
# Moccasin graphs.
# Usage: bench/run.sh [build-dir]   (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
gen() { PYTHONPATH="$root/python" /usr/bin/python3 -m remat_models "$@"; }

models=()
for n in 2 4 8 16; do
  gen resnet --blocks "$n" --stages 2 --batch 8 --image 32 -o "$work/resnet_n$n.mlir"
  models+=("$work/resnet_n$n.mlir")
done
for l in 2 4 8 12; do
  gen gpt --layers "$l" --batch 4 --seq 64 --embed 128 --heads 4 --vocab 256 -o "$work/gpt_l$l.mlir"
  models+=("$work/gpt_l$l.mlir")
done
for t in 8 32; do
  gen lstm --steps "$t" --batch 16 --hidden 128 --input-size 64 -o "$work/lstm_t$t.mlir"
  models+=("$work/lstm_t$t.mlir")
done
# Small enough for the exact MILP (<= 32 ops): the heuristics' optimality gap.
for n in 3 4; do
  gen chain --length "$n" -o "$work/tiny_chain_$n.mlir"
  models+=("$work/tiny_chain_$n.mlir")
done
gen mlp --depth 100 --width 256 --batch 32 -o "$work/mlp_d100.mlir"
models+=("$work/mlp_d100.mlir")

shared="$root/../shared/benchmarks/checkmate"
if [ -x "$build/bin/remat-import" ] && [ -d "$shared" ]; then
  # Checkmate training graphs, then the Moccasin random layered DAGs
  # (forward-only: planned by store-all and forward-min-peak).
  for f in "$shared"/*_train.json "$shared"/random_layered_n*.json; do
    name="$(basename "$f" .json)"
    "$build/bin/remat-import" "$f" -o "$work/$name.mlir"
    models+=("$work/$name.mlir")
  done
fi

{
  echo "# remat strategy benchmark"
  echo
  echo "Command: \`bench/run.sh\` (build: $(basename "$build"), $(date -u +%Y-%m-%d), $(nproc) cores)."
  echo "Peak = activation bytes (arguments and returned gradients counted apart), simulated"
  echo "exactly by the scheduler's model and equal to the liveness of the rewritten IR."
  echo "Baseline of every row: store-all of the same graph in the same run. Rows 'milp'"
  echo "(graphs up to 32 ops, when CBC is built in) are the exact optimum within remat's"
  echo "schedule model (least peak, then least recompute), proven by CBC."
  echo
  "$build/bin/remat-bench" "${models[@]}"
} > "$root/bench/results.md"
echo "wrote $root/bench/results.md"
