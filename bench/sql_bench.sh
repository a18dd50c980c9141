#!/bin/bash
# SQL over a trace (issue 62): `kinetoscope-cli query` against DuckDB reading the same file with its own JSON reader
# (bench/duckdb/query.mjs, which documents the read_json formulation), the same two questions, interleaved in one
# run so that the ratios compare like with like. Usage:
#   bench/sql_bench.sh BUILD_DIR [TRACE...]          (ROUNDS=2 by default; ROUNDS=1 bench/sql_bench.sh ...)
# TRACE: .json or .json.gz; without one, the load section's sd35_1g.json (if present) and peers_bench.sh's
# owl200.json, in the current folder, made by ../shared/tools/inflate_trace.py as bench/RESULTS.md says.
# Needs node (20+) and `npm ci --prefix bench/duckdb` (@duckdb/node-api, pinned), /usr/bin/python3 with numpy and
# pandas (Debian's) for our in-process figures (BUILD_DIR/python: `import kinetoscope`).
#
# The questions: window: complete events (ph X; our slice rows with dur > 0, since instants are slices of dur 0)
# starting in the middle tenth of the trace, by ts in ns; kernels: count and total ns of the kernels by name.
# Per trace and round it prints:
#   end to end: whole processes (wall from date, peak RSS from /usr/bin/time), one process a question, each
#     loading the trace: `kinetoscope-cli query --csv TRACE SQL` and `node query.mjs TRACE QUESTION`
#     (the latter also prints DuckDB's load and first query, timed inside);
#   in-process: our load (`kinetoscope.load`) and each query on the loaded trace, as the mean of k runs in one
#     call (k doubling until 0.3 s: the binding polls for Ctrl+C every 10 ms), against DuckDB's load and the
#     mean of k runs (`query.mjs --repeat`);
#   the ratios DuckDB / ours, and whether the two answers are the same rows (our CSV against DuckDB's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "$1")
shift
cli=$build/cli/kinetoscope-cli
mjs=$here/duckdb/query.mjs
rounds=${ROUNDS:-2}
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
    for t in sd35_1g.json owl200.json; do
        [ -f "$t" ] && traces+=("$t")
    done
    if [ ${#traces[@]} -eq 0 ]; then
        echo "no trace given and neither sd35_1g.json nor owl200.json here; make them with" >&2
        echo "  /usr/bin/python3 ../shared/tools/inflate_trace.py ../shared/traces/AMD-AGI__TraceLens/tests__traces__inference__xdit_sd_3.5__profile_trace_rank_0.json.gz sd35_1g.json --mb 1024" >&2
        echo "  /usr/bin/python3 ../shared/tools/inflate_trace.py ../shared/traces/AMD-AGI__TraceLens/tests__traces__mi300__google_owlv2-large-patch14-ensemble__1016001.json.gz owl200.json --mb 200" >&2
        exit 2
    fi
fi
[ -x "$cli" ] || { echo "no $cli" >&2; exit 2; }
[ -d "$here/duckdb/node_modules/@duckdb/node-api" ] || { echo "run: npm ci --prefix bench/duckdb" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else printf "n/a" }'; }
# timed OUT CMD...: runs CMD with stdout to OUT; sets wall (s) and rss (MB).
timed() {
    local out=$1
    shift
    local t0 t1
    t0=$(now)
    /usr/bin/time -f "%M" -o "$work/rss" "$@" > "$out"
    t1=$(now)
    wall=$(sub "$t0" "$t1")
    rss=$(($(tail -n 1 "$work/rss") / 1024))
}
field() { sed -n "s/^$1: \([0-9.]*\) s.*/\1/p" "$2"; }          # field LABEL FILE: the seconds after "LABEL: "
mean() { sed -n "s/^$1: .*mean of [0-9]* more: \([0-9.]*\) s.*/\1/p" "$2"; }

echo "sql_bench: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores," \
    "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), node $(node --version), rounds $rounds"
for trace in "${traces[@]}"; do
    trace=$(realpath "$trace")
    echo "== $trace ($(du -m "$trace" | cut -f1) MB)"
    "$cli" info "$trace" > /dev/null # warm the page cache
    read -r first last < <("$cli" query --csv "$trace" "SELECT min(ts), max(ts) FROM slice WHERE dur > 0" |
        tail -n 1 | tr ',\r' '  ')
    lo=$((first + (last - first) * 45 / 100)) # the middle tenth
    hi=$((first + (last - first) * 55 / 100))
    declare -A ours=(
        [window]="SELECT count(*) FROM slice WHERE ts >= $lo AND ts < $hi AND dur > 0"
        [kernels]="SELECT name, count(*), sum(dur) FROM slice WHERE category = 'kernel' GROUP BY name ORDER BY 3 DESC, 1"
    )
    echo "window [$lo, $hi) ns"
    for round in $(seq 1 "$rounds"); do
        echo "-- round $round"
        declare -A ours_e2e=() duck_e2e=()
        for q in window kernels; do
            timed "$work/ours_$q.csv" "$cli" query --csv "$trace" "${ours[$q]}"
            ours_e2e[$q]=$wall
            echo "ours   $q end to end: $wall s, $rss MB peak"
            timed "$work/duck_$q.txt" node "$mjs" "$trace" --window "$lo,$hi" --out "$work/duck" "$q"
            duck_e2e[$q]=$wall
            echo "duckdb $q end to end: $wall s, $rss MB peak" \
                "(inside: load $(field "duckdb load" "$work/duck_$q.txt") s, query $(field "duckdb $q" "$work/duck_$q.txt") s)"
        done
        PYTHONPATH=$build/python /usr/bin/python3 - "$trace" "${ours[window]}" "${ours[kernels]}" > "$work/ours_in.txt" <<'PY'
import sys, time
import kinetoscope
path, window, kernels = sys.argv[1:]
start = time.perf_counter()
t = kinetoscope.load(path)
print("ours load: %.3f s" % (time.perf_counter() - start))
for name, sql in (("window", window), ("kernels", kernels)):
    start = time.perf_counter()
    t.query(sql)
    first = time.perf_counter() - start
    k = 1
    while True:  # k statements in one call: the binding's 10 ms poll spread over them
        start = time.perf_counter()
        t.query(";\n".join([sql] * k))
        took = time.perf_counter() - start
        if took >= 0.3 or k >= 1 << 20:
            break
        k *= 2
    print("ours %s: %.6f s, mean of %d more: %.6f s" % (name, first, k, took / k))
PY
        node "$mjs" "$trace" --window "$lo,$hi" --repeat --out "$work/duck_in" > "$work/duck_in.txt"
        ol=$(field "ours load" "$work/ours_in.txt")
        dl=$(field "duckdb load" "$work/duck_in.txt")
        ow=$(mean "ours window" "$work/ours_in.txt")
        dw=$(mean "duckdb window" "$work/duck_in.txt")
        ok=$(mean "ours kernels" "$work/ours_in.txt")
        dk=$(mean "duckdb kernels" "$work/duck_in.txt")
        echo "in-process: load ours $ol s, duckdb $dl s; window ours $ow s, duckdb $dw s; kernels ours $ok s, duckdb $dk s"
        echo "ratios duckdb / ours: end to end window $(ratio "${duck_e2e[window]}" "${ours_e2e[window]}")," \
            "kernels $(ratio "${duck_e2e[kernels]}" "${ours_e2e[kernels]}"); load $(ratio "$dl" "$ol");" \
            "query window $(ratio "$dw" "$ow"), kernels $(ratio "$dk" "$ok")"
        for q in window kernels; do
            if diff -q <(tail -n +2 "$work/ours_$q.csv" | tr -d '\r') "$work/duck/$q.csv" > /dev/null; then
                echo "$q: same answer ($(tail -n +2 "$work/ours_$q.csv" | wc -l) rows$([ $q = window ] && echo ": $(tail -n 1 "$work/ours_$q.csv")"))"
            else
                echo "$q: ANSWERS DIFFER (ours vs duckdb):"
                diff <(tail -n +2 "$work/ours_$q.csv" | tr -d '\r') "$work/duck/$q.csv" | head -n 10 | cut -c1-200
            fi
        done
    done
done
