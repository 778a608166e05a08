#!/usr/bin/env bash
# Regenerates bench/torch-results.md (PyTorch's min-cut and default saved
# sets, replayed in remat's simulator, against remat's frontier on the
# exported graphs of bench/graphs) and the frontier plots of bench/pareto
# (published Checkmate graphs, the Moccasin forward-only DAGs and the
# exported graphs).
# Usage: bench/torch.sh [build-dir]   (default: build)
# The graphs were exported with (torch 1.13, functorch AOTAutograd):
#   /usr/bin/python3 python/remat_export/export_joint.py MODEL --batch B -o bench/graphs/MODEL_bB.json
# for resnet18, mobilenet_v2, gpt12, encoder12 (B = 4), resnet50 (B = 2), mlp (B = 4).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
graphs=("$root"/bench/graphs/*.json)
{
  echo "# Exported PyTorch training graphs: PyTorch's partitioners against remat"
  echo
  echo "Command: \`bench/torch.sh\` (build: $(basename "$build"), $(date -u +%Y-%m-%d), $(nproc) cores)."
  echo "Graphs: bench/graphs (python/remat_export/export_joint.py; cost model in docs/Import.md)."
  echo "PyTorch rows: the saved set of functorch's partitioner (mincut: min_cut_rematerialization_partition"
  echo "with its default op lists; mincut_inductor: with compiler='inductor'; default: default_partition),"
  echo "lowered with remat's kept-set lowering and simulated by remat's simulator, in PyTorch's op order."
  echo
  "$build/bin/remat-bench" --no-chains --torch-graphs "$(IFS=,; echo "${graphs[*]}")"
} > "$root/bench/torch-results.md"
echo "wrote $root/bench/torch-results.md"

shared="$root/../shared/benchmarks/checkmate"
files=("$shared"/*_train.json "$root"/bench/graphs/resnet18_b4.json "$root"/bench/graphs/gpt12_b4.json "$root"/bench/graphs/encoder12_b4.json "$root"/bench/graphs/mobilenet_v2_b4.json "$root"/bench/graphs/resnet50_b2.json)
"$build/bin/remat-import" "${files[@]}" -o "$work/all.mlir" 2>/dev/null
"$build/bin/remat-opt" "$work/all.mlir" "--remat-compare-strategies=pareto=$root/bench/pareto/frontier.json max-recompute=30%" -o /dev/null 2>/dev/null
/usr/bin/python3 "$root/scripts/plot-pareto.py" "$root/bench/pareto/frontier.json" "$root/bench/pareto"
# The Moccasin forward-only DAGs (store-all, forward-min-peak's least peak and
# forward-min-peak at 7 budgets between the two).
"$build/bin/remat-import" "$shared"/random_layered_n*.json -o "$work/forward-only.mlir" 2>/dev/null
"$build/bin/remat-opt" "$work/forward-only.mlir" "--remat-compare-strategies=pareto=$root/bench/pareto/forward-only.json max-recompute=30%" -o /dev/null 2>/dev/null
/usr/bin/python3 "$root/scripts/plot-pareto.py" "$root/bench/pareto/forward-only.json" "$root/bench/pareto"
