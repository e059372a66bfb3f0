#!/usr/bin/env bash
# Builds the Debian packages (cmake/Package.cmake: uringc, liburingc0, liburingc-dev) into
# build/packages/ and lists them: installs what is missing and builds first (scripts/build.sh),
# as CPack installs from a complete build. Extra arguments go to cpack.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
(cd build && cpack -G DEB "$@" >/dev/null)
ls -1 build/packages/*.deb
