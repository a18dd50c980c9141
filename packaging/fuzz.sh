#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan) and runs each for SECONDS (default 60): the importer with
# every analysis (fuzz_loader), the importer alone (fuzz_import), seeded with tests/fuzz/seeds and the small real traces of the corpus, the live-capture wire decoder, and the memory-snapshot reader (fuzz_pickle,
# seeded with subsets of real snapshots and the first 64 KiB of each real one), and the reader of TorchInductor's
# generated code, FX graphs and provenance mappings (fuzz_inductorcode, seeded with the real generated code of tests/data/inductor and gpu). A crash, leak, UB or an input
# slower than 10 s fails the run and leaves the input in build/fuzz/ (turn it into a regression test).
#   bash packaging/fuzz.sh [SECONDS [LIBFUZZER OPTION...]]
# Options after SECONDS go to every target as they are (-runs=10000000 -jobs=2 -workers=2, -seed=N, ...);
# KINETOSCOPE_FUZZ_TARGETS picks targets (default "loader import wire pickle inductorcode ondemand mcp perfetto":
# ondemand, the on-demand daemon's datagram decoders; mcp, the MCP server's HTTP and JSON-RPC decoding; perfetto, the
# Perfetto protobuf reader). The targets run side by
# side, one a core (KINETOSCOPE_FUZZ_JOBS, default nproc; 1 with -jobs=N), each for the whole SECONDS, its log printed
# when it ends: on CI's 2 cores, five targets take three rounds, not five. A reproducer runs alone:
#   ./build/fuzz/tests/fuzz/fuzz_import INPUT
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
extra=("$@")
targets=" ${KINETOSCOPE_FUZZ_TARGETS:-loader import wire pickle inductorcode ondemand mcp perfetto} "
wants() { [[ "$targets" == *" $1 "* ]]; }
traces=${KINETOSCOPE_TRACES_DIR:-$(realpath -m ../shared/traces)}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzz_loader fuzz_import fuzz_wire fuzz_pickle fuzz_inductorcode fuzz_ondemand fuzz_mcp fuzz_perfetto
corpus=build/fuzz/corpus-loader
mkdir -p "$corpus"
cp -f tests/fuzz/seeds/* "$corpus"/
if [[ -d "$traces" ]]; then
  find "$traces" -type f \( -name '*.json' -o -name '*.json.gz' \) -size -64k -exec cp -f {} "$corpus"/ \;
fi
# The live-capture wire decoder's corpus.
wire=build/fuzz/corpus-wire
mkdir -p "$wire"
cp -f tests/fuzz/seeds-wire/* "$wire"/
# The memory-snapshot reader (our own pickle reader and the snapshot model): subsets of real snapshots and the
# first 64 KiB of each real one.
pickles=build/fuzz/corpus-pickle
mkdir -p "$pickles"
cp -f tests/fuzz/seeds-pickle/* "$pickles"/
if [[ -d "$traces/snapshots" ]]; then
  for f in "$traces"/snapshots/*.pickle; do head -c 65536 "$f" >"$pickles/head-$(basename "$f")"; done
fi
# TorchInductor's generated code: compiled modules and kernel files of several PyTorch versions
# and the GPU run's debug folder (fx_graph_readable.py beside output_code.py).
inductor=build/fuzz/corpus-inductorcode
mkdir -p "$inductor"
# (head stops reading the larger ones early: gzip's broken pipe is expected, not a failure)
for f in tests/data/inductor/*.py.gz tests/data/gpu/compiled_3layers/*.py.gz \
    tests/data/gpu/compiled_3layers/*provenance*.json.gz; do
  (gzip -dc "$f" || true) | head -c 65536 >"$inductor/$(basename "$f" .gz)"
done

# The on-demand daemon's datagrams: a poll, a registration and a config, as Kineto and the daemon send them.
ondemand=build/fuzz/corpus-ondemand
mkdir -p "$ondemand"
python3 - "$ondemand" <<'PY'
import struct, sys
def msg(t, p): return struct.pack('<Q', len(p)) + t.encode().ljust(32, b'\0') + p
open(sys.argv[1] + '/poll', 'wb').write(msg('req', struct.pack('<iiq', 2, 2, 0) + struct.pack('<ii', 4242, 1)))
open(sys.argv[1] + '/ctxt', 'wb').write(msg('ctxt', struct.pack('<iiq', 0, 4242, 0)))
open(sys.argv[1] + '/config', 'wb').write(msg('req', b'ACTIVITIES_LOG_FILE=/tmp/a.json\n'))
PY

# The MCP server's requests: JSON-RPC messages (first byte 0) and HTTP requests (first byte 1).
mcp=build/fuzz/corpus-mcp
mkdir -p "$mcp"
cp -f tests/fuzz/seeds-mcp/* "$mcp"/

# The Perfetto reader: our text-format seeds encoded with protoc (a PyTorch-shaped GPU trace, raw and gzip),
# and the first 4, 16 and 64 KiB of each real .pftrace of the corpus (cut mid-packet, as a truncated file is).
perfetto=build/fuzz/corpus-perfetto
mkdir -p "$perfetto"
/usr/bin/python3 tests/fuzz/make_perfetto_seeds.py core/import "$perfetto" tests/fuzz/seeds-perfetto/*.txtpb
if [[ -d "$traces/formats" ]]; then
  for f in "$traces"/formats/*.pftrace; do
    for k in 4 16 64; do head -c $((k * 1024)) "$f" >"$perfetto/head$k-$(basename "$f")"; done
  done
fi

jobs=${KINETOSCOPE_FUZZ_JOBS:-$(nproc)}
declare -A corpus_of=([loader]="$corpus" [import]="$corpus" [wire]="$wire" [pickle]="$pickles"
  [inductorcode]="$inductor" [ondemand]="$ondemand" [mcp]="$mcp" [perfetto]="$perfetto")
declare -A running=() # pid -> target
failed=0
finish_one() { # waits for one target, prints its log, notes a failure
  local pid rc=0
  wait -n -p pid "${!running[@]}" || rc=$?
  local name=${running[$pid]}
  unset "running[$pid]"
  echo "fuzz.sh: fuzz_$name ended (rc $rc); its log:" >&2
  cat "build/fuzz/fuzz_$name.log" >&2
  if ((rc != 0)); then
    echo "fuzz.sh: fuzz_$name FAILED (rc $rc): its input is in build/fuzz/" >&2
    failed=1
  fi
}
for name in loader import wire pickle inductorcode ondemand mcp perfetto; do
  wants "$name" || continue # (a target left out by KINETOSCOPE_FUZZ_TARGETS is not a failure)
  while ((${#running[@]} >= jobs)); do finish_one; done
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "./build/fuzz/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix=build/fuzz/ "${extra[@]}" "${corpus_of[$name]}" \
    >"build/fuzz/fuzz_$name.log" 2>&1 &
  running[$!]=$name
  echo "fuzz.sh: fuzz_$name started for $seconds s" >&2
done
while ((${#running[@]} > 0)); do finish_one; done
exit "$failed"
