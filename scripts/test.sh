#!/usr/bin/env bash
# Second README command: builds (installing what is missing) and runs every
# test: lit (IR and execution tests), gtest unit tests and pytest. Ends with
# one line 'N passed, N failed' and exits non-zero on any failure.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REMAT_BUILD_DIR:-$root/build}"
results="$build/test-results"

"$root/scripts/install-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
if ! "$root/scripts/build.sh"; then
  echo "build failed"
  echo "0 passed, 1 failed"
  exit 1
fi
rm -rf "$results"
mkdir -p "$results"

status=0
echo "== lit"
/usr/lib/llvm-22/bin/lit -sv --xunit-xml-output="$results/lit.xml" \
  "$build/test" || status=1

echo "== gtest"
for t in "$build"/unittests/*Tests; do
  [ -x "$t" ] || continue
  "$t" --gtest_brief=1 --gtest_output="xml:$results/$(basename "$t").xml" || status=1
done

echo "== pytest"
(cd "$root" && /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  --junitxml="$results/pytest.xml" python/tests) || status=1

/usr/bin/python3 "$root/scripts/summarize-tests.py" "$results"/*.xml || status=1
exit $status
