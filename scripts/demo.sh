#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the hand-written NOP controller inside a
# VM whose kernel has io_uring_bpf_ops (Debian's sid kernel, fetched and cached on first use),
# printing what the controller did.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec /usr/bin/python3 tests/vm/run-vm-tests.py --manifest build/tests/vm-tests.json --suite sid \
  --filter 'Sizes/NopInflightTest.*'
