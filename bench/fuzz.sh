#!/usr/bin/env bash
# Runs every fuzz target of the sanitizer tree (scripts/build-sanitized.sh)
# for a fixed time, starting from the checked-in corpus (with the target's
# dictionary, as test/Fuzz/*.test), and prints a
# markdown table of executions survived, executions per second, crashes and
# corpus growth (the lines of bench/fuzz-results.md).
# Usage: bench/fuzz.sh [seconds-per-target] [san-build-dir] [target...]
#   (defaults: 600, build-san, every target)
# Inputs that crash are kept under $REMAT_FUZZ_ARTIFACTS (default:
# a temporary directory that is printed) for a reproducer.
# REMAT_FUZZ_RUNS=N also stops each target after N executions (libFuzzer
# -runs; default: no limit, only the time). Inputs are at most
# REMAT_FUZZ_MAX_LEN bytes (default 4096, as test/Fuzz/*.test: the corpus's
# 200 KB nesting reproducers are loaded cut to that length).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
build="$(cd "${2:-$root/build-san}" && pwd)"
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(import opt schedule)
artifacts="${REMAT_FUZZ_ARTIFACTS:-$(mktemp -d)}"
mkdir -p "$artifacts"
echo "artifacts: $artifacts" >&2

export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

echo "| target | seconds | executions | exec/s | crashes | corpus (seed -> end) |"
echo "|---|---|---|---|---|---|"
for t in "${targets[@]}"; do
  bin="$build/bin/remat-fuzz-$t"
  seeds="$root/test/Fuzz/corpus/$t"
  work="$artifacts/$t"
  rm -rf "$work" && mkdir -p "$work/corpus"
  dict=()
  [ -f "$root/test/Fuzz/$t.dict" ] && dict=(-dict="$root/test/Fuzz/$t.dict")
  start=$(date +%s)
  "$bin" -max_total_time="$seconds" -runs="${REMAT_FUZZ_RUNS:--1}" -seed=1 \
    -max_len="${REMAT_FUZZ_MAX_LEN:-4096}" \
    -timeout=60 -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$work/" "$work/corpus" "$seeds" > "$work/log" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
  crashes=$(find "$work" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'timeout-*' \
    -o -maxdepth 1 -name 'leak-*' -o -maxdepth 1 -name 'oom-*' | wc -l)
  [ "$rc" -eq 0 ] || [ "$crashes" -gt 0 ] || crashes="exit $rc"
  echo "| $t | $elapsed | ${execs:-?} | ${rate:-?} | $crashes |" \
       "$(ls "$seeds" | wc -l) -> $(( $(ls "$seeds" | wc -l) + $(ls "$work/corpus" | wc -l) )) |"
done
