#!/usr/bin/env bash
# Prints the Debian mirror this machine's apt already uses, so that the suites the project adds
# (install-deps.sh: bookworm-security, bookworm-backports) and the kernels it downloads
# (tests/vm/fetch-kernel.sh: sid, trixie-backports) come from the same place: a local mirror or
# a caching proxy works without editing the project. apt proxies (Acquire::http::Proxy) need
# nothing here: apt applies them itself.
#
# Usage: debian-mirror.sh archive|security
#   archive   the URI of the main archive (the one serving CODENAME, CODENAME-updates or
#             CODENAME-backports), e.g. http://deb.debian.org/debian
#   security  the URI serving CODENAME-security, e.g. http://deb.debian.org/debian-security (when
#             apt has none, the archive's mirror with `-security` appended, if it ends in /debian)
# URINGC_DEBIAN_MIRROR and URINGC_DEBIAN_SECURITY_MIRROR override what apt says. With neither and
# no matching source, deb.debian.org is printed and stderr says why.
#
# apt itself reads the sources (one-line .list files and deb822 .sources alike, APT_CONFIG
# honoured): `apt-get --print-uris update` lists what an update would fetch, without fetching,
# with a private lists folder so that it needs no root and takes no lock.
set -euo pipefail

kind=${1:-}
case $kind in
  archive) override=${URINGC_DEBIAN_MIRROR:-} default=http://deb.debian.org/debian ;;
  security) override=${URINGC_DEBIAN_SECURITY_MIRROR:-} default=http://deb.debian.org/debian-security ;;
  *) echo "usage: debian-mirror.sh archive|security" >&2; exit 2 ;;
esac
if [[ -n $override ]]; then
  echo "${override%/}"
  exit 0
fi

codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
codename=${codename:-bookworm}
lists=$(mktemp -d)
trap 'rm -rf "$lists"' EXIT
mkdir -p "$lists/partial"
# "'URI/dists/SUITE/InRelease' ..." -> "URI SUITE"
pairs=$(apt-get -o Dir::State::Lists="$lists" -o Debug::NoLocking=1 --print-uris update 2>/dev/null |
        sed -n "s|^'\(.*\)/dists/\([^/]*\)/InRelease'.*|\1 \2|p" || true)

found=
while read -r uri suite; do
  [[ -n ${uri:-} ]] || continue
  case $kind:$suite in
    archive:"$codename"|archive:"$codename"-updates|archive:"$codename"-backports) found=$uri ;;
    security:"$codename"-security|security:"$codename"/updates) found=$uri ;;
  esac
  [[ -n $found ]] && break
done <<<"$pairs"

# No security source, but a mirror of the archive at .../debian: mirrors and caching proxies
# (apt-cacher-ng) serve the security archive beside it, at .../debian-security.
if [[ -z $found && $kind == security ]]; then
  archive=$(URINGC_DEBIAN_MIRROR= "$0" archive 2>/dev/null)
  if [[ $archive == */debian && $archive != http://deb.debian.org/debian ]]; then
    echo "debian-mirror: apt has no source for $codename-security; using the archive's" \
         "mirror, $archive-security" >&2
    found=$archive-security
  fi
fi
if [[ -z $found ]]; then
  echo "debian-mirror: apt has no source for Debian $codename's ${kind} suites; using $default" \
       "(set URINGC_DEBIAN_$( [[ $kind == security ]] && echo SECURITY_)MIRROR to choose)" >&2
  found=$default
fi
echo "${found%/}"
