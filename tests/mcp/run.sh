#!/usr/bin/env bash
# The MCP server under real clients (ctest mcp_sdk): installs the pinned test-only npm packages when they are
# missing (npm ci from package-lock.json), runs the official TypeScript SDK's client over every tool on corpus
# traces (sdk_test.mjs), then the MCP conformance suite's server scenarios that apply to a server of tools only,
# over HTTP. The suite's other scenarios exercise features this server does not offer (resources, prompts,
# sampling, logging, completion) or the reference server's own fixture tools.
#   bash tests/mcp/run.sh CLI TRACES_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cli=$1
traces=$2
if [[ ! -d "$here/node_modules/@modelcontextprotocol/sdk" || "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]]; then
  npm ci --prefix "$here" --no-audit --no-fund >&2
fi
node "$here/sdk_test.mjs" "$cli" "$traces"

# Conformance (0.1.13, the last release that runs on Node 20), against a server on a free loopback port.
log=$(mktemp)
"$cli" mcp --http 127.0.0.1:0 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
url=""
for _ in $(seq 100); do
  url=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$log" || true)
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || { echo "run.sh: the HTTP server did not start: $(cat "$log")" >&2; exit 1; }
for scenario in server-initialize ping tools-list dns-rebinding-protection; do
  out=$("$here/node_modules/.bin/conformance" server --url "$url" --scenario "$scenario" 2>&1) || {
    echo "$out" >&2
    echo "run.sh: conformance scenario $scenario FAILED" >&2
    exit 1
  }
  echo "ok    conformance  $scenario"
done
echo "PASS: SDK client and conformance scenarios"
