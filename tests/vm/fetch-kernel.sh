#!/usr/bin/env bash
# Fetches a Debian cloud kernel that has CONFIG_IO_URING_BPF_OPS=y, with apt only, into a cache
# outside the repository, and prints the cache folder (holding `vmlinuz`, `release`, `abi`,
# `config` when Debian ships one for that kernel, and `ublk_drv.ko`, the ublk driver from the
# kernel's modules package, uncompressed so busybox's insmod loads it; `no-ublk` says why not).
#
# Usage: fetch-kernel.sh SUITE
#   SUITE `sid` or `trixie-backports`: the suite's current kernel (linux-image-cloud-amd64).
#   SUITE `sid-X.Y` or `trixie-backports-X.Y` (e.g. trixie-backports-7.1): the newest X.Y.z cloud
#   kernel of that suite, so an older kernel ABI stays in the test matrix while the suite moves on.
#
# The machine's own kernel lacks io_uring_bpf_ops, so the VM tests boot one of these. apt runs with
# a private sources list, lists folder and cache, so sid never enters the system's apt sources.
# A cached kernel younger than URINGC_KERNEL_MAX_AGE_DAYS (default 7) is used without any network
# access; an older one is refreshed, and kept if the mirror cannot be reached.
# URINGC_CACHE_DIR (default ~/.cache/uringc) and URINGC_DEBIAN_MIRROR override the defaults; the
# mirror is otherwise the one the machine's apt sources name (scripts/debian-mirror.sh).
# Each fetch records the files' checksums (`sha256sums`); an entry that no longer matches them (a
# truncated copy, flipped bytes, an emptied file) is damaged and fetched again, or named when it
# cannot be. A cache this user cannot write (read-only) is used when its kernel is intact.
#
# What the kernel must have is read from two places: the config (linux-base-<release>, which
# trixie-backports lacks for its 7.1 kernels) and the image's own BTF (bpftool on the vmlinux
# inside vmlinuz: the io_uring_bpf_ops type and its kfuncs, and which context struct loop_step
# takes, written to `abi` as 7.1 or 7.2). A kernel without a config must pass the BTF check.
set -euo pipefail

suite=${1:?usage: fetch-kernel.sh sid|trixie-backports[-X.Y]}
case $suite in
  sid|trixie-backports) apt_suite=$suite series= ;;
  sid-*|trixie-backports-*) apt_suite=${suite%-*} series=${suite##*-} ;;
  *) apt_suite= ;;
esac
if [[ -z $apt_suite || ! ${series:-7.0} =~ ^[0-9]+\.[0-9]+$ ]]; then
  echo "fetch-kernel: unknown suite '$suite' (use sid or trixie-backports, optionally" \
       "pinned to a series as in trixie-backports-7.1)" >&2
  exit 2
fi

cache=${URINGC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/uringc}
dest=$cache/kernels/$suite
max_age_days=${URINGC_KERNEL_MAX_AGE_DAYS:-7}
# The mirror this machine's apt uses (scripts/debian-mirror.sh), unless URINGC_DEBIAN_MIRROR says.
# Installed, the script sits beside this one (libexec/uringc/); in the source tree in scripts/.
here=$(dirname "${BASH_SOURCE[0]}")
mirror_script=$here/debian-mirror.sh
[ -x "$mirror_script" ] || mirror_script=$here/../../scripts/debian-mirror.sh
mirror=$("$mirror_script" archive)
say() { echo "fetch-kernel[$suite]: $*" >&2; }

# One fetch at a time per cache: parallel CTest jobs share the apt lists folder and the kernels.
# Without write access there is no lock and nothing to fetch: only an intact kernel can be used.
if { mkdir -p "$cache" && exec 9>>"$cache/.fetch.lock"; } 2>/dev/null; then
  flock 9
  writable=1
else
  writable=
fi

