#!/usr/bin/env bash
# Second README command: builds (installing what is missing) and runs every
# test: lit (IR and execution tests), gtest unit tests and pytest; then builds
# the sanitizer tree (ASan + UBSan, clang-22, scripts/build-sanitized.sh) and
# runs lit (the fuzz targets included, with libFuzzer) and gtest again there
# (docs/Testing.md). Ends with one line 'N passed, N failed' and exits
# non-zero on any failure. REMAT_SANITIZER_TESTS=0 skips the sanitizer tree;
# REMAT_SLOW_TESTS=0 skips the torchvision ResNet-18 / MobileNetV2 end-to-end
# pytest cases (about 2 min of CPU; on by default, so CI runs them).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REMAT_BUILD_DIR:-$root/build}"
san_build="${REMAT_SAN_BUILD_DIR:-$build-san}"
results="$build/test-results"
sanitizers="${REMAT_SANITIZER_TESTS:-1}"

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

echo "== gtest"
for t in "$build"/unittests/*Tests; do
  [ -x "$t" ] || continue
  n="$(basename "$t")"
  run "$n" "$results/$n.xml" "$t" --gtest_brief=1 \
    --gtest_output="xml:$results/$n.xml"
done

echo "== pytest"
run pytest "$results/pytest.xml" env -C "$root" \
  REMAT_SLOW_TESTS="${REMAT_SLOW_TESTS:-1}" /usr/bin/python3 -m pytest -q \
  -p no:cacheprovider --junitxml="$results/pytest.xml" python/tests

if [ "$sanitizers" != 0 ]; then
  # Sanitizer reports abort the tool (test/lit.cfg.py sets the options).
  echo "== lit (sanitizers)"
  run lit-sanitizers "$results/lit-sanitizers.xml" /usr/lib/llvm-22/bin/lit -sv \
    --xunit-xml-output="$results/lit-sanitizers.xml" "$san_build/test"
  echo "== gtest (sanitizers)"
  for t in "$san_build"/unittests/*Tests; do
    [ -x "$t" ] || continue
    n="$(basename "$t")"
    ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
    LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
      run "sanitizers-$n" "$results/sanitizers-$n.xml" "$t" --gtest_brief=1 \
      --gtest_output="xml:$results/sanitizers-$n.xml"
  done
fi

/usr/bin/python3 "$root/scripts/summarize-tests.py" "$results"/*.xml || status=1
exit $status
