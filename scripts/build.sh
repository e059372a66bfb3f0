#!/usr/bin/env bash
# Installs what is missing and builds uringc into build/ (the one build folder the other scripts use).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build
