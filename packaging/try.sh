#!/usr/bin/env bash
# Installs what is missing, builds, and opens the viewer on the bundled sample trace.
# Without a display (SSH, containers) it renders the sample's timeline to a PNG instead and says where.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake --preset release >/dev/null
# Only what this script runs (the viewer, the CLI): the tests and benchmarks are check.sh's.
cmake --build --preset release --target kinetoscope kinetoscope-cli
sample=resources/samples/sample.pt.trace.json
if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
  exec ./build/release/app/kinetoscope "$sample"
fi
out="$PWD/build/release/sample-timeline.png"
./build/release/app/kinetoscope --render "$out" --size 1600x900 "$sample"
echo "No display found: rendered the sample's timeline to $out"
echo "(run 'xvfb-run ./build/release/app/kinetoscope $sample' for a virtual one)."
./build/release/cli/kinetoscope-cli summary "$sample" --top 10
