#!/usr/bin/env bash
# Live capture on a real NVIDIA GPU (the live-capture issue's real-CUDA check; needs a GPU, so not part of CI):
# builds tests/gpu/probe.cu (known kernel launches and cuBLAS matmuls) with nvcc, runs it bare and under
# `kinetoscope-cli record`, checks every launch arrived with its name and launch shape (check_capture.py), and prints
# the capture's overhead on the probe's GPU section. Writes everything to $OUT (default: a temporary folder).
# Usage: tests/gpu/run.sh [BUILD_DIR]   (default build/dev; it must hold kinetoscope-cli and the agent built with
# CUPTI). Exits 77 when there is no GPU.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build/dev}" && pwd)
out=${OUT:-$(mktemp -d)}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
iterations=${ITERATIONS:-20000}
gemms=${GEMMS:-50}
runs=${RUNS:-5}
python=$(command -v /usr/bin/python3 || command -v python3)
cli="$build/cli/kinetoscope-cli"
agent="$build/capture/libkinetoscope-agent.so"

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L; then
    echo "run.sh: no NVIDIA GPU here" >&2
    exit 77
fi
NVCC="$nvcc" bash "$here/build_probe.sh" "$out/probe"
"$out/probe" 10 1 >/dev/null # warm up the driver and the GPU

for ((i = 1; i <= runs; ++i)); do "$out/probe" "$iterations" "$gemms"; done >"$out/bare.jsonl"
for ((i = 1; i <= runs; ++i)); do
    "$cli" record -o "$out/capture$i.json" --agent "$agent" -- "$out/probe" "$iterations" "$gemms"
done >"$out/captured.jsonl" 2>"$out/record.log"
cat "$out/record.log"

status=0
"$python" "$here/check_capture.py" "$out/capture1.json" "$(head -n 1 "$out/captured.jsonl")" || status=1
"$python" - "$out/bare.jsonl" "$out/captured.jsonl" <<'PY'
import json, statistics, sys
bare = [json.loads(l)["elapsed_ms"] for l in open(sys.argv[1])]
captured = [json.loads(l)["elapsed_ms"] for l in open(sys.argv[2])]
b, c = statistics.median(bare), statistics.median(captured)
print(f"probe GPU section, median of {len(bare)}: bare {b:.1f} ms, under capture {c:.1f} ms: overhead {100 * (c / b - 1):+.1f} %")
print("bare:", " ".join(f"{x:.1f}" for x in bare), " captured:", " ".join(f"{x:.1f}" for x in captured))
PY
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "results in $out"
exit $status
