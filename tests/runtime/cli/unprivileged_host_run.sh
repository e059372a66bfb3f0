#!/bin/sh
# The host engine needs no privileges: `uringc run GRAPH` as the user nobody, on a kernel without
# io_uring_bpf_ops (auto takes the host engine) or with it (nobody may not load BPF, so auto takes
# the host engine there too). Exit 77 (skipped) unless run as root with runuser.
#   usage: unprivileged_host_run.sh URINGC GRAPH.uring
uringc="$1"
graph="$2"
if [ "$(id -u)" != 0 ] || ! command -v runuser >/dev/null 2>&1; then
    echo "skipped: needs root and runuser to become the user nobody"
    exit 77
fi
if ! runuser -u nobody -- test -r "$graph" || ! runuser -u nobody -- test -x "$uringc"; then
    echo "skipped: nobody cannot read $graph or run $uringc (the checkout's permissions)"
    exit 77
fi
out=$(cd /tmp && runuser -u nobody -- "$uringc" run "$graph" --arg n=1000 2>&1)
status=$?
echo "$out"
[ "$status" = 0 ] && echo "$out" | grep -q "done = 1000" && echo "$out" | grep -q "host engine"
