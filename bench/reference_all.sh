#!/usr/bin/env bash
# Runs the independent reference (tests/reference_summary.py) on every trace of the corpus, whatever its size, and
# prints one line per trace and the total. The ctest `reference_summary` covers the traces under 20 MB of JSON.
#   bash bench/reference_all.sh [BUILD_DIR] [TRACES_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/dev}
traces=${2:-$(realpath -m "$here/../shared/traces")}
exec /usr/bin/python3 "$here/tests/reference_summary.py" "$build/cli/kinetoscope-cli" "$traces" --max-mb 100000
