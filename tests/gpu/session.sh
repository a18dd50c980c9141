#!/usr/bin/env bash
# The whole real-GPU session in one command (the live-capture issue: GPU time is short and lent in one piece).
# Run from the repository root on the GPU machine, with a carried build (tests/gpu/carry.sh makes it):
#   bash tests/gpu/session.sh [CARRIED_BUILD]      (default .gpu/build)
# Each step has its own time limit and its own log, one failing step does not stop the next, and after every step
# what was made so far is packed into $OUT (the folder that comes back): session.log, gpu-data.tar.gz (traces,
# tables, snapshots, Inductor's code), gpu-capture.tar.gz (a capture of the probe and its check).
# Steps, in the issue's order: the machine, the probe's capture check and overhead (tests/gpu/run.sh), a compiled
# run with its code and compiled-module profile, key_averages() for eager and compiled, a capture beside the
# profiler on the same training steps, CUDA graphs, FP8, memory snapshots, a graph break, a recompilation and
# max-autotune (compiled_cases.py), a million launches; the raw spools (test
# data and fuzzing seeds) and what a capture costs a training step beside torch.profiler, part by part, run right
# after the probe (ONLY names the steps of one call).
set -u
repo=$(pwd)
build=$(cd "${1:-.gpu/build}" && pwd)
out=${OUT:?set OUT to the folder to fill}
work=${WORK:-/tmp/kinetoscope-gpu}
rm -rf "$work" && mkdir -p "$work/data" "$work/logs" "$work/capture"
cli="$build/cli/kinetoscope-cli"
agent="$build/capture/libkinetoscope-agent.so"
python=${PYTHON:-python3}
gpu_dir="$repo/tests/gpu"
exec > >(tee "$out/session.log") 2>&1

pack() {
    # JSON is gzipped as it is made (a tenth of the size); the pack is split at 15 MB, the most one file brings back.
    find "$work/data" -name '*.json' -size +64k -exec gzip -6 {} \;
    rm -f "$out"/gpu-data.tar.gz*
    (cd "$work" && tar czf - data logs 2>/dev/null | split -b 15M -d - "$out/gpu-data.tar.gz.")
}

pack_capture() {
    [ -f "$work/capture/capture1.json" ] || return 0
    (cd "$work/capture" && tar czf "$out/gpu-capture.tar.gz" capture1.json bare.jsonl captured.jsonl record.log \
        check.txt 2>/dev/null)
    ls -la "$out/gpu-capture.tar.gz"
}

# step NAME SECONDS COMMAND...: runs COMMAND with its output in logs/NAME.log, prints its end and its status.
step() {
    local name=$1 limit=$2
    shift 2
    # ONLY="a b": run just those steps (a second, shorter call on the same GPU).
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return 0; fi
    echo "=== $name (limit ${limit}s, $(date +%T))"
    local started=$SECONDS
    timeout -k 10 "$limit" bash -c '"$@"' "$name" "$@" >"$work/logs/$name.log" 2>&1
    local status=$?
    tail -n "${TAIL:-25}" "$work/logs/$name.log" | cut -c1-400
    echo "--- $name: exit $status after $((SECONDS - started)) s"
    pack
    return 0
}

machine() {
    nvidia-smi
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
    command -v nvcc && nvcc --version || /usr/local/cuda/bin/nvcc --version
    uname -a
    "$python" -c 'import torch, triton, sys; print("python", sys.version.split()[0], sys.executable); print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__); print(torch.cuda.get_device_name(), torch.cuda.get_device_properties(0))'
    echo "CUPTI libraries:"
    find /usr /opt /root -name 'libcupti.so*' 2>/dev/null
    echo "the agent loaded bare (its RUNPATH is this build machine's):"
    "$python" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1]); print("loaded")' "$agent" 2>&1 | tail -n 1
    echo "carried build:"
    ls -la "$build/cli" "$build/capture" "$build/lib"
    ldd "$build/cli/kinetoscope-cli.bin" "$agent"
}

