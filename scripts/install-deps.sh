#!/usr/bin/env bash
# Installs every build and test dependency of uringc from Debian's packages.
#
# Idempotent: the security and backports suites are added once, and apt installs only what is missing, so a
# second run changes nothing. libbpf and bpftool come from bookworm-backports because bookworm's
# libbpf 1.1 knows neither `.struct_ops.link` nor `struct_ops.s/`.
set -euo pipefail

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: run as root (apt-get needs it)" >&2
  exit 2
fi

# bookworm-security carries LLVM 22; bookworm-backports carries libbpf 1.4 and bpftool 7.5.
add_suite() {  # add_suite SUITE URI: adds a deb822 source unless some source already names SUITE
  local suite=$1 uri=$2
  if ! grep -rqsw -- "$suite" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "install-deps: adding $suite to apt's sources"
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' "$uri" "$suite" \
      /usr/share/keyrings/debian-archive-keyring.gpg >"/etc/apt/sources.list.d/uringc-$suite.sources"
  fi
}
# From the mirror apt already uses (scripts/debian-mirror.sh; URINGC_DEBIAN_MIRROR and
# URINGC_DEBIAN_SECURITY_MIRROR override it), so a local mirror or proxy keeps working.
mirror_of=$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh
add_suite bookworm-security "$("$mirror_of" security)"
add_suite bookworm-backports "$("$mirror_of" archive)"

packages=(
  # build
  cmake ninja-build g++ make pkg-config git python3 lld
  llvm-22-dev clang-22 libclang-rt-22-dev
  antlr4 libantlr4-runtime-dev
  liburing-dev libelf-dev zlib1g-dev libzstd-dev
  libgtest-dev libgmock-dev
  # command-line parsing and JSON diagnostics
  libcli11-dev nlohmann-json3-dev
  # BPF C programs and inspection
  clang
  # VM tests (zstd and bpftool read the BTF of a kernel Debian ships without its config)
  qemu-system-x86 busybox-static cpio gzip zstd
  # the ublk tests' block I/O in the guest (fio --verify; packed with its libraries)
  fio
  # tools users expect next to the compiler
  graphviz
  # the benchmark's charts (scripts/bench.py)
  python3-matplotlib
  # Debian packages (scripts/package-debs.sh: dpkg-shlibdeps, fakeroot) and the clean root their
  # test installs them into (mmdebstrap); the man pages' check (groff)
  dpkg-dev fakeroot mmdebstrap groff-base
  # the editor support's test (tests/editors): node runs vscode-textmate; vim and nvim headless
  nodejs vim neovim
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

# npm (Debian's, unless node came with its own) fetches the TextMate engine VS Code uses into a
# fixed directory for unit.editor_syntax (tests/editors/editor_tools.py looks there).
editor_modules=/usr/local/lib/uringc-editor-test
editor_npm_packages=(vscode-textmate@9.3.2 vscode-oniguruma@2.0.1)
command -v npm >/dev/null || missing+=(npm)
install_editor_modules() {
  local p
  for p in "${editor_npm_packages[@]}"; do
    local manifest=$editor_modules/node_modules/${p%@*}/package.json
    if ! grep -qs "\"version\": \"${p##*@}\"" "$manifest"; then
      echo "install-deps: installing ${editor_npm_packages[*]} from npm into $editor_modules"
      npm install --prefix "$editor_modules" --no-save --no-audit --no-fund --loglevel=error \
        "${editor_npm_packages[@]}"
      return
    fi
  done
}

if [[ ${#missing[@]} -eq 0 && -z ${need_backports:-} ]]; then
  install_editor_modules
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
install_editor_modules
echo "install-deps: done"
