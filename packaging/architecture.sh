#!/usr/bin/env bash
# Draws the CMake target graph into docs/architecture.svg (docs/ARCHITECTURE.md shows it): configures the tree in a
# scratch folder with `cmake --graphviz` and renders the libraries and programs, tests and benchmarks left out, with
# graphviz's dot (an arrow goes from a target to what it links, so every arrow points down).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/CMakeGraphVizOptions.cmake" <<'OPTIONS'
set(GRAPHVIZ_EXTERNAL_LIBS FALSE)
set(GRAPHVIZ_GENERATE_PER_TARGET FALSE)
set(GRAPHVIZ_GENERATE_DEPENDERS FALSE)
set(GRAPHVIZ_IGNORE_TARGETS "^tst_|testsupport|^layer-probe|^fuzz_|bench|layer-check|fake-cuda|rendericon")
OPTIONS
(cd "$work" && cmake -G Ninja "$root" -DKINETOSCOPE_TRACES_DIR="${KINETOSCOPE_TRACES_DIR:-$root/../shared/traces}" \
  --graphviz="$work/targets.dot" >/dev/null)
# Without cmake's legend, top to bottom.
sed -e '/subgraph clusterLegend {/,/^}/d' -e 's/^digraph "Kinetoscope" {/digraph "Kinetoscope" {\n  rankdir = TB;/' \
  "$work/targets.dot" >"$work/graph.dot"
dot -Tsvg "$work/graph.dot" -o "$root/docs/architecture.svg"
echo "wrote docs/architecture.svg"
