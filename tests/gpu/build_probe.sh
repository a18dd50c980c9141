#!/usr/bin/env bash
# Builds tests/gpu/probe.cu (the CUDA program with known launches) into OUT with nvcc, linking cuBLAS from the
# toolkit or, where the toolkit has none, from PyTorch's pip packages. Used by run.sh and session.sh.
# Usage: tests/gpu/build_probe.sh OUT   (NVCC: the compiler, NVCC_ARCH: its -arch flag, default -arch=native)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || nvcc=$(command -v nvcc)
if ! "$nvcc" -O2 ${NVCC_ARCH:--arch=native} -o "$out" "$here/probe.cu" -lcublas; then
    # A toolkit without cuBLAS: PyTorch's pip packages bring one (versioned name only).
    cublas=$(find /usr/local /opt -name 'libcublas.so.1[0-9]' 2>/dev/null | head -n 1)
    echo "build_probe.sh: linking the probe against $cublas" >&2
    "$nvcc" -O2 ${NVCC_ARCH:--arch=native} -o "$out" "$here/probe.cu" -L"$(dirname "$cublas")" \
        -l:"$(basename "$cublas")" -Xlinker -rpath="$(dirname "$cublas")"
fi