# A complete cache entry: the image, its release, the evidence it was checked (config or abi),
# and an abi that is one of the two this project knows.
cached_is_complete() {
  [[ -s $dest/vmlinuz && -s $dest/release && ( -s $dest/config || -s $dest/abi ) ]] &&
    { [[ ! -e $dest/abi ]] || grep -qx '7\.[12]' "$dest/abi"; }
}
# An intact entry: complete and matching the checksums of its fetch. Sets `damage` to the reason
# when an entry is there but unusable. Entries cached before checksums existed get theirs now.
cached_is_intact() {
  damage=
  [[ -e $dest ]] || return 1
  if ! cached_is_complete; then
    local f
    for f in vmlinuz release; do [[ -s $dest/$f ]] || damage="${damage:+$damage, }$f is empty or missing"; done
    if [[ -e $dest/abi ]] && ! grep -qx '7\.[12]' "$dest/abi"; then
      damage="${damage:+$damage, }abi holds '$(head -c 20 "$dest/abi" | tr -cd '[:print:]')', not 7.1 or 7.2"
    fi
    damage=${damage:-neither config nor abi}
    return 1
  fi
  if [[ ! -s $dest/sha256sums ]]; then
    [[ -n $writable ]] || { say "no checksums recorded in the read-only $dest; using it as it is"; return 0; }
    record_checksums "$dest"
    say "recorded the checksums of the kernel cached in $dest (cached before checksums existed)"
  fi
  if ! grep -q ' vmlinuz$' "$dest/sha256sums" ||
     ! (cd "$dest" && sha256sum --quiet --strict -c sha256sums) >/dev/null 2>&1; then
    damage="$( (cd "$dest" && sha256sum --quiet -c sha256sums 2>&1) | grep -v WARNING |
      tr '\n' ' ' | sed 's/ *$//')"
    damage="it does not match the checksums recorded when it was fetched${damage:+: $damage}"
    return 1
  fi
}
record_checksums() {  # record_checksums DIR
  (cd "$1" && sha256sum vmlinuz release $(ls abi config ublk_drv.ko no-ublk 2>/dev/null) >sha256sums.new &&
    mv sha256sums.new sha256sums)
}
damaged() {  # what to say about a damaged entry
  echo "the kernel cached in $dest is damaged ($damage)"
}

# Whether the entry says what became of ublk_drv.ko: entries cached before modules were kept are
# refreshed when the mirror can be reached, and used as they are (without ublk) when not.
has_modules_info() { [[ -s $dest/ublk_drv.ko || -s $dest/no-ublk ]]; }

damage=
if cached_is_intact; then
  if [[ -n $(find "$dest/release" -mtime "-$max_age_days" 2>/dev/null) ]] && has_modules_info; then
    echo "$dest"
    exit 0
  fi
  if [[ -z $writable ]]; then
    say "$cache is read-only: using the cached kernel $(cat "$dest/release") without refreshing it"
    echo "$dest"
    exit 0
  fi
elif [[ -n $damage ]]; then
  if [[ -z $writable ]]; then
    say "$(damaged), and $cache is read-only, so it cannot be fetched again: delete $dest or" \
        "point URINGC_CACHE_DIR elsewhere"
    exit 1
  fi
  say "$(damaged); fetching it again"
elif [[ -z $writable ]]; then
  say "cannot write the cache $cache, and no kernel is cached in $dest"
  exit 1
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
  if cached_is_intact; then
    say "$1; using the cached kernel $(cat "$dest/release")"
    echo "$dest"
    exit 0
  fi
  if [[ -n $damage ]]; then
    say "$1, and $(damaged): delete $dest and run again when the mirror can be reached"
    exit 1
  fi
  say "$1, and no kernel is cached in $dest"
  exit 1
}

if ! apt-get "${apt_opts[@]}" -qq --error-on=any update >"$apt_dir/update.log" 2>&1; then
  use_stale_cache "cannot reach Debian's mirror (apt-get update failed: $(tail -n 1 "$apt_dir/update.log"))"
fi

# Versions of the given packages that apt_suite holds (`apt-cache madison` rows of that suite).
in_suite() {
  apt-cache "${apt_opts[@]}" madison "$@" 2>/dev/null |
    awk -F' *\\| *' -v s=" $apt_suite/main" 'index($3, s) { sub(/^ */, "", $1); print $1, $2 }'
}