compiled_modules() {
    # Inductor's compiled modules (the output_code.py of each graph) are the cached .py files that define
    # benchmark_compiled_module; each is run with -p (profile) and -k (every kernel benchmarked).
    local n=0
    mkdir -p "$work/data/inductor"
    for module in $(grep -rl --include='*.py' 'def benchmark_compiled_module' "$work/inductor" | sort); do
        n=$((n + 1))
        local dir="$work/data/inductor/module$n"
        mkdir -p "$dir/tmp"
        cp "$module" "$dir/output_code.py"
        echo "module $n: $module"
        # A cache of its own, so that the rerun adds nothing to the one searched below.
        export TORCHINDUCTOR_CACHE_DIR="$work/inductor_rerun"
        (cd "$dir" && TMPDIR="$dir/tmp" timeout 120 "$python" output_code.py -p >profile.txt 2>&1; echo "exit $?" >>profile.txt)
        find "$dir/tmp" -name 'compiled_module_profile.json' -exec mv {} "$dir/" \;
        (cd "$dir" && TMPDIR="$dir/tmp" timeout 120 "$python" output_code.py -k >kernels.txt 2>&1; echo "exit $?" >>kernels.txt)
        rm -rf "$dir/tmp"
        tail -n 5 "$dir/profile.txt" "$dir/kernels.txt"
    done
    # The Triton kernels' own source files, as Inductor wrote them (kernel_file in the trace points at them).
    mkdir -p "$work/data/inductor/kernels"
    for file in $(grep -rl --include='*.py' -e '@triton.jit' "$work/inductor" | sort); do
        grep -q 'def benchmark_compiled_module' "$file" || cp "$file" "$work/data/inductor/kernels/"
    done
    echo "$n compiled modules, $(ls "$work/data/inductor/kernels" | wc -l) kernel files"
    (cd "$work/inductor" && find . -name '*.py' | sort) >"$work/data/inductor/cache_files.txt"
}

keep_code() {
    # keep_code CACHE NAME: the compiled modules (output_code.py) of a run whose Inductor cache is CACHE.
    local n=0
    mkdir -p "$work/data/$2"
    for module in $(grep -rl --include='*.py' 'def benchmark_compiled_module' "$1" | sort); do
        n=$((n + 1))
        cp "$module" "$work/data/$2/output_code_$n.py"
    done
    echo "$n compiled modules kept in $2"
}

compiled_variant() {
    # A second compile (three layers, not two) with Inductor's debug folder and its provenance mappings (FX nodes to
    # kernels), the trace of the same run beside it.
    export TORCH_COMPILE_DEBUG=1 INDUCTOR_PROVENANCE=1 TORCH_COMPILE_DEBUG_DIR="$work/debug" \
        TORCHINDUCTOR_CACHE_DIR="$work/inductor_variant" TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 KINETOSCOPE_LAYERS=3
    "$python" "$gpu_dir/transformer.py" --compile default --steps 5 --profile "$work/data/compiled_3layers"
    keep_code "$work/inductor_variant" compiled_3layers_code
    (cd "$work/debug" && find . -name output_code.py -o -name 'inductor_provenance_tracking_node_mappings*.json' \
        -o -name fx_graph_readable.py | sort | tee "$work/data/compiled_3layers_code/debug_files.txt" \
        | tar czf "$work/data/compiled_3layers_code/debug.tar.gz" -T -)
}

record_compiled() {
    # Captures of compiled code: Triton kernels launched through the driver (cuLaunchKernelEx), then CUDA graphs
    # (every replayed kernel is one cudaGraphLaunch's).
    export TORCHINDUCTOR_CACHE_DIR="$work/inductor_record"
    "$cli" record -o "$work/data/record_compiled.json" --agent "$agent" -- \
        "$python" "$gpu_dir/transformer.py" --compile default --steps 5
    "$cli" record -o "$work/data/record_reduce_overhead.json" --agent "$agent" -- \
        "$python" "$gpu_dir/transformer.py" --compile reduce-overhead --steps 5
}

million() {
    # One million kernel launches (and 100,000 more), bare and under capture: records per second, drops, and the
    # agent's CPU time and memory as the target's own growth (the agent lives in it).
    "$work/capture/probe" 500000 0 | tee "$work/data/million_bare.json"
    local t0=$SECONDS
    "$cli" record -o "$work/million.json" --agent "$agent" -- "$work/capture/probe" 500000 0 \
        | tee "$work/data/million_captured.json"
    echo "record wall $((SECONDS - t0)) s"
    ls -la "$work/million.json"
    "$cli" summary "$work/million.json" | head -n 30
    rm -f "$work/million.json"
}

