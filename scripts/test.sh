#!/usr/bin/env bash
# The whole test suite, VM tests included: installs what is missing, builds, runs every CTest test
# (labels unit, kernel, vm). Exits non-zero when any test fails. `.ci/run` calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j2 "$@"