if [[ -z $series ]]; then
  # The meta package names the suite's current kernel: linux-image-cloud-amd64 (= V) depends on
  # linux-image-<release>-cloud-amd64, whose image is in linux-binary-<release>-cloud-amd64 and
  # whose config is in linux-base-<release>-cloud-amd64.
  meta_version=$(in_suite linux-image-cloud-amd64 | awk '{ print $2; exit }')
  [[ -n $meta_version ]] || use_stale_cache "suite $apt_suite has no linux-image-cloud-amd64"
  release=$(apt-cache "${apt_opts[@]}" show "linux-image-cloud-amd64=$meta_version" |
    sed -n 's/^Depends:.*linux-image-\([^ ,]*\)-cloud-amd64 .*/\1/p' | head -n 1)
  [[ -n $release ]] || use_stale_cache "cannot tell which kernel linux-image-cloud-amd64 $meta_version names"
  release=$release-cloud-amd64
else
  # The newest linux-binary-<series>.<z>+<deb>-cloud-amd64 of the suite.
  mapfile -t names < <(apt-cache "${apt_opts[@]}" pkgnames "linux-binary-$series." |
    grep -E "^linux-binary-${series//./\\.}\.[0-9]+\+[a-z0-9.]+-cloud-amd64$" || true)
  release=
  if [[ ${#names[@]} -gt 0 ]]; then
    release=$(in_suite "${names[@]}" | awk '{ print $1 }' | sed 's/^linux-binary-//' |
      sort -V | tail -n 1)
  fi
  [[ -n $release ]] || use_stale_cache "suite $apt_suite has no $series.x cloud kernel"
fi

if cached_is_intact && has_modules_info && [[ $(cat "$dest/release") == "$release" ]]; then
  touch "$dest/release"
  echo "$dest"
  exit 0
fi

size=$(apt-cache "${apt_opts[@]}" show "linux-binary-$release" 2>/dev/null |
  awk '/^Size:/ { printf "%.1f MB", $2 / 1e6; exit }')
say "downloading $release${size:+ ($size)}"
work=$(mktemp -d "$apt_dir/download/$suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
packages=("linux-binary-$release/$apt_suite")
# The modules (about 23 MB) only for ublk_drv.ko: the ublk tests load it in the guest.
have_modules=$(in_suite "linux-modules-$release")
[[ -z $have_modules ]] || packages+=("linux-modules-$release/$apt_suite")
if [[ -n $(in_suite "linux-base-$release") ]]; then
  packages+=("linux-base-$release/$apt_suite")
else
  say "$apt_suite has no linux-base-$release (the config): checking the kernel's BTF instead"
fi
# Progress on a long first download: apt's status lines (APT::Status-Fd), a line each 10%.
progress() {
  local kind pct last=0
  while IFS=: read -r kind _ pct _; do
    [[ $kind == dlstatus ]] || continue
    pct=${pct%%.*}
    if ((pct >= last + 10 && pct < 100)); then
      last=$pct
      say "downloading $release: $pct%"
    fi
  done
}
exec 4>&2  # the terminal's stderr, for progress() inside the redirected download below
(cd "$work" && apt-get "${apt_opts[@]}" -qq -o APT::Status-Fd=3 download "${packages[@]}" \
   3> >(progress 2>&4)) >"$apt_dir/download.log" 2>&1 ||
  use_stale_cache "apt-get download of $release failed: $(grep -m1 '^E:' "$apt_dir/download.log")"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done

vmlinuz=$(find "$work/root" -name 'vmlinuz*' -type f | head -n 1)
config=$(find "$work/root" -path "*/$release/config" -o -name "config-$release" | head -n 1)
[[ -n $vmlinuz ]] || use_stale_cache "the package of $release holds no vmlinuz"
if [[ -n $config ]]; then
  for option in CONFIG_IO_URING_BPF_OPS CONFIG_BPF_JIT CONFIG_DEBUG_INFO_BTF CONFIG_SERIAL_8250_CONSOLE; do
    if ! grep -qx "$option=y" "$config"; then
      use_stale_cache "$release lacks $option=y"
    fi
  done
fi

# The vmlinux inside a bzImage is one compressed stream after the setup code: try each candidate
# start (the decompressors stop with an error at the trailing data; an ELF header shows success).
extract_vmlinux() {  # extract_vmlinux VMLINUZ OUT
  local magic tool offset
  for pair in '\x28\xb5\x2f\xfd:zstd' '\xfd\x37\x7a\x58\x5a\x00:xz' '\x1f\x8b\x08:gzip'; do
    magic=${pair%:*} tool=${pair#*:}
    command -v "$tool" >/dev/null || continue
    for offset in $(LC_ALL=C grep -obUaP "$magic" "$1" | cut -d: -f1 | head -n 5); do
      tail -c "+$((offset + 1))" "$1" | "$tool" -dc 2>/dev/null >"$2" || true
      [[ $(head -c 4 "$2" | od -An -c | tr -d ' ') == '177ELF' ]] && return 0
    done
  done
  return 1
}

# Checks the image's BTF and writes the ABI to OUT_ABI_FILE. Fails with 1 when the BTF cannot be
# read (tools missing, unknown compression), with 2 when it shows the kernel is unusable.
check_btf() {  # check_btf VMLINUZ OUT_ABI_FILE
  local btf=$work/btf.txt ctx want
  if ! command -v bpftool >/dev/null || ! command -v zstd >/dev/null; then
    say "bpftool and zstd are needed to read the kernel's BTF (scripts/install-deps.sh)"
    return 1
  fi
  if ! extract_vmlinux "$1" "$work/vmlinux" ||
     ! bpftool btf dump file "$work/vmlinux" format raw >"$btf" 2>/dev/null; then
    say "cannot read the BTF of $release (no vmlinux with a .BTF section in its vmlinuz)"
    return 1
  fi
  # io_uring_bpf_ops exists only with CONFIG_IO_URING_BPF_OPS=y, which depends on BPF_JIT and
  # DEBUG_INFO_BTF; serial8250_console_write only with CONFIG_SERIAL_8250_CONSOLE=y.
  for want in "STRUCT 'io_uring_bpf_ops'" "FUNC 'bpf_io_uring_get_region'" \
              "FUNC 'bpf_io_uring_submit_sqes'" "FUNC 'serial8250_console_write'"; do
    if ! grep -q "^\[[0-9]*\] $want" "$btf"; then
      say "$release lacks $want in its BTF"
      return 2
    fi
  done
  ctx=$(bpftool btf dump file "$work/vmlinux" format c 2>/dev/null |
    sed -n '/^struct io_uring_bpf_ops {/{n;s/.*(\*loop_step)(struct \([a-z_]*\) \*.*/\1/p}')
  case $ctx in
    io_ring_ctx) echo 7.1 >"$2" ;;
    iou_ctx) echo 7.2 >"$2" ;;
    *) say "$release: loop_step takes neither struct io_ring_ctx * nor struct iou_ctx *"
       return 2 ;;
  esac
}

rm -rf "$dest.new"
mkdir -p "$dest.new"
check_btf "$vmlinuz" "$dest.new/abi" && btf_status=0 || btf_status=$?
if [[ $btf_status == 2 ]]; then
  use_stale_cache "$release cannot run controllers"
elif [[ $btf_status == 1 ]]; then
  [[ -n $config ]] || use_stale_cache "$release has no config and its BTF could not be checked"
  say "keeping $release on the strength of its config alone"
fi
cp "$vmlinuz" "$dest.new/vmlinuz"
[[ -z $config ]] || cp "$config" "$dest.new/config"
ublk=$(find "$work/root" -name 'ublk_drv.ko*' -type f | head -n 1)
case $ublk in
  *.ko) cp "$ublk" "$dest.new/ublk_drv.ko" ;;
  *.ko.xz) xz -dc "$ublk" >"$dest.new/ublk_drv.ko" ;;
  *.ko.zst) zstd -qdc "$ublk" >"$dest.new/ublk_drv.ko" ;;
  '') if [[ -z $have_modules ]]; then
        echo "$apt_suite has no linux-modules-$release" >"$dest.new/no-ublk"
      else
        echo "linux-modules-$release has no ublk_drv.ko" >"$dest.new/no-ublk"
      fi ;;
  *) echo "cannot decompress $(basename "$ublk")" >"$dest.new/no-ublk" ;;
esac
[[ ! -e $dest.new/ublk_drv.ko || -s $dest.new/ublk_drv.ko ]] ||
  { rm -f "$dest.new/ublk_drv.ko"; echo "decompressing ublk_drv.ko failed" >"$dest.new/no-ublk"; }
echo "$release" >"$dest.new/release"
record_checksums "$dest.new"
rm -rf "$dest"
mv "$dest.new" "$dest"
checked=${config:+config}
[[ ! -s $dest/abi ]] || checked="${checked:+$checked and }BTF: ABI $(cat "$dest/abi")"
say "cached $release ($checked) in $dest"
echo "$dest"
