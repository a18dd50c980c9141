#!/usr/bin/env bash
# Installs the Debian 12 packages Kinetoscope needs to build and test.
# Idempotent: quiet and quick when everything is already there. Works as root; uses sudo otherwise.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev libgl-dev
  libsimdjson-dev zlib1g-dev libdeflate-dev libcli11-dev
  # SQL over a trace (core/sql) and the profilers' databases (Nsight Systems, ROCm): Debian's SQLite
  libsqlite3-dev
  # Perfetto's protobuf traces (core/import/perfettoimport): Debian's protobuf library and compiler
  libprotobuf-dev protobuf-compiler
  # the source format check and the architecture graph (docs/ARCHITECTURE.md)
  clang-format graphviz
  xvfb xauth imagemagick fonts-dejavu-core
  python3
  # the Python module (import kinetoscope) and its tests: Debian's /usr/bin/python3 and its packages
  pybind11-dev python3-dev python3-pandas python3-numpy python3-pytest python3-tqdm
  # the job recipe on a one-node Slurm cluster (tests/slurm_recipe.sh)
  slurm-wlm munge
  # packaging and desktop-integration checks
  dpkg-dev file desktop-file-utils appstream shared-mime-info xdg-utils libfile-mimeinfo-perl
  # fuzzing
  clang-14 libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

if [[ $(id -u) -eq 0 ]]; then sudo=(); else sudo=(sudo); fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
