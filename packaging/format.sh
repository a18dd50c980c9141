#!/usr/bin/env bash
# Formats every C++ source with the repository's .clang-format (Debian 12's clang-format 14).
#   bash packaging/format.sh          rewrites the files in place
#   bash packaging/format.sh --check  changes nothing; lists the files that differ and fails (CI runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' | grep -v '^tests/layering/fixture/')
if [[ "${1:-}" == "--check" ]]; then
  if ! clang-format --dry-run --Werror "${files[@]}" 2>/dev/null; then
    echo "format.sh: these files differ from .clang-format (run bash packaging/format.sh):" >&2
    for f in "${files[@]}"; do clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "  $f" >&2; done
    exit 1
  fi
else
  clang-format -i "${files[@]}"
fi
