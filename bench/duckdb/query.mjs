// DuckDB beside `kinetoscope-cli query` (issue 62): loads a Kineto trace's events into a table with DuckDB's own
// JSON reader, then runs the queries of bench/sql_bench.sh, timing each part. Usage:
//   node bench/duckdb/query.mjs TRACE [--window LO,HI] [--repeat] [--out DIR] [QUERY...]
// TRACE: .json or .json.gz (DuckDB inflates .gz itself). QUERY: window, kernels (default both, in that order).
// --window LO,HI: the window query's bounds in ns on the trace's clock, as our slice.ts (default: the middle tenth
// of [min ts, max ts] of the complete events, found untimed). --repeat: after the first run of a query, runs it
// again k times in a row (k doubling from 1 until the k runs take 0.3 s) and prints their mean too. --out DIR:
// each query's rows to DIR/QUERY.csv (no header, RFC 4180 as `kinetoscope-cli query --csv`), not standard output.
//
// The load, one statement: the trace is one JSON object {"traceEvents": [...], ...}, so read_json reads it as one
// row (maximum_object_size must exceed the inflated file: it is a UINTEGER, so at most 4 GiB - 1) whose
// traceEvents column is given a schema (auto-detection reads every event's args and fails on real traces:
// 'Duplicate name "bytes" in struct' from args holding "Bytes" and "bytes"); unknown keys (args, id, s, ...) are
// skipped. unnest(..., recursive := true) makes one row an event. ts and dur become integer ns as our store holds
// them: read as DECIMAL(20,3) µs, times 1000, cast to BIGINT. DuckDB's JSON reader parses numbers as doubles
// first, so this equals our exact decimal reading for Kineto's three decimals below 2^43 µs (~100 days of a
// since-boot clock); an epoch-µs clock (~1.7e15) fits DECIMAL(20,3) but loses its ns digits. Where the time
// goes (xDiT SD3.5, 62 MB of JSON, this 2-core VM): parsing the one object (read_json_objects alone) about a third,
// turning it into the list of structs two thirds, unnest and the table next to nothing; DOUBLE instead of DECIMAL
// is no faster, .json.gz costs ~1 s more. One object is parsed on one thread; peak RSS was ~8.6x the JSON.
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdirSync, writeFileSync } from 'node:fs';

const usage = 'usage: node query.mjs TRACE [--window LO,HI] [--repeat] [--out DIR] [window|kernels...]';
const argv = process.argv.slice(2);
let trace = null, window = null, outDir = null, repeat = false;
const names = [];
for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--window') {
        const m = /^(-?\d+),(-?\d+)$/.exec(argv[++i] ?? '');
        if (!m) throw new Error('--window LO,HI: two integers (ns)');
        window = [BigInt(m[1]), BigInt(m[2])];
    } else if (a === '--out') {
        outDir = argv[++i];
    } else if (a === '--repeat') {
        repeat = true;
    } else if (a.startsWith('--')) {
        console.error(usage);
        process.exit(2);
    } else if (trace === null) {
        trace = a;
    } else {
        names.push(a);
    }
}
if (trace === null) {
    console.error(usage);
    process.exit(2);
}
if (names.length === 0) names.push('window', 'kernels');

const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
const LOAD = `CREATE TABLE ev AS
SELECT ph, cat, name, pid, tid, CAST(ts * 1000 AS BIGINT) AS ts, CAST(dur * 1000 AS BIGINT) AS dur
FROM (SELECT unnest(traceEvents, recursive := true)
      FROM read_json(${quote(trace)},
                     columns = {traceEvents: 'STRUCT(ph VARCHAR, cat VARCHAR, name VARCHAR, pid VARCHAR, tid VARCHAR,
                                                      ts DECIMAL(20,3), dur DECIMAL(20,3))[]'},
                     maximum_object_size = 4294967295))`;

// The same questions as bench/sql_bench.sh asks kinetoscope-cli (there: slice, category, dur > 0 for "complete").
const QUERIES = {
    window: ([lo, hi]) =>
        `SELECT count(*) FROM ev WHERE ph = 'X' AND dur > 0 AND ts >= ${lo} AND ts < ${hi}`,
    kernels: () =>
        `SELECT name, count(*), sum(dur) FROM ev WHERE ph = 'X' AND cat = 'kernel' GROUP BY name ORDER BY 3 DESC, 1`,
};
for (const n of names)
    if (!(n in QUERIES)) throw new Error(`no query "${n}" (${Object.keys(QUERIES).join(', ')})`);

const csvField = (v) => {
    const s = v === null ? '' : String(v);
    return /[",\r\n]/.test(s) ? '"' + s.replaceAll('"', '""') + '"' : s;
};
const seconds = (start) => (performance.now() - start) / 1e3;

const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
const [threads, version] = (await con.runAndReadAll("SELECT current_setting('threads'), version()")).getRows()[0];

let start = performance.now();
await con.run(LOAD);
const loadSeconds = seconds(start);
const events = (await con.runAndReadAll('SELECT count(*) FROM ev')).getRows()[0][0];
console.log(`duckdb load: ${loadSeconds.toFixed(3)} s (${events} events; DuckDB ${version}, ${threads} threads)`);

if (names.includes('window') && window === null) {
    const bounds = await con.runAndReadAll("SELECT min(ts), max(ts) FROM ev WHERE ph = 'X' AND dur > 0");
    const [lo, hi] = bounds.getRows()[0];
    window = [lo + (hi - lo) * 45n / 100n, lo + (hi - lo) * 55n / 100n];
}
if (outDir) mkdirSync(outDir, { recursive: true });
for (const n of names) {
    const sql = QUERIES[n](window);
    start = performance.now();
    const reader = await con.runAndReadAll(sql);
    const first = seconds(start);
    const rows = reader.getRows();
    let line = `duckdb ${n}: ${first.toFixed(6)} s (${rows.length} row${rows.length === 1 ? '' : 's'})`;
    if (repeat) {
        let k = 1, took = 0;
        for (;; k *= 2) {
            start = performance.now();
            for (let i = 0; i < k; ++i) await con.runAndReadAll(sql);
            took = seconds(start);
            if (took >= 0.3 || k >= 1 << 20) break;
        }
        line += `, mean of ${k} more: ${(took / k).toFixed(6)} s`;
    }
    if (n === 'window') line += ` [${window[0]}, ${window[1]})`;
    console.log(line);
    const csv = rows.map((r) => r.map(csvField).join(',') + '\n').join('');
    if (outDir) writeFileSync(`${outDir}/${n}.csv`, csv);
    else process.stdout.write(csv);
}
