#!/usr/bin/env bash
# Installs every build and test dependency of uringc from Debian's packages.
#
# Idempotent: the backports suite is added once, and apt installs only what is missing, so a
# second run changes nothing. libbpf and bpftool come from bookworm-backports because bookworm's
# libbpf 1.1 knows neither `.struct_ops.link` nor `struct_ops.s/` (see docs/architecture.md).
set -euo pipefail

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: run as root (apt-get needs it)" >&2
  exit 2
fi

backports=/etc/apt/sources.list.d/uringc-bookworm-backports.sources
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  cat >"$backports" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC

fi

packages=(
  # build
  cmake ninja-build g++ make pkg-config git
  llvm-22-dev clang-22 libclang-rt-22-dev
  antlr4 libantlr4-runtime-dev
  liburing-dev libelf-dev zlib1g-dev libzstd-dev
  libgtest-dev libgmock-dev
  # BPF C programs and inspection
  clang
  # VM tests
  qemu-system-x86 busybox-static cpio gzip
  # tools users expect next to the compiler
  graphviz
)
backport_packages=(libbpf-dev bpftool linux-libc-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# The backported libbpf is what we need; bookworm's 1.1 does not count.
libbpf_version=$(dpkg-query -W -f='${Version}' libbpf-dev 2>/dev/null || true)
if [[ -z $libbpf_version ]] || dpkg --compare-versions "$libbpf_version" lt 1:1.2; then
  need_backports=1
fi
for p in bpftool; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_backports=1
done
bpftool_version=$(dpkg-query -W -f='${Version}' bpftool 2>/dev/null || true)
if [[ -n $bpftool_version ]] && dpkg --compare-versions "$bpftool_version" lt 7.4; then
  need_backports=1
fi

if [[ ${#missing[@]} -eq 0 && -z ${need_backports:-} ]]; then
  echo "install-deps: everything is installed"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "install-deps: installing ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [[ -n ${need_backports:-} ]]; then
  echo "install-deps: installing ${backport_packages[*]} from bookworm-backports"
  apt-get install -y -qq --no-install-recommends -t bookworm-backports "${backport_packages[@]}"
fi
echo "install-deps: done"
