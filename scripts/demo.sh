#!/usr/bin/env bash
# The main job: installs what is missing, builds, compiles examples/nop_chain.uring (one NOP at a
# time, n times) and runs it twice: here, where `--engine=auto` takes the host engine on a kernel
# without io_uring_bpf_ops (no root, no VM needed), and with `uringc run --vm` inside a VM whose
# kernel has io_uring_bpf_ops (Debian's sid kernel, fetched and cached on first use), where it runs
# in the kernel. Prints the program's outputs and the run's statistics each time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
echo "== on this machine (uringc run examples/nop_chain.uring --arg n=100000)"
build/uringc run examples/nop_chain.uring --arg n=100000
echo "== in the VM, on the kernel engine (uringc run --vm ...)"
exec build/uringc run --vm examples/nop_chain.uring --arg n=100000
