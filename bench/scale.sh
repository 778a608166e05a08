#!/usr/bin/env bash
# Scaling of the importer, every planner strategy and the schedule verifier
# on generated Checkmate graphs of 10^3, 10^4 and 10^5 nodes in three
# families (bench/scale_graphs.py: chain, resnet, transformer), as markdown
# tables on stdout, with the growth factor per 10x nodes. (The verifier on
# remat-gen chains through autodiff: bench/verify-scale.sh.)
#
# Usage: bench/scale.sh [build-dir] [max-nodes] [families]
#   build-dir  default: build
#   max-nodes  largest size to run (default 100000)
#   families   space-separated (default "chain resnet transformer")
# REMAT_SCALE_TIMEOUT (default 600) bounds every remat-opt run in seconds; a
# run stopped by it is reported as "-".
#
# Times are CPU seconds (user + system; the machine is shared, and wall
# times grow with its load while CPU times much less), one run each:
# - import: `remat-import` of the JSON (read, parse, build and verify the
#   function, print it), with its peak RSS;
# - every strategy: `remat-opt --remat-rematerialize=strategy=S` on the
#   imported function minus the same run with strategy=store-all (parsing,
#   the graph, the simulation and printing are common to both; the column
#   store-all is that whole run); auto at half the store-all peak
#   (budget=...): every candidate, the budget selection and the rewrite;
#   milp declines graphs above 300 nodes (its note is printed);
# - verify: `--remat-verify-schedule=original=FILE` on auto's rewrite (the
#   original parsed, translation validation, every check) minus a plain
#   parse and print of that rewrite.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
max="${2:-100000}"
families="${3:-chain resnet transformer}"
opt="$build/bin/remat-opt"
import="$build/bin/remat-import"
limit="${REMAT_SCALE_TIMEOUT:-600}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

sizes=()
for n in 1000 10000 100000; do
  [ "$n" -le "$max" ] && sizes+=("$n")
done

# CPU seconds (user + system) of the command "$@", or "-" if it failed or
# ran past the time limit.
cpu() {
  if /usr/bin/time -o "$work/time" -f "%U %S" timeout "$limit" "$@" \
    --mlir-print-op-on-diagnostic=false >/dev/null 2>&1; then
    tail -1 "$work/time" | awk '{ printf "%.2f", $1 + $2 }'
  else
    echo -
  fi
}

strategies="store-all sqrt greedy logn revolve chain-opt mincut"
for family in $families; do
  for n in "${sizes[@]}"; do
    g="$work/$family$n"
    /usr/bin/python3 "$root/bench/scale_graphs.py" "$family" "$n" "$g.json"
    read -r isecs kib < <(/usr/bin/time -f "%U %S %M" "$import" "$g.json" \
      -o "$g.mlir" 2>&1 >/dev/null | tail -1 |
      awk '{ printf "%.2f %s\n", $1 + $2, $3 }')
    edges=$(grep -o '"source"' "$g.json" | wc -l)
    row="$family $n $edges $(stat -c %s "$g.json") $isecs $kib"
    for s in $strategies; do
      row="$row $(cpu "$opt" "$g.mlir" --remat-rematerialize=strategy=$s -o /dev/null)"
    done
    # The store-all peak: the largest live set of the graph as imported.
    peak=$("$opt" "$g.mlir" \
      --remat-rematerialize="strategy=store-all annotate=true" 2>/dev/null |
      sed -n 's/.*store_all_peak = \([0-9]*\).*/\1/p' | head -1)
    row="$row $(cpu "$opt" "$g.mlir" --remat-rematerialize="budget=$((peak / 2))" -o "$g.auto.mlir")"
    # Captured first: grep -q in a pipe would stop remat-opt early (SIGPIPE,
    # a failed pipeline under pipefail).
    vout=$("$opt" "$g.auto.mlir" --remat-verify-schedule=original="$g.mlir" \
      --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 || true)
    if grep -q "equals the original's" <<<"$vout"; then
      row="$row $(cpu "$opt" "$g.auto.mlir" --remat-verify-schedule=original="$g.mlir" -o /dev/null) $(cpu "$opt" "$g.auto.mlir" -o /dev/null)"
    else
      row="$row - -"
    fi
    echo "$row" >> "$work/rows.txt"
  done
  milp=$("$opt" "$g.mlir" --remat-rematerialize=strategy=milp \
    --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | head -1 |
    sed 's/.*error: //' || true)
  echo "$family $milp" >> "$work/milp.txt"
done

/usr/bin/python3 - "$work" $strategies <<'PY'
import sys
work, strategies = sys.argv[1], sys.argv[2:]

def num(x):
    try:
        return float(x)
    except ValueError:
        return None

rows = {}
for line in open(f"{work}/rows.txt"):
    f = line.split()
    family, n, edges, size, imp, kib = f[:6]
    runs = [num(x) for x in f[6:]]
    base = runs[0]
    plan = [runs[0]] + [None if x is None or base is None else max(0.0, x - base)
                        for x in runs[1:len(strategies) + 1]]
    verify, parse = runs[len(strategies) + 1:]
    plan.append(None if verify is None or parse is None else max(0.0, verify - parse))
    rows.setdefault(family, []).append(
        dict(n=int(n), edges=int(edges), mb=int(size) / 1e6,
             rss=int(kib) / 1024, vals=[num(imp)] + plan))
cols = ["import"] + strategies + ["auto, budget 1/2", "verify"]
for family, rs in rows.items():
    print(f"### {family} (CPU seconds)")
    print()
    print("| nodes | edges | JSON MB | import RSS MB | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * (len(cols) + 3))
    for r in rs:
        print(f"| {r['n']} | {r['edges']} | {r['mb']:.1f} | {r['rss']:.0f} | " +
              " | ".join("-" if x is None else f"{x:.2f}" for x in r["vals"]) + " |")
    for a, b in zip(rs, rs[1:]):
        g = ["-" if x is None or y is None or x < 0.05 else f"{y / x:.1f}x"
             for x, y in zip(a["vals"], b["vals"])]
        print(f"| growth {a['n']}->{b['n']} | | | | " + " | ".join(g) + " |")
    print()
print("milp at the largest size:")
for line in open(f"{work}/milp.txt"):
    print(f"- {line.strip()}")
PY
