#!/usr/bin/env bash
# Makes the build that travels to a GPU machine (tests/gpu/session.sh runs it there): kinetoscope-cli, the agent and
# the Debian libraries the CLI needs that such a machine lacks (simdjson, libdeflate), in .gpu/build with the same
# layout as a build folder, so tests/gpu/run.sh takes it as one. The CLI is started through a wrapper that puts
# those libraries on its path; the agent finds CUPTI there at run time (core/live/cuptilocate.h).
# Usage: tests/gpu/carry.sh [BUILD_DIR]   (default build/dev; it must have been built with CUPTI)
set -euo pipefail
build=${1:-build/dev}
dest=.gpu/build
rm -rf "$dest" && mkdir -p "$dest/cli" "$dest/capture" "$dest/lib"
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
strip -o "$dest/cli/kinetoscope-cli.bin" "$build/cli/kinetoscope-cli"
strip -o "$dest/capture/libkinetoscope-agent.so" "$build/capture/libkinetoscope-agent.so"
for lib in $(ldd "$build/cli/kinetoscope-cli" | awk '/simdjson|deflate/ {print $3}'); do
    cp -L "$lib" "$dest/lib/"
done
cat >"$dest/cli/kinetoscope-cli" <<'WRAPPER'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/kinetoscope-cli.bin" "$@"
WRAPPER
chmod +x "$dest/cli/kinetoscope-cli"
if ! readelf -d "$dest/capture/libkinetoscope-agent.so" | grep -q 'libcupti'; then
    echo "carry.sh: $build's agent was built without CUPTI" >&2
    exit 1
fi
du -sh "$dest"