spools() {
    # The raw wire streams the agent wrote (`record --spool`) beside the JSON made of them: real CUPTI records for
    # the wire decoder's tests and fuzzing seeds (the probe's few launches, one eager and one compiled training step).
    mkdir -p "$work/data/spools"
    "$cli" record -o "$work/data/spools/probe.json" --spool "$work/data/spools/probe.kscw" --agent "$agent" -- \
        "$work/capture/probe" 200 2
    "$cli" record -o "$work/data/spools/eager.json" --spool "$work/data/spools/eager.kscw" --agent "$agent" -- \
        "$python" "$gpu_dir/transformer.py" --steps 1
    TORCHINDUCTOR_CACHE_DIR="$work/inductor_spool" "$cli" record -o "$work/data/spools/compiled.json" \
        --spool "$work/data/spools/compiled.kscw" --agent "$agent" -- \
        "$python" "$gpu_dir/transformer.py" --compile default --steps 1
    ls -la "$work/data/spools"
}

overhead() {
    # A step's cost under our capture beside torch.profiler's (tests/gpu/overhead.py), eager then compiled, three
    # alternating pairs of runs each: bare with the profiler's two settings in the same process, then under record.
    export TORCHINDUCTOR_CACHE_DIR="$work/inductor_overhead"
    for mode in none default; do
        for i in 1 2 3; do
            "$python" "$gpu_dir/overhead.py" --compile $mode | tee -a "$work/data/overhead.jsonl"
            "$cli" record -o "$work/overhead_capture.json" --agent "$agent" -- \
                "$python" "$gpu_dir/overhead.py" --compile $mode --bare-only | tee -a "$work/data/overhead.jsonl"
            rm -f "$work/overhead_capture.json"
        done
    done
}

overhead_parts() {
    # What each part of the capture costs (the agent's KINETOSCOPE_CUPTI_SKIP, _THREAD_IDS, FLUSH_MS): eager
    # steps (overhead.py) and the probe's launches (50,000 iterations, no GEMMs), bare and under each setting,
    # three interleaved rounds.
    local settings=("KINETOSCOPE_NONE=1" "KINETOSCOPE_CUPTI_THREAD_IDS=pthread" "KINETOSCOPE_CUPTI_SKIP=DRIVER"
        "KINETOSCOPE_CUPTI_SKIP=SYNCHRONIZATION,MARKER,DEVICE" "KINETOSCOPE_FLUSH_MS=2000")
    NVCC_ARCH=-arch=sm_90 bash "$gpu_dir/build_probe.sh" "$work/probe_parts" || return 1
    for round in 1 2 3; do
        "$python" "$gpu_dir/overhead.py" | tee -a "$work/data/overhead_parts.jsonl"
        echo "{\"probe\": \"bare\", \"result\": $("$work/probe_parts" 50000 0)}" | tee -a "$work/data/probe_parts.jsonl"
        for setting in "${settings[@]}"; do
            env "$setting" "$cli" record -o "$work/parts.json" --agent "$agent" -- \
                "$python" "$gpu_dir/overhead.py" --bare-only | tee -a "$work/data/overhead_parts.jsonl"
            echo "{\"probe\": \"$setting\", \"result\": $(env "$setting" "$cli" record -o "$work/parts.json" \
                --agent "$agent" -- "$work/probe_parts" 50000 0)}" | tee -a "$work/data/probe_parts.jsonl"
        done
    done
    rm -f "$work/parts.json"
}

compare_record() {
    # The same eager training steps under `kinetoscope-cli record` and under torch.profiler.
    "$cli" record -o "$work/data/record_eager.json" --agent "$agent" -- "$python" "$gpu_dir/transformer.py" --steps 5
    "$python" "$gpu_dir/transformer.py" --steps 7 --profile "$work/data/profiler_eager"
}

