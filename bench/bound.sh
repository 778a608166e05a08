#!/usr/bin/env bash
# Regenerates bench/bound-results.md: `auto` at budgets of 0.4 .. 0.9 of
# store-all against the recompute lower bound (LowerBound.h), on the exported
# PyTorch graphs (bench/graphs), the 4,082-op GPT (bench/graphs-large), their
# one-layer cousins (bench/graphs-small) and the published Checkmate graphs.
# Usage: bench/bound.sh [build-dir]   (default: build)
# bench/graphs-large/gpt32_b4.json and the one-layer cousins in
# bench/graphs-small were exported with (torch 1.13, functorch):
#   /usr/bin/python3 python/remat_export/export_joint.py gpt32 --batch 4 -o bench/graphs-large/gpt32_b4.json
#   /usr/bin/python3 python/remat_export/export_joint.py gpt1 --batch 4 -o bench/graphs-small/gpt1_b4.json
#   /usr/bin/python3 python/remat_export/export_joint.py encoder1 --batch 4 -o bench/graphs-small/encoder1_b4.json
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
shared="$root/../shared/benchmarks/checkmate"
graphs=("$root"/bench/graphs/*.json "$root"/bench/graphs-large/*.json "$root"/bench/graphs-small/*.json "$shared"/*_train.json)
{
  echo "# auto against the recompute lower bound"
  echo
  echo "Command: \`bench/bound.sh\` (build: $(basename "$build"), $(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))."
  echo "The bound and its proof: docs/Scheduling.md, \"Lower bounds on recompute\"."
  echo
  "$build/bin/remat-bench" --no-chains --bound-graphs "$(IFS=,; echo "${graphs[*]}")"
} > "$root/bench/bound-results.md"
echo "wrote $root/bench/bound-results.md"
