#!/usr/bin/env bash
# Builds the Debian package: build/release/kinetoscope_<version>_amd64.deb
# Install it with: sudo apt install ./build/release/kinetoscope_<version>_amd64.deb
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
(cd build/release && cpack -G DEB)
ls -1 build/release/kinetoscope_*_amd64.deb