# The steps run under timeout, in a shell of their own: they see these functions and variables.
export -f machine compiled_modules million spools overhead overhead_parts compare_record keep_code compiled_variant record_compiled
export repo build out work cli agent python gpu_dir
step machine 60 machine
# A C++ program brings no CUPTI of its own: when the toolkit has none, the probe is given PyTorch's.
# (Any one of the toolkit's three places will do: `ls` of all three fails when one is missing.)
toolkit_cupti=$(ls /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 /usr/local/cuda/lib64/libcupti.so.13 \
    /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13 2>/dev/null | head -n 1)
if [ -z "${KINETOSCOPE_CUPTI_DIR:-}" ] && [ -z "$toolkit_cupti" ]; then
    probe_cupti=$(find /opt /usr -name libcupti.so.13 2>/dev/null | head -n 1)
    echo "no CUPTI in /usr/local/cuda; the probe's capture uses ${probe_cupti:-none}"
    [ -n "$probe_cupti" ] && probe_env="KINETOSCOPE_CUPTI_DIR=$(dirname "$probe_cupti")"
fi
step probe 240 env ${probe_env:-} OUT="$work/capture" NVCC_ARCH=-arch=sm_90 RUNS=${RUNS:-3} bash "$gpu_dir/run.sh" "$build"
cp "$work/logs/probe.log" "$work/capture/check.txt" 2>/dev/null
pack_capture
step probe_summary 60 "$cli" summary "$work/capture/capture1.json"
step spools 240 env ${probe_env:-} bash -c spools
step overhead 420 overhead
step overhead_parts 360 env ${probe_env:-} bash -c overhead_parts
export TORCHINDUCTOR_UNIQUE_KERNEL_NAMES=1 TORCHINDUCTOR_BENCHMARK_KERNEL=1
step compiled 300 env TORCHINDUCTOR_CACHE_DIR="$work/inductor" "$python" "$gpu_dir/transformer.py" --compile default --steps 5 --profile "$work/data/compiled"
step compiled_modules 300 compiled_modules
step eager 120 "$python" "$gpu_dir/transformer.py" --steps 5 --profile "$work/data/eager"
step record_vs_profiler 240 compare_record
step record_compiled 300 record_compiled
step compiled_variant 300 compiled_variant
step compiled_center 300 env KINETOSCOPE_CENTER=1 TORCHINDUCTOR_CACHE_DIR="$work/inductor_center" "$python" "$gpu_dir/transformer.py" --compile default --steps 5 --profile "$work/data/compiled_center"
step reduce_overhead 300 env TORCHINDUCTOR_CACHE_DIR="$work/inductor_graphs" "$python" "$gpu_dir/transformer.py" --compile reduce-overhead --steps 5 --profile "$work/data/reduce_overhead"
step reduce_overhead_code 60 keep_code "$work/inductor_graphs" reduce_overhead_code
step fp8 120 "$python" "$gpu_dir/extras.py" fp8 "$work/data"
step memory 120 "$python" "$gpu_dir/extras.py" memory "$work/data"
step oom 120 "$python" "$gpu_dir/extras.py" oom "$work/data"
# The compiled-model advice on real runs (tests/gpu/compiled_cases.py): a graph break, a recompilation inside the
# profile, max-autotune (with its compiled modules, which say which GEMMs became Triton templates).
for case in break recompile; do
    step compiled_$case 150 env TORCHINDUCTOR_CACHE_DIR="$work/inductor_$case" "$python" "$gpu_dir/compiled_cases.py" $case "$work/data"
done
step compiled_autotune 330 env TORCHINDUCTOR_CACHE_DIR="$work/inductor_autotune" "$python" "$gpu_dir/compiled_cases.py" autotune "$work/data"
step compiled_autotune_code 60 keep_code "$work/inductor_autotune" autotune_code
step million 300 env ${probe_env:-} bash -c million
# Attach on a real PyTorch (issue 53): a KINETO_USE_DAEMON=1 loop listed and traced by `attach`, beside
# torch.profiler's trace of the same loop; two processes at once (tests/gpu/attach_check.py). Alone:
#   ONLY=attach bash tests/gpu/session.sh
step attach 420 env OUT="$work/data" "$python" "$gpu_dir/attach_check.py" "$build"
pack
ls -la "$out"
echo "session done at $(date +%T)"
