#!/usr/bin/env bash
# Scaling of the importer and of every planner strategy on generated
# Checkmate graphs of about 10^3, 10^4 and 10^5 nodes (the verifier's scaling
# is bench/verify-scale.sh), as markdown tables on stdout.
#
# Usage: bench/scale.sh [build-dir] [max-nodes]
#   build-dir  default: build
#   max-nodes  largest size to run (default 100000)
# REMAT_SCALE_TIMEOUT (default 600) bounds every remat-opt run in seconds; a
# run stopped by it is reported as "> T".
#
# Graphs: a training step of N/2 forward and N/2 backward nodes (a chain with
# a skip every 8 nodes; backward node i reads the previous backward node and
# its forward mirror), node sizes 256..4096 bytes, written as Checkmate JSON.
# Importer: `remat-import` wall time and peak RSS (/usr/bin/time), best of 3
# below 10^5 nodes. Planner: the plan time (`plan_seconds`) of each strategy
# `--remat-compare-strategies` runs on the imported function (one run; each
# strategy is timed inside the pass), and the `--remat-rematerialize`
# pass time (plan, rewrite) of `auto` at half the store-all peak, with the
# CPU seconds (user + system) of that whole remat-opt run beside it: on a
# shared machine wall times grow with the load, CPU times much less.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
max="${2:-100000}"
opt="$build/bin/remat-opt"
import="$build/bin/remat-import"
limit="${REMAT_SCALE_TIMEOUT:-600}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

gen_graph() { # nodes file
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(n)
half = n // 2
nodes, links = [], []
for i in range(n):
    backward = i >= half
    nodes.append({"id": i, "name": f"n{i}", "backward": backward,
                  "cost_cpu": rng.randint(1, 100),
                  "cost_ram": 256 * rng.randint(1, 16)})
    if i == 0:
        continue
    links.append({"source": i - 1, "target": i})
    if not backward and i >= 8 and i % 8 == 0:
        links.append({"source": i - 8, "target": i})
    if backward and i > half:
        links.append({"source": n - 1 - i, "target": i})
with open(path, "w") as f:
    json.dump({"directed": True, "multigraph": False,
               "graph": {"name": f"scale{n}_1_(1)_train"},
               "nodes": nodes, "links": links}, f)
PY
}

# "seconds KiB" of the fastest of $1 runs of the command "${@:2}".
best_run() {
  local runs="$1" best="" t
  shift
  for _ in $(seq "$runs"); do
    t=$(/usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1)
    best=$(awk -v a="$t" -v b="$best" \
      'BEGIN { split(a, x, " "); split(b, y, " ");
               print (b == "" || x[1] < y[1]) ? a : b }')
  done
  echo "$best"
}

sizes=()
for n in 1000 10000 100000; do
  [ "$n" -le "$max" ] && sizes+=("$n")
done

echo "### Importer"
echo
echo "| nodes | edges | JSON MB | remat-import s | peak RSS MB |"
echo "|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  gen_graph "$n" "$work/g$n.json"
  runs=3
  [ "$n" -lt 100000 ] || runs=1
  read -r secs kib < <(best_run "$runs" "$import" "$work/g$n.json" -o "$work/g$n.mlir")
  edges=$(grep -o '"source"' "$work/g$n.json" | wc -l)
  mb=$(awk -v b="$(stat -c %s "$work/g$n.json")" 'BEGIN { printf "%.1f", b / 1e6 }')
  echo "| $n | $edges | $mb | $secs | $(awk -v k="$kib" 'BEGIN { printf "%.0f", k / 1024 }') |"
done

echo
echo "### Planner"
echo
strategies=""
for n in "${sizes[@]}"; do
  timeout "$limit" "$opt" "$work/g$n.mlir" \
    --remat-compare-strategies="json=$work/c$n.json" \
    --mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null || true
  # The store-all peak: the largest live set of the graph as imported.
  peak=$("$opt" "$work/g$n.mlir" \
    --remat-rematerialize="strategy=store-all annotate=true" 2>/dev/null |
    sed -n 's/.*store_all_peak = \([0-9]*\).*/\1/p' | head -1)
  out=$(/usr/bin/time -f "CPU %U %S" timeout "$limit" "$opt" "$work/g$n.mlir" \
    --remat-rematerialize="budget=$((peak / 2))" \
    --mlir-print-op-on-diagnostic=false --mlir-timing -o /dev/null 2>&1) || true
  auto=$(echo "$out" | awk '/RematRematerialize/ { print $1; exit }')
  cpu=$(echo "$out" | awk '/^CPU/ { printf "%.2f", $2 + $3 }')
  echo "$n ${auto:->$limit} ${cpu:--}" >> "$work/auto.txt"
done
/usr/bin/python3 - "$work" "${sizes[@]}" <<'PY'
import json, sys
work, sizes = sys.argv[1], sys.argv[2:]
auto, cpu = {}, {}
for line in open(f"{work}/auto.txt"):
    n, auto[n], cpu[n] = line.split()
rows, names = {}, []
for n in sizes:
    try:
        (func,) = json.load(open(f"{work}/c{n}.json"))
    except (OSError, ValueError):
        rows[n] = {"declined": "not finished within the time limit"}
        continue
    seen = {}
    for p in func["plans"]:
        # A strategy with several candidates (chain-opt, mincut) appears
        # once per candidate: #2, #3, ...
        seen[p["strategy"]] = seen.get(p["strategy"], 0) + 1
        key = p["strategy"] + (f" #{seen[p['strategy']]}" if seen[p["strategy"]] > 1 else "")
        if key not in names:
            names.append(key)
        rows.setdefault(n, {})[key] = p["plan_seconds"]
    rows[n]["declined"] = "; ".join(d if isinstance(d, str) else json.dumps(d)
                                    for d in func.get("declined", [])) or "-"
print("Plan seconds per strategy (`--remat-compare-strategies`), and the "
      "`--remat-rematerialize` pass time of `auto` at half the store-all peak "
      "and the CPU seconds of that remat-opt run:")
print()
print("| nodes | " + " | ".join(names) +
      " | auto, budget 1/2 (pass s) | auto (CPU s) | declined |")
print("|---|" + "---|" * (len(names) + 3))
for n in sizes:
    cells = [f"{rows[n][k]:.4f}" if k in rows[n] else "-" for k in names]
    print(f"| {n} | " + " | ".join(cells) +
          f" | {auto.get(n, '-')} | {cpu.get(n, '-')} | {rows[n]['declined']} |")
PY
