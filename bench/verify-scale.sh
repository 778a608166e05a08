#!/usr/bin/env bash
# Scaling of the independent schedule verifier (--remat-verify-schedule) on
# generated chains of about 10^3, 10^4 and 10^5 ops (training steps built by
# --remat-autodiff, rewritten by strategy=sqrt), as a markdown table on stdout.
#
# Usage: bench/verify-scale.sh [build-dir] [max-ops]
#   build-dir  default: build
#   max-ops    largest size to run (default 100000)
# REMAT_BASELINE_OPT=path/to/remat-opt adds a column with that binary's
# verifier (no original; e.g. a build from before a change) on graphs up to
# 10^4 ops.
#
# Columns: the rewrite (--remat-rematerialize) pass time; the verifier pass
# time without the original, and with original=FILE (translation validation;
# this includes parsing the original file, which the pass does); the cost of
# the in-process check (verify=true: copy of the function, translation
# validation and every other check) as the difference of two rewrite runs;
# the ratio of that in-process check to the rewrite. Times are pass wall
# times from --mlir-timing (parsing the input and printing excluded).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
max="${2:-100000}"
opt="$build/bin/remat-opt"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Seconds spent in the pass named $1 according to --mlir-timing on stdin.
pass_time() {
  awk -v pass="$1" '$0 ~ pass { print $1; exit }'
}

# The least of $runs pass times of pass $1 over runs of remat-opt "${@:2}".
best_time() {
  local pass="$1" best="" t
  shift
  for _ in $(seq "$runs"); do
    t=$("$@" --mlir-print-op-on-diagnostic=false --mlir-timing 2>&1 | pass_time "$pass")
    best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  echo "$best"
}

echo "| ops | recomputed ops | rewrite s | verify s (no original) | verify s (original) | verify=true cost s | verify=true / rewrite |${REMAT_BASELINE_OPT:+ baseline verify s |}"
echo "|---|---|---|---|---|---|---|${REMAT_BASELINE_OPT:+---|}"
# chain -n L has 5L+1 ops after autodiff (2L forward, 3L backward, loss, seed).
for length in 200 2000 20000; do
  ops_target=$((length * 5))
  [ "$ops_target" -le "$max" ] || continue
  step="$work/chain_$length.mlir"
  PYTHONPATH="$root/python" /usr/bin/python3 "$root/python/remat-gen.py" chain \
    --length "$length" --no-header | "$opt" --remat-autodiff -o "$step"
  ops=$(grep -c '^    %\|^    return\|^    remat.keep' "$step")
  rewritten="$work/chain_${length}_sqrt.mlir"
  # Best of 3 below 10^5 ops (the machine is shared), one run at 10^5.
  runs=3
  [ "$ops_target" -lt 100000 ] || runs=1
  "$opt" "$step" --remat-rematerialize=strategy=sqrt -o "$rewritten" 2>/dev/null
  rewrite=$(best_time RematRematerialize "$opt" "$step" \
    --remat-rematerialize=strategy=sqrt -o /dev/null)
  checked=$(best_time RematRematerialize "$opt" "$step" \
    --remat-rematerialize="strategy=sqrt verify=true" -o /dev/null)
  out=$("$opt" "$rewritten" --remat-verify-schedule=original="$step" \
    --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1)
  grep -q "equals the original's" <<<"$out"
  recomputed=$(sed -n 's/.*schedule verified: peak [0-9]* bytes, \([0-9]*\) recomputed.*/\1/p' <<<"$out")
  plain=$(best_time RematVerifySchedule "$opt" "$rewritten" \
    --remat-verify-schedule -o /dev/null)
  full=$(best_time RematVerifySchedule "$opt" "$rewritten" \
    --remat-verify-schedule=original="$step" -o /dev/null)
  baseline=""
  if [ -n "${REMAT_BASELINE_OPT:-}" ]; then
    if [ "$ops_target" -le 10000 ]; then
      baseline=$(best_time RematVerifySchedule "$REMAT_BASELINE_OPT" \
        "$rewritten" --remat-verify-schedule -o /dev/null)
    else
      baseline="not run"
    fi
    baseline=" $baseline |"
  fi
  overhead=$(awk -v a="$checked" -v b="$rewrite" 'BEGIN { printf "%.3f", a - b }')
  ratio=$(awk -v a="$checked" -v b="$rewrite" 'BEGIN { printf "%.2f", a / b - 1 }')
  echo "| $ops | $recomputed | $rewrite | $plain | $full | $overhead | $ratio |$baseline"
done
