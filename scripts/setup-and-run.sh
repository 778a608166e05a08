#!/usr/bin/env bash
# First README command: install what is missing, build, and run the main job
# on a bundled example: autodiff of a 100-layer MLP, the comparison of every
# rematerialization strategy, and a rewrite under a memory budget checked by
# the independent verifier, then a GPT-like model compiled for the CPU under
# a budget and run for two steps.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${REMAT_BUILD_DIR:-$root/build}"
opt="$build/bin/remat-opt"
example="$root/examples/mlp_d100_w256_b32.mlir"
out="${REMAT_OUT_DIR:-$build/example-out}"
mkdir -p "$out"

echo "== remat: strategies on $(basename "$example") (training step built by --remat-autodiff)"
"$opt" "$example" --remat-autodiff \
  "--remat-compare-strategies=table=-" -o /dev/null 2>/dev/null

budget=$(( 1024 * 1024 ))
echo
echo "== remat: rewrite under a budget of $budget activation bytes, then verify"
"$opt" "$example" --remat-autodiff \
  "--remat-rematerialize=budget=$budget report-json=$out/plan.json" \
  "--remat-verify-schedule=budget=$budget" \
  -o "$out/mlp_d100_remat.mlir" 2>&1 | grep -E "remark: (plan|schedule verified)" || true
echo "rewritten IR: $out/mlp_d100_remat.mlir; plan report: $out/plan.json"

gpt="$root/examples/gpt_l2.mlir"
gbudget=400000
echo
echo "== remat: compile the GPT-like example for the CPU under $gbudget activation bytes and run 2 steps"
"$build/bin/remat-compile" "$gpt" --budget=$gbudget -o "$out/gpt_step.o" \
  --header="$out/gpt_step.h" 2>&1 | grep -E "error|remat-plan-arena" | sed 's/.*remark: //'
"$build/bin/remat-runner" --header "$out/gpt_step.h" --object "$out/gpt_step.o" \
  -o "$out/gpt_run"
"$out/gpt_run" --steps 2 | grep -E "^(entry|memory|step|finite|perf mean)"
