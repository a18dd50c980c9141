#!/usr/bin/env bash
# Installs what is missing, builds (Ninja, ccache) and runs every test. Each phase's time goes to the log, and a
# table of them at the end: where CI's minutes go.
set -euo pipefail
cd "$(dirname "$0")/.."

phases=()
phase_start=$SECONDS
phase_name=""
phase() { # phase NAME: ends the running phase (its time logged) and starts NAME
  local now=$SECONDS
  if [[ -n "$phase_name" ]]; then
    echo "check.sh: ${phase_name}: $((now - phase_start)) s" >&2
    phases+=("$(printf '%6d s  %s' $((now - phase_start)) "$phase_name")")
  fi
  phase_name=$1
  phase_start=$now
}
report() {
  phase ""
  echo "check.sh: phase times (total ${SECONDS} s)" >&2
  printf '  %s\n' "${phases[@]}" >&2
}
trap report EXIT

phase "install dependencies"
bash packaging/install-deps.sh
traces=${KINETOSCOPE_TRACES_DIR:-$(realpath -m ../shared/traces)}
if [[ ! -f "$traces/MANIFEST.md" ]]; then
  echo "check.sh: the real-trace corpus is missing at $traces (set KINETOSCOPE_TRACES_DIR)" >&2
  exit 1
fi
# Every source as .clang-format writes it (packaging/format.sh rewrites them).
phase "format check"
bash packaging/format.sh --check
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# One cache for every clone of the tree (CI builds a fresh clone in a folder of its own): paths below the tree are
# hashed relative to it, and the working directory, which -g would otherwise hash, is left out.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
phase "build (RelWithDebInfo)"
cmake --preset dev -DKINETOSCOPE_TRACES_DIR="$traces" >/dev/null
cmake --build --preset dev
phase "tests (RelWithDebInfo)"
ctest --preset dev -j "$(nproc)"

# The dev preset builds -O2 with line tables only (-g1: backtraces, sanitizer and perf reports need no more), a
# quarter less compile time than -g and far smaller links; for a debugger, configure with
# -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG".
# CI also builds the core, CLI, capture agent, Python module and their tests with AddressSanitizer +
# UndefinedBehaviorSanitizer (UB is fatal, leaks are reported) and runs those tests again: the parsers, decoders and
# analyses, where memory errors hide. The Qt viewer and its GUI tests run in the build above only: under the
# sanitizers they were a third of the build and the slowest tests, and CI must stay under 30 minutes on 2 cores. Locally: KINETOSCOPE_CHECK_ASAN=1 bash packaging/check.sh. That build is -O1 -g1
# (CMakePresets.json), as ASan recommends: a heavy file (analysis/roofline/roofline.cpp) compiles in 8.4 s instead of
# 21.7 s at -O2 -g, and line tables are all its reports need.
if [[ "${CI:-}" == "true" || -n "${KINETOSCOPE_CHECK_ASAN:-}" ]]; then
  phase "build (ASan+UBSan)"
  cmake --preset asan -DKINETOSCOPE_TRACES_DIR="$traces" >/dev/null
  cmake --build --preset asan
  phase "tests (ASan+UBSan)"
  # LeakSanitizer's own tracer fails now and then on a busy VM, after every case of a test passed and before any
  # leak was looked for (google/sanitizers#1353): such a test, and only such, runs once more (see
  # packaging/lsan_tracer_failures.py). A failed case, a leak, any sanitizer report, a crash or a timeout fails CI.
  asan_log=build/asan/ctest-output.log
  if ! ctest --preset asan -j "$(nproc)" --timeout 1200 --output-log "$asan_log"; then
    rerun=$(python3 packaging/lsan_tracer_failures.py "$asan_log") || exit 1
    echo "check.sh: LeakSanitizer's tracer failed in: $(echo $rerun); running them once more" >&2
    ctest --preset asan --rerun-failed --timeout 1200
  fi
  # and fuzzes the importer with every analysis, the importer alone, the wire decoder, the snapshot reader,
  # the generated-code reader, the on-demand daemon's datagram decoders, the MCP server and the Perfetto reader, 48 s each, one a core (the whole run stays under 30 minutes on 2 cores).
  phase "fuzz (build, 8 targets x 48 s, one a core)"
  bash packaging/fuzz.sh 48
fi
