#!/usr/bin/env bash
# bench/replaytiming.sh BUILD_DIR [TRACE] [SPEED]
# Replay keeps a trace's relative timing: at speed S, recording the replay of a trace whose GPU work spans T takes at
# least T / S. Prints the wall time of `kinetoscope-cli record --replay` and the bound (a figure, not a test).
set -euo pipefail
build=${1:?usage: replaytiming.sh BUILD_DIR [TRACE] [SPEED]}
trace=${2:-$(realpath -m "$(dirname "$0")/../../shared/traces")/AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz}
speed=${3:-0.05}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$(date +%s.%N)
"$build/cli/kinetoscope-cli" record -o "$out/c.json" --replay "$trace" --speed "$speed" \
  --agent "$build/capture/libkinetoscope-agent.so" -- "$build/capture/kinetoscope-fake-cuda" >/dev/null
end=$(date +%s.%N)
span_us=$(/usr/bin/python3 - "$out/c.json" <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
print(max(e["ts"] + e.get("dur", 0) for e in ev) - min(e["ts"] for e in ev))
PY
)
/usr/bin/python3 -c "
wall = $end - $start; bound = $span_us / 1e6 / $speed
print(f'replay_wall_s={wall:.3f} gpu_span_s={$span_us / 1e6:.4f} speed=$speed bound_s={bound:.3f} ratio={wall / bound:.2f}')"
