#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs a BPF controller that keeps 8 NOP
# requests in flight until 100,000 have completed, with `uringc-run --vm`: inside a VM whose kernel
# has io_uring_bpf_ops (Debian's sid kernel, fetched and cached on first use). It prints the
# controller's outputs and statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec build/runtime/uringc-run --vm build/tests/nop_named.bpf.o --arg inflight=8 --arg total=100000
