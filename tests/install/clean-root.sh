#!/usr/bin/env bash
# Prints the path of a minimal Debian 12 root (a tarball: essential packages and apt, with
# bookworm-backports in its sources and apt's lists kept), made with mmdebstrap from the mirror
# this machine's apt uses (scripts/debian-mirror.sh) and cached like the VM kernels
# (URINGC_CACHE_DIR, default ~/.cache/uringc; remade after URINGC_KERNEL_MAX_AGE_DAYS, default 7).
# The package test installs the project's .debs into it, as a fresh Debian 12 user would.
# Exit status: 0 and the path on stdout; 2 when mmdebstrap is missing or the root cannot be made.
set -euo pipefail
cache=${URINGC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/uringc}/clean-root
tarball=$cache/bookworm.tar
max_age_days=${URINGC_KERNEL_MAX_AGE_DAYS:-7}
say() { echo "clean-root: $*" >&2; }

if ! command -v mmdebstrap >/dev/null; then
  say "mmdebstrap is not installed: run scripts/install-deps.sh (Debian package mmdebstrap)"
  exit 2
fi
mkdir -p "$cache"
exec 9>>"$cache/.lock"
flock 9
if [[ -f $tarball && -s $tarball && -z $(find "$tarball" -mtime +"$max_age_days") ]]; then
  echo "$tarball"
  exit 0
fi
mirror_of=$(dirname "${BASH_SOURCE[0]}")/../../scripts/debian-mirror.sh
mirror=$("$mirror_of" archive)
security=$("$mirror_of" security)
say "making a Debian 12 root from $mirror (once; cached in $cache)"
# --format: mmdebstrap otherwise guesses from the name's extension, and `.new` made a directory.
rm -rf "$tarball" "$tarball.new"
if ! mmdebstrap --quiet --variant=apt --format=tar --skip=cleanup/apt/lists bookworm "$tarball.new" \
    "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
    "deb $security bookworm-security main" "deb $mirror bookworm-backports main" >&2; then
  rm -f "$tarball.new"
  say "mmdebstrap failed (see above)"
  exit 2
fi
mv "$tarball.new" "$tarball"
echo "$tarball"
