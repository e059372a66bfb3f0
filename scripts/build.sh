#!/usr/bin/env bash
# Installs what is missing and builds uringc into build/ (the one build folder the other scripts
# use). Extra arguments go to cmake, e.g. `scripts/build.sh -DURINGC_FUZZ=ON`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
ninja -C build
