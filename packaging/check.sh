#!/usr/bin/env bash
# Installs what is missing, builds (Ninja, ccache) and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
traces=${KINETOSCOPE_TRACES_DIR:-$(realpath -m ../shared/traces)}
if [[ ! -f "$traces/MANIFEST.md" ]]; then
  echo "check.sh: the real-trace corpus is missing at $traces (set KINETOSCOPE_TRACES_DIR)" >&2
  exit 1
fi
# Every source as .clang-format writes it (packaging/format.sh rewrites them).
bash packaging/format.sh --check
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
cmake --preset dev -DKINETOSCOPE_TRACES_DIR="$traces" >/dev/null
cmake --build --preset dev
ctest --preset dev -j "$(nproc)"

# CI also builds everything with AddressSanitizer + UndefinedBehaviorSanitizer (UB is fatal, leaks are reported) and
# runs the whole suite again. Locally: KINETOSCOPE_CHECK_ASAN=1 bash packaging/check.sh.
if [[ "${CI:-}" == "true" || -n "${KINETOSCOPE_CHECK_ASAN:-}" ]]; then
  cmake --preset asan -DKINETOSCOPE_TRACES_DIR="$traces" >/dev/null
  cmake --build --preset asan
  ctest --preset asan -j "$(nproc)" --timeout 1200
  # and fuzzes the importer and every analysis for a minute.
  bash packaging/fuzz.sh 60
fi
