#!/usr/bin/env bash
# The main job: installs what is missing, builds, compiles examples/nop_chain.uring (one NOP at a
# time, n times) and runs it with `uringc run --vm`: inside a VM whose kernel has io_uring_bpf_ops
# (Debian's sid kernel, fetched and cached on first use). Prints the program's outputs and the
# run's statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec build/uringc run --vm examples/nop_chain.uring --arg n=100000
