#!/usr/bin/env bash
# Second README command: builds (installing what is missing) and runs every
# test: lit (IR and execution tests), gtest unit tests and pytest; then builds
# the sanitizer tree (ASan + UBSan, clang-22, scripts/build-sanitized.sh) and
# runs lit (the fuzz targets included, with libFuzzer) and gtest again there
# (docs/Testing.md). Ends with one line 'N passed, N failed' and exits
# non-zero on any failure. REMAT_SANITIZER_TESTS=0 skips the sanitizer tree;
# REMAT_SLOW_TESTS=0 skips the torchvision ResNet-18 / MobileNetV2 end-to-end
# pytest cases (about 2 min of CPU; on by default, so CI runs them).
# After the two lit runs (each already on every core), the gtest programs
# and pytest run REMAT_TEST_JOBS (default: nproc) at a time; a gtest program
# of 50 tests or more (of either tree) runs as REMAT_GTEST_SHARDS (default 4)
# shards, which together must run each of its tests exactly once.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REMAT_BUILD_DIR:-$root/build}"
san_build="${REMAT_SAN_BUILD_DIR:-$build-san}"
results="$build/test-results"
sanitizers="${REMAT_SANITIZER_TESTS:-1}"
test_jobs="${REMAT_TEST_JOBS:-$(nproc)}"
shards="${REMAT_GTEST_SHARDS:-4}"
# A count that is not a positive integer would start no step (and leave
# the summary line unwritten); fall back to one step / one shard.
[[ $test_jobs =~ ^[1-9][0-9]*$ ]] || test_jobs=1
[[ $shards =~ ^[1-9][0-9]*$ ]] || shards=1

"$root/scripts/install-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
if ! "$root/scripts/build.sh"; then
  echo "build failed"
  echo "0 passed, 1 failed"
  exit 1
fi
if [ "$sanitizers" != 0 ] &&
   ! REMAT_SAN_BUILD_DIR="$san_build" "$root/scripts/build-sanitized.sh"; then
  echo "sanitizer build failed"
  echo "0 passed, 1 failed"
  exit 1
fi
rm -rf "$results"
mkdir -p "$results"

status=0
# run NAME RESULT.xml COMMAND...: runs one test program; a non-zero exit with
# no failing test in its results (a sanitizer abort after the last test, a
# crash before any) is counted as one failure of its own (exit-NAME.xml).
# A program that exits 0 without writing its results counts as a failure
# too; so does one whose exit the recorder itself cannot record.
run() {
  local name="$1" xml="$2" rc=0
  shift 2
  "$@" || rc=$?
  if [ "$rc" = 0 ] && [ ! -f "$xml" ]; then
    status=1
    echo "<testsuites><testsuite><testcase name=\"$name wrote no results\"><failure/></testcase></testsuite></testsuites>" \
      > "$results/exit-$name.xml"
  elif [ "$rc" != 0 ]; then
    status=1
    /usr/bin/python3 "$root/scripts/summarize-tests.py" --exit "$name" "$rc" \
      "$xml" "$results/exit-$name.xml" ||
      echo "<testsuites><testsuite><testcase name=\"$name exit status $rc\"><failure/></testcase></testsuite></testsuites>" \
        > "$results/exit-$name.xml"
  fi
}

echo "== lit"
run lit "$results/lit.xml" /usr/lib/llvm-22/bin/lit -sv \
  --xunit-xml-output="$results/lit.xml" "$build/test"

if [ "$sanitizers" != 0 ]; then
  # Sanitizer reports abort the tool (test/lit.cfg.py sets the options).
  echo "== lit (sanitizers)"
  run lit-sanitizers "$results/lit-sanitizers.xml" /usr/lib/llvm-22/bin/lit -sv \
    --xunit-xml-output="$results/lit-sanitizers.xml" "$san_build/test"
fi

# The one-core steps, queued longest first (the sanitized gtest shards,
# pytest, the release gtest shards) and run $test_jobs at a time; each
# writes its output to $results/NAME.log, printed when it ends.
queue=()
# enqueue NAME COMMAND...: a `run` of COMMAND with NAME.xml as its results.
enqueue() {
  queue+=("$(printf '%q ' run "$1" "$results/$1.xml" "${@:2}")")
}
# queue_gtest PREFIX PROGRAM [VAR=VALUE...]: the program's shards (one for
# a program of fewer than 50 tests), each writing PREFIXPROGRAM-shardIofK.xml,
# and its test list PREFIXPROGRAM.tests (checked against the shards' results
# below).
sharded=()
queue_gtest() {
  local prefix="$1" t="$2" n i k="$shards"
  shift 2
  n="$prefix$(basename "$t")"
  env "$@" "$t" --gtest_list_tests > "$results/$n.tests" \
    2> "$results/$n.tests.err"
  [ "$(grep -c '^  ' "$results/$n.tests")" -ge 50 ] || k=1
  sharded+=("$n")
  for ((i = 0; i < k; ++i)); do
    enqueue "$n-shard${i}of$k" env "$@" GTEST_TOTAL_SHARDS="$k" \
      GTEST_SHARD_INDEX="$i" "$t" --gtest_brief=1 \
      --gtest_output="xml:$results/$n-shard${i}of$k.xml"
  done
}
if [ "$sanitizers" != 0 ]; then
  for t in "$san_build"/unittests/*Tests; do
    [ -x "$t" ] || continue
    queue_gtest sanitizers- "$t" \
      ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
      UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
      LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  done
fi
enqueue pytest env -C "$root" REMAT_SLOW_TESTS="${REMAT_SLOW_TESTS:-1}" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  --junitxml="$results/pytest.xml" python/tests
for t in "$build"/unittests/*Tests; do
  [ -x "$t" ] || continue
  queue_gtest "" "$t"
done

echo "== gtest and pytest ($test_jobs at a time)"
declare -A job_name job_start
running=0
next=0
while [ "$next" -lt "${#queue[@]}" ] || [ "$running" -gt 0 ]; do
  while [ "$running" -lt "$test_jobs" ] && [ "$next" -lt "${#queue[@]}" ]; do
    cmd="${queue[$next]}"
    name="$(eval "set -- $cmd"; echo "$2")"
    echo "== start $name"
    (status=0; eval "$cmd"; exit $status) > "$results/$name.log" 2>&1 &
    job_name[$!]="$name"
    job_start[$!]="$SECONDS"
    next=$((next + 1))
    running=$((running + 1))
  done
  pid=""
  wait -n -p pid
  rc=$?
  [ -n "${pid:-}" ] || break
  running=$((running - 1))
  [ "$rc" = 0 ] || status=1
  echo "== ${job_name[$pid]}: exit $rc, $((SECONDS - job_start[$pid])) s"
  cat "$results/${job_name[$pid]}.log"
done

# A queue left before its end (no child to wait for) skipped steps.
if [ "$next" -lt "${#queue[@]}" ] || [ "$running" -gt 0 ]; then
  status=1
  echo "<testsuites><testsuite><testcase name=\"queue stopped with $((${#queue[@]} - next)) step(s) not started, $running running\"><failure/></testcase></testsuite></testsuites>" \
    > "$results/exit-queue.xml"
fi

# Every listed test of a sharded program in exactly one shard's results.
for n in "${sharded[@]}"; do
  /usr/bin/python3 "$root/scripts/summarize-tests.py" --shards "$n" \
    "$results/$n.tests" "$results/shards-$n.xml" \
    "$results/$n"-shard*.xml || status=1
done

/usr/bin/python3 "$root/scripts/summarize-tests.py" "$results"/*.xml || status=1
exit $status
