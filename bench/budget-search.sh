#!/usr/bin/env bash
# Regenerates bench/budget-search-results.md: `auto` at budgets of 0.4 .. 0.9
# of store-all without and with its local search within the budget
# (BudgetSearch.h), in the same run, against the recompute lower bound
# (LowerBound.h), on the exported PyTorch graphs of 578-4,082 ops
# (bench/graphs, bench/graphs-large).
# Usage: bench/budget-search.sh [build-dir]   (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
graphs=("$root"/bench/graphs/{resnet18_b4,resnet50_b2,gpt12_b4,encoder12_b4,mobilenet_v2_b4}.json "$root"/bench/graphs-large/gpt32_b4.json)
{
  echo "# auto's local search within the budget: before and after"
  echo
  echo "Command: \`bench/budget-search.sh\` (build: $(basename "$build"), $(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))."
  echo "The search: docs/Scheduling.md (Strategies, \`auto\`), include/remat/Scheduling/BudgetSearch.h."
  echo
  "$build/bin/remat-bench" --no-chains --bound-seconds 1 --budget-search-graphs "$(IFS=,; echo "${graphs[*]}")"
} > "$root/bench/budget-search-results.md"
echo "wrote $root/bench/budget-search-results.md"
