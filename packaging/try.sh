#!/usr/bin/env bash
# Installs what is missing, builds, and shows the bundled sample trace.
# (The viewer is not built yet: until it is, this prints the CLI's summary of the sample.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
sample=resources/samples/sample.pt.trace.json
./build/release/cli/kinetoscope-cli info "$sample"
echo
./build/release/cli/kinetoscope-cli summary "$sample"
