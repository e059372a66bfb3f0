#!/usr/bin/env bash
# Fetches a Debian cloud kernel that has CONFIG_IO_URING_BPF_OPS=y, with apt only, into a cache
# outside the repository, and prints the cache folder (holding `vmlinuz`, `config`, `release`).
#
# Usage: fetch-kernel.sh SUITE        SUITE is `sid` or `trixie-backports`
#
# The machine's own kernel lacks io_uring_bpf_ops, so the VM tests boot one of these. apt runs with
# a private sources list, lists folder and cache, so sid never enters the system's apt sources.
# A cached kernel younger than URINGC_KERNEL_MAX_AGE_DAYS (default 7) is used without any network
# access; an older one is refreshed, and kept if the mirror cannot be reached.
# URINGC_CACHE_DIR (default ~/.cache/uringc) and URINGC_DEBIAN_MIRROR override the defaults.
set -euo pipefail

suite=${1:?usage: fetch-kernel.sh sid|trixie-backports}
case $suite in
  sid|trixie-backports) ;;
  *) echo "fetch-kernel: unknown suite '$suite' (use sid or trixie-backports)" >&2; exit 2 ;;
esac

cache=${URINGC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/uringc}
dest=$cache/kernels/$suite
max_age_days=${URINGC_KERNEL_MAX_AGE_DAYS:-7}
mirror=${URINGC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
say() { echo "fetch-kernel[$suite]: $*" >&2; }

# One fetch at a time per cache: parallel CTest jobs share the apt lists folder and the kernels.
mkdir -p "$cache"
exec 9>"$cache/.fetch.lock"
flock 9

cached_is_fresh() {
  [[ -s $dest/vmlinuz && -s $dest/config && -s $dest/release ]] &&
    [[ -n $(find "$dest/release" -mtime "-$max_age_days" 2>/dev/null) ]]
}
if cached_is_fresh; then
  echo "$dest"
  exit 0
fi

apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/download"
cat >"$apt_dir/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie-backports main
SRC
apt_opts=(
  -o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir"
  -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
  -o APT::Sandbox::User=root -o Debug::NoLocking=1
)

use_stale_cache() {
  if [[ -s $dest/vmlinuz && -s $dest/config && -s $dest/release ]]; then
    say "$1; using the cached kernel $(cat "$dest/release")"
    echo "$dest"
    exit 0
  fi
  say "$1, and no kernel is cached in $dest"
  exit 1
}

if ! apt-get "${apt_opts[@]}" -qq --error-on=any update >"$apt_dir/update.log" 2>&1; then
  use_stale_cache "cannot reach Debian's mirror (apt-get update failed: $(tail -n 1 "$apt_dir/update.log"))"
fi

# The meta package names the suite's current kernel: linux-image-cloud-amd64 (= V) depends on
# linux-image-<release>-cloud-amd64, whose image is in linux-binary-<release>-cloud-amd64 and whose
# config is in linux-base-<release>-cloud-amd64.
meta_version=$(apt-cache "${apt_opts[@]}" madison linux-image-cloud-amd64 |
  awk -F' *\\| *' -v s=" $suite/main" 'index($3, s) { print $2; exit }')
[[ -n $meta_version ]] || use_stale_cache "suite $suite has no linux-image-cloud-amd64"
release=$(apt-cache "${apt_opts[@]}" show "linux-image-cloud-amd64=$meta_version" |
  sed -n 's/^Depends:.*linux-image-\([^ ,]*\)-cloud-amd64 .*/\1/p' | head -n 1)
[[ -n $release ]] || use_stale_cache "cannot tell which kernel linux-image-cloud-amd64 $meta_version names"
release=$release-cloud-amd64

if [[ -s $dest/release && $(cat "$dest/release") == "$release" ]]; then
  touch "$dest/release"
  echo "$dest"
  exit 0
fi

say "downloading $release"
work=$(mktemp -d "$apt_dir/download/$suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get "${apt_opts[@]}" -qq download \
  "linux-binary-$release/$suite" "linux-base-$release/$suite") >"$apt_dir/download.log" 2>&1 ||
  use_stale_cache "apt-get download of $release failed: $(grep -m1 '^E:' "$apt_dir/download.log")"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done

vmlinuz=$(find "$work/root" -name 'vmlinuz*' -type f | head -n 1)
config=$(find "$work/root" -path "*/$release/config" -o -name "config-$release" | head -n 1)
[[ -n $vmlinuz ]] || use_stale_cache "the package of $release holds no vmlinuz"
[[ -n $config ]] || use_stale_cache "the package of $release holds no kernel config"
for option in CONFIG_IO_URING_BPF_OPS CONFIG_BPF_JIT CONFIG_DEBUG_INFO_BTF CONFIG_SERIAL_8250_CONSOLE; do
  if ! grep -qx "$option=y" "$config"; then
    use_stale_cache "$release lacks $option=y"
  fi
done

mkdir -p "$dest.new"
cp "$vmlinuz" "$dest.new/vmlinuz"
cp "$config" "$dest.new/config"
echo "$release" >"$dest.new/release"
rm -rf "$dest"
mv "$dest.new" "$dest"
say "cached $release in $dest"
echo "$dest"
