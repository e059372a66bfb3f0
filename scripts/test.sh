#!/usr/bin/env bash
# The whole test suite, VM tests included: installs what is missing, builds, runs the host unit
# tests once more under ASan/LSan/UBSan, then every CTest test (labels unit, kernel, vm, fuzz).
# Exits non-zero when anything fails. `.ci/run` calls this. Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh -DURINGC_FUZZ=ON

# The runtime's and the diagnostics' unit tests under the sanitizers (no LLVM in this binary, so
# this build is small: its test objects come from build/uringc). A leak or an undefined
# behaviour fails the run.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DURINGC_SANITIZE=ON \
  -DURINGC_TEST_COMPILER="$PWD/build/uringc" >/dev/null
ninja -C build-asan uringc_runtime_tests uringc_diag_tests
for t in runtime/uringc_runtime_tests compiler/uringc_diag_tests; do
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    build-asan/tests/$t --gtest_brief=1
done

cd build
if ! ctest --output-on-failure -j2 "$@"; then
  # The failures again, last, where a log cut short in the middle still shows them.
  echo "== failed assertions (from build/Testing/Temporary/LastTest.log) =="
  grep -E -A8 ': Failure$' Testing/Temporary/LastTest.log | tail -120 || true
  grep -E '\[  FAILED  \]' Testing/Temporary/LastTest.log | sort -u | tail -40 || true
  exit 8
fi
