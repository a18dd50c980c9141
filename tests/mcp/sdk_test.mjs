#!/usr/bin/env node
// The MCP server (`kinetoscope-cli mcp`, issue 64) driven by the official TypeScript SDK's client, over stdio and
// over Streamable HTTP, each tool's structuredContent compared with what the CLI itself writes as JSON for the
// same trace (summary --json, query --json, diff --json, job --json, memory --json).
//
//   npm ci --prefix tests/mcp
//   node tests/mcp/sdk_test.mjs build/dev/cli/kinetoscope-cli "$(realpath ../shared/traces)"
//
// One line a check; the first mismatch stops the run with exit status 1 and says which tool, which key, what
// the server answered and what the CLI wrote. Numbers are compared as the JSON values they are (no tolerance):
// both sides come from the same JSON writer, and JSON.parse turns the same text into the same double.
//
// The protocol's own conformance suite (@modelcontextprotocol/conformance, a devDependency: 0.1.13 is its last
// release that runs on Node 20) checks the scenarios that apply to a server without the reference fixtures:
//   build/dev/cli/kinetoscope-cli mcp --http 127.0.0.1:0 &   # says its URL on stderr
//   for s in server-initialize ping tools-list dns-rebinding-protection; do
//       tests/mcp/node_modules/.bin/conformance server --url http://127.0.0.1:PORT/mcp --scenario $s; done

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';

// ---------------------------------------------------------------------------------------------------------
// Arguments and the corpus
// ---------------------------------------------------------------------------------------------------------

const [CLI_ARG, TRACES_ARG] = process.argv.slice(2);
if (!CLI_ARG || !TRACES_ARG) {
    console.error('usage: node tests/mcp/sdk_test.mjs CLI TRACES_DIR   (CLI: kinetoscope-cli, TRACES_DIR: ../shared/traces)');
    process.exit(2);
}
const CLI = realpathSync(CLI_ARG);
const TRACES = realpathSync(TRACES_ARG);

// The tools the server must offer, no more and no fewer.
const TOOL_NAMES = [
    'open_trace', 'summary', 'top_kernels', 'top_operators', 'steps', 'gpu_idle', 'recommendations', 'slices',
    'explain_event', 'query', 'compare', 'job', 'memory_snapshot', 'render',
];

// Real files of the corpus (MANIFEST.md), chosen small enough (0.1-8 MB of JSON) for a quick run but each a real
// Kineto GPU trace with kernels, operators, flows and steps.
const CORPUS = {
    // A100 forward pass (tensorboard_trace_handler): 67 kernels, 77 operators, no ProfilerStep (one activity step).
    a100: 'harryjmoss__particle_transformer/tensorboard_logs_forward_2024_12_09__batch_size_512__hmoss-6a49xb_1988833.1733770537022695153.pt.trace.json',
    // Rank 0 of a 128-rank NCCL job (sampled by HTA): 194 kernels, 2 ProfilerSteps, 5 GPU streams; epoch-ns clock.
    rank0: 'facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz',
    // Its pair, rank 1 of the same job: compare's "new" trace and job's second rank.
    rank1: 'facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-1.json.gz',
    // H100 Hugging Face model with memory events, gzipped (8.2 MB of JSON).
    h100: 'AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz',
    // A CUDA caching-allocator snapshot with history (time_us), 1 MB.
    snapshot: 'snapshots/JasperSolt__EoR_NN__snapshot.pickle',
};

// Every file must be one MANIFEST.md lists (the corpus is copied byte for byte; a renamed file should fail here,
// not as a confusing tool error later).
function corpusFile(key) {
    const rel = CORPUS[key];
    const manifest = readFileSync(path.join(TRACES, 'MANIFEST.md'), 'utf8');
    if (!manifest.includes(path.basename(rel))) fatal(`corpus: ${rel} is not listed in ${TRACES}/MANIFEST.md`);
    const file = path.join(TRACES, rel);
    if (!existsSync(file)) fatal(`corpus: ${file} does not exist`);
    return realpathSync(file);
}

// ---------------------------------------------------------------------------------------------------------
// Reporting
// ---------------------------------------------------------------------------------------------------------

class Mismatch extends Error {}

function fatal(message) {
    throw new Mismatch(message);
}

function ok(where, what) {
    console.log(`ok    ${where.padEnd(12)} ${what}`);
}

// A value as one short line for a message.
function show(value) {
    const text = value === undefined ? 'undefined' : JSON.stringify(value);
    return text.length > 300 ? text.slice(0, 300) + `... (${text.length} chars)` : text;
}

function mismatch(tool, key, server, cli) {
    fatal(`${tool}: ${key}: server ${show(server)} but expected ${show(cli)}`);
}

// The first place where two JSON values differ: {at, server, cli}, or null when they are equal. `subset`: only
// the keys of the expected objects are compared (the server adds event_id and link to the CLI's rows).
function firstDifference(server, cli, at = '', subset = false) {
    if (cli === null || typeof cli !== 'object') {
        return Object.is(server, cli) ? null : { at, server, cli };
    }
    if (Array.isArray(cli)) {
        if (!Array.isArray(server)) return { at, server, cli };
        if (server.length !== cli.length) return { at: `${at}.length`, server: server.length, cli: cli.length };
        for (let i = 0; i < cli.length; ++i) {
            const d = firstDifference(server[i], cli[i], `${at}[${i}]`, subset);
            if (d) return d;
        }
        return null;
    }
    if (server === null || typeof server !== 'object' || Array.isArray(server)) return { at, server, cli };
    for (const key of Object.keys(cli)) {
        if (!(key in server)) return { at: `${at}.${key}`, server: undefined, cli: cli[key] };
        const d = firstDifference(server[key], cli[key], `${at}.${key}`, subset);
        if (d) return d;
    }
    if (!subset) {
        for (const key of Object.keys(server))
            if (!(key in cli)) return { at: `${at}.${key}`, server: server[key], cli: undefined };
    }
    return null;
}

function expectEqual(tool, key, server, cli, subset = false) {
    const d = firstDifference(server, cli, key, subset);
    if (d) mismatch(tool, d.at, d.server, d.cli);
}

function expect(tool, key, condition, server, expected) {
    if (!condition) mismatch(tool, key, server, expected);
}

// ---------------------------------------------------------------------------------------------------------
// The CLI's own answers (the expected values)
// ---------------------------------------------------------------------------------------------------------

const cliCache = new Map();

// `kinetoscope-cli ARGS` as text, once per argument list.
function cliText(...args) {
    const key = JSON.stringify(args);
    if (!cliCache.has(key)) {
        try {
            cliCache.set(key, execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 1 << 30 }));
        } catch (e) {
            fatal(`kinetoscope-cli ${args.join(' ')} failed: ${e.stderr || e.message}`);
        }
    }
    return cliCache.get(key);
}

function cliJson(...args) {
    return JSON.parse(cliText(...args));
}

// `query TRACE SQL --json`: {columns, rows}.
function sql(trace, query) {
    return cliJson('query', trace, query, '--json');
}

// The value of a one-row, one-column query.
function sqlValue(trace, query) {
    return sql(trace, query).rows[0][0];
}

// µs on the trace's clock exactly as the server writes them ("1682725898079292.000"): SQL's times are integer
// ns, which on an epoch clock (1.7e18) are past 2^53 and would round if read as a JavaScript number first.
const usText = (column) => `printf('%d.%03d', ${column} / 1000, ${column} % 1000)`;

// Each of a slice query's rows as the server's slice objects (ids, times in µs, names, track).
function sqlSlices(trace, where, order = 'ORDER BY s.ts, s.id', limit = '') {
    const r = sql(trace,
        `SELECT s.id, ${usText('s.ts')}, ${usText('s.dur')}, s.name, s.category, t.name, s.track_id, s.depth ` +
        `FROM slice s JOIN track t ON t.id = s.track_id ${where} ${order} ${limit}`);
    return r.rows.map(([id, ts, dur, name, category, track, trackId, depth]) => ({
        id, ts_us: Number(ts), dur_us: Number(dur), name, category: category ?? '', track, track_id: trackId, depth,
    }));
}

// The CLI's report writes a section's table in full; the server caps a structured report at 256 KiB.
const MAX_STRUCTURED = 256 * 1024;

// ---------------------------------------------------------------------------------------------------------
// Calling tools
// ---------------------------------------------------------------------------------------------------------

// A connection to the server: the SDK client, where it runs (for the log), and a promise that fails as soon as
// the client cannot read what the server sent (a message that is not JSON, or split over lines on stdio):
// without it, the request that message answered would only time out.
function connection(client, where) {
    let fail;
    const broken = new Promise((_, reject) => (fail = reject));
    broken.catch(() => {});
    client.onerror = (e) => fail(new Mismatch(`${where}: the SDK could not read the server's message: ${e?.message ?? e}`));
    return { client, where, broken };
}

// A request, failing with the connection's error when the client stops understanding the server.
async function request(ctx, what, promise) {
    try {
        return await Promise.race([promise, ctx.broken]);
    } catch (e) {
        if (e instanceof Mismatch) throw new Mismatch(`${what}: ${e.message}`);
        throw e;
    }
}

// A tool call that must succeed: its text block (Markdown) is checked here, its structuredContent returned.
async function call(ctx, name, args) {
    const result = await request(ctx, `${name} ${show(args)}`,
        ctx.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }));
    const text = textOf(result);
    if (result.isError) mismatch(name, `isError (arguments ${show(args)})`, text, 'a result');
    if (typeof text !== 'string' || text.length === 0) mismatch(name, 'content[type=text]', result.content, 'a Markdown text block');
    return result;
}

async function structured(ctx, name, args) {
    const result = await call(ctx, name, args);
    if (!result.structuredContent || typeof result.structuredContent !== 'object')
        mismatch(name, 'structuredContent', result.structuredContent, 'an object');
    return result.structuredContent;
}

// A tool call that must answer a tool error (isError, a text saying why), not a JSON-RPC error.
async function callFailing(ctx, name, args) {
    const result = await request(ctx, `${name} ${show(args)}`, ctx.client.callTool({ name, arguments: args }));
    const text = textOf(result);
    if (!result.isError) mismatch(name, `isError (arguments ${show(args)})`, result.isError, true);
    if (typeof text !== 'string' || text.length === 0) mismatch(name, 'error text', result.content, 'a text block');
    return text;
}

function textOf(result) {
    return (result.content ?? []).find((c) => c.type === 'text')?.text;
}

// A table tool's answer against the CLI's rows: every key of the CLI's row with its value, same order, at most
// `limit` rows, and total_rows = the CLI's count.
function expectRows(tool, answer, cliRows, limit, subset = true) {
    expect(tool, 'total_rows', answer.total_rows === cliRows.length, answer.total_rows, cliRows.length);
    expectEqual(tool, 'rows', answer.rows, cliRows.slice(0, limit), subset);
}

function expectLink(tool, key, link) {
    expect(tool, key, typeof link === 'string' && link.startsWith('kinetoscope://'), link, 'a kinetoscope:// link');
}

// ---------------------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------------------

async function checkHandshake(ctx) {
    const info = ctx.client.getServerVersion();
    expect('initialize', 'serverInfo.name', info?.name === 'kinetoscope', info?.name, 'kinetoscope');
    expect('initialize', 'capabilities.tools', !!ctx.client.getServerCapabilities()?.tools,
        ctx.client.getServerCapabilities(), 'tools');
    await request(ctx, 'ping', ctx.client.ping());
    ok(ctx.where, `initialize: serverInfo ${info.name} ${info.version}; ping`);

    const { tools } = await request(ctx, 'tools/list', ctx.client.listTools());
    const names = tools.map((t) => t.name);
    const missing = TOOL_NAMES.filter((n) => !names.includes(n));
    const extra = names.filter((n) => !TOOL_NAMES.includes(n));
    expect('tools/list', 'names', missing.length === 0 && extra.length === 0 && names.length === TOOL_NAMES.length,
        { missing, extra }, TOOL_NAMES);
    for (const t of tools) {
        expect('tools/list', `${t.name}.inputSchema.type`, t.inputSchema?.type === 'object', t.inputSchema, 'object');
        expect('tools/list', `${t.name}.description`, typeof t.description === 'string' && t.description.length > 0,
            t.description, 'a description');
    }
    ok(ctx.where, `tools/list: the ${names.length} tools, each with an object inputSchema`);
}

// open_trace's answer: the first findings, each checked against the CLI's summary of the same file.
async function checkOpenTrace(ctx, file) {
    const tool = `open_trace ${path.basename(file)}`;
    const a = await structured(ctx, 'open_trace', { path: file });
    const report = cliJson('summary', file, '--json');
    expect(tool, 'trace_id', typeof a.trace_id === 'string' && a.trace_id.length > 0, a.trace_id, 'an id');
    expect(tool, 'path', a.path === file, a.path, file);
    expect(tool, 'events', a.events === report.events, a.events, report.events);
    expect(tool, 'steps', a.steps === report.steps.length, a.steps, report.steps.length);

    // The span covers at least every slice (counters or instants may reach further).
    const extentNs = sqlValue(file, 'SELECT max(ts + dur) - min(ts) FROM slice');
    expect(tool, 'span_us', typeof a.span_us === 'number' && a.span_us * 1000 >= extentNs - 1, a.span_us,
        `>= ${extentNs / 1000} (the slices' extent)`);

    // The median step, from the `step` table's integer ns (a pair's median is their mean, rounded down).
    const durations = sql(file, 'SELECT dur FROM step ORDER BY dur').rows.map((r) => r[0]);
    if (durations.length > 0) {
        const n = durations.length;
        const medianNs = n % 2 ? durations[(n - 1) / 2] : Math.floor((durations[n / 2 - 1] + durations[n / 2]) / 2);
        expect(tool, 'step_median_us', a.step_median_us === medianNs / 1000, a.step_median_us, medianNs / 1000);
    }

    // One entry a GPU, as summary's gpu_utilization and run.devices name them.
    const utilization = report.gpu_utilization ?? {};
    expect(tool, 'devices.length', a.devices?.length === Object.keys(utilization).length, a.devices,
        utilization);
    for (const d of a.devices) {
        expect(tool, `devices[${d.device}].utilization`, d.utilization === utilization[String(d.device)],
            d.utilization, utilization[String(d.device)]);
        const named = (report.run?.devices ?? []).find((x) => x.id === d.device);
        if (named) expect(tool, `devices[${d.device}].name`, d.name === named.name, d.name, named.name);
    }
    expectEqual(tool, 'top_kernels', a.top_kernels, report.kernels.slice(0, a.top_kernels.length), true);
    expect(tool, 'top_kernels.length', a.top_kernels.length === Math.min(5, report.kernels.length),
        a.top_kernels.length, Math.min(5, report.kernels.length));
    expectEqual(tool, 'recommendations', a.recommendations,
        report.recommendations.slice(0, a.recommendations.length), true);
    expect(tool, 'recommendations.length', a.recommendations.length === Math.min(3, report.recommendations.length),
        a.recommendations.length, Math.min(3, report.recommendations.length));
    expectLink(tool, 'link', a.link);
    ok(ctx.where, `open_trace ${path.basename(file)} -> ${a.trace_id}: ${a.events} events, ${a.steps} steps, ` +
        `${a.devices.length} GPU(s), first kernels and advice equal summary --json`);
    return a.trace_id;
}

async function checkSummary(ctx, id, file) {
    const overview = await structured(ctx, 'summary', { trace: id, sections: ['overview'] });
    expect('summary', 'trace_id', overview.trace_id === id, overview.trace_id, id);
    expect('summary', 'path', overview.path === file, overview.path, file);
    expectEqual('summary sections=[overview]', 'report', overview.report,
        cliJson('summary', file, '--json', '--sections', 'overview'));
    // Without sections: the overview and the advice.
    const defaults = await structured(ctx, 'summary', { trace: id });
    expectEqual('summary (default sections)', 'report', defaults.report,
        cliJson('summary', file, '--json', '--sections', 'overview,recommendations'));
    ok(ctx.where, `summary ${id}: report equals summary --json --sections overview (and overview,recommendations)`);
}

// The report's tables: each tool's rows are the CLI's rows plus the event they stand for.
async function checkTables(ctx, id, file) {
    const report = cliJson('summary', file, '--json');
    const tables = [
        // tool, the key of the CLI's array, the default limit the contract names (null: not part of it)
        ['top_kernels', 'kernels', 20],
        ['top_operators', 'operators', 20],
        ['steps', 'steps', null],
        ['gpu_idle', 'gpu_idle', null],
        ['recommendations', 'recommendations', null],
    ];
    for (const [tool, key, defaultLimit] of tables) {
        const rows = report[key];
        const all = await structured(ctx, tool, { trace: id, limit: 100000 });
        expect(tool, 'trace_id', all.trace_id === id, all.trace_id, id);
        expectRows(`${tool} limit=100000`, all, rows, 100000);
        const one = await structured(ctx, tool, { trace: id, limit: 1 });
        expectRows(`${tool} limit=1`, one, rows, 1);
        if (defaultLimit) {
            const byDefault = await structured(ctx, tool, { trace: id });
            expectRows(`${tool} (default limit)`, byDefault, rows, defaultLimit);
        }
        // The rows that name an event carry its id and a link to it.
        for (const [i, row] of all.rows.entries()) {
            if ('link' in row) expectLink(tool, `rows[${i}].link`, row.link);
            if ('event_id' in row)
                expect(tool, `rows[${i}].event_id`, Number.isInteger(row.event_id), row.event_id, 'an integer');
        }
        const limits = defaultLimit ? `limit 1 and the default ${defaultLimit} too` : 'limit 1 too';
        ok(ctx.where, `${tool} ${id}: ${all.rows.length} rows equal summary --json's "${key}" (${limits})`);
    }
    // A kernel row's event is one launch of that kernel.
    const kernels = await structured(ctx, 'top_kernels', { trace: id, limit: 3 });
    for (const row of kernels.rows) {
        if (!('event_id' in row)) mismatch('top_kernels', 'rows[].event_id', row, 'an event id');
        const name = sqlValue(file, `SELECT name FROM kernel WHERE id = ${row.event_id}`);
        expect('top_kernels', `event ${row.event_id} name`, name === row.name, name, row.name);
    }

    // Grouped by name and input shapes: summary --json --by op+shape.
    const shapes = await structured(ctx, 'top_operators', { trace: id, by: 'op+shape', limit: 10 });
    expectRows('top_operators by=op+shape', shapes, cliJson('summary', file, '--json', '--by', 'op+shape').operators, 10);
    ok(ctx.where, `top_operators ${id} by=op+shape: 10 rows equal summary --json --by op+shape`);
}

// slices: a window, a name and a track, each counted and listed as SQL over the slice table does.
async function checkSlices(ctx, id, file) {
    // A window in whole µs (exact as doubles and as ns), a quarter of the trace wide.
    const [lo, hi] = sql(file, 'SELECT min(ts) / 1000, max(ts) / 1000 FROM slice').rows[0];
    const start = lo + Math.floor((hi - lo) / 4);
    const end = lo + Math.floor((hi - lo) / 2);
    const window = `s.ts >= ${start}000 AND s.ts <= ${end}000`;
    const kernelTrack = sqlValue(file, 'SELECT track_id FROM kernel GROUP BY track_id ORDER BY count(*) DESC, track_id LIMIT 1');
    const trackName = sqlValue(file, `SELECT name FROM track WHERE id = ${kernelTrack}`);
    const cases = [
        [{ start_us: start, end_us: end, limit: 25 }, `WHERE ${window}`, 25],
        [{ name: 'aten::', limit: 5 }, "WHERE instr(s.name, 'aten::') > 0", 5],
        [{ start_us: start, end_us: end, name: 'aten::', limit: 100000 },
            `WHERE ${window} AND instr(s.name, 'aten::') > 0`, 100000],
        [{ track: String(kernelTrack), limit: 10 }, `WHERE s.track_id = ${kernelTrack}`, 10],
        [{ track: trackName, limit: 10 }, `WHERE instr(t.name, '${trackName.replaceAll("'", "''")}') > 0`, 10],
    ];
    for (const [args, where, limit] of cases) {
        const tool = `slices ${show(args)}`;
        const a = await structured(ctx, 'slices', { trace: id, ...args });
        const count = sqlValue(file, `SELECT count(*) FROM slice s JOIN track t ON t.id = s.track_id ${where}`);
        expect(tool, 'total_rows', a.total_rows === count, a.total_rows, count);
        expect(tool, 'trace_id', a.trace_id === id, a.trace_id, id);
        const expected = sqlSlices(file, where, 'ORDER BY s.ts, s.id', `LIMIT ${limit}`);
        expectEqual(tool, 'rows', a.rows, expected, true);
        a.rows.forEach((r, i) => expectLink(tool, `rows[${i}].link`, r.link));
        ok(ctx.where, `slices ${show(args)}: ${a.rows.length} of ${count} slices equal SQL over slice`);
    }
}

// explain_event on a kernel (its launching call and operator), on that operator (its parents, children and the
// kernels it launched) and on the outermost slice enclosing it (more kernels than are listed), against SQL.
async function checkExplainEvent(ctx, id, file) {
    // The kernel whose operator launched the most kernels: its explanation has something to list.
    const kernelRows = sql(file, 'SELECT k.id, k.launch_id, k.operator_id FROM kernel k ' +
        'JOIN (SELECT operator_id AS op, count(*) AS n FROM kernel GROUP BY operator_id) c ON c.op = k.operator_id ' +
        'WHERE k.launch_id IS NOT NULL AND k.operator_id IS NOT NULL ORDER BY c.n DESC, k.dur DESC, k.id LIMIT 1').rows;
    if (kernelRows.length === 0) fatal(`explain_event: ${file} has no kernel with a launch and an operator`);
    const [kernelId, launchId, operatorId] = kernelRows[0];

    const k = await structured(ctx, 'explain_event', { trace: id, id: kernelId });
    const tool = `explain_event id=${kernelId}`;
    expect(tool, 'trace_id', k.trace_id === id, k.trace_id, id);
    expectEqual(tool, 'event', k.event, sqlSlices(file, `WHERE s.id = ${kernelId}`)[0], true);
    expectLink(tool, 'event.link', k.event.link);
    expectEqual(tool, 'event.args', k.event.args, sqlArgs(file, kernelId));
    expect(tool, 'launched_by.id', k.launched_by?.id === launchId, k.launched_by, launchId);
    expect(tool, 'operator.id', k.operator?.id === operatorId, k.operator, operatorId);
    expectEqual(tool, 'parents', k.parents.map((p) => p.id), parentChain(file, kernelId));
    const flowsIn = sql(file, `SELECT f.slice_out FROM flow f JOIN slice s ON s.id = f.slice_out ` +
        `WHERE f.slice_in = ${kernelId} ORDER BY s.ts, s.id`).rows.map((r) => r[0]);
    expectEqual(tool, 'flows_in[].id', k.flows_in.map((s) => s.id), flowsIn.slice(0, 20));
    for (const key of ['children', 'flows_out', 'kernels'])
        expect(tool, key, Array.isArray(k[key]), k[key], 'an array');
    ok(ctx.where, `explain_event kernel ${kernelId}: event, args, parents, flows_in, launched_by ${launchId}, ` +
        `operator ${operatorId} equal SQL's kernel table`);

    const op = await checkEnclosing(ctx, id, file, operatorId);
    if (op.kernels_total <= 20)
        expect(`explain_event id=${operatorId}`, 'kernels[].id', op.kernels.some((x) => x.id === kernelId),
            op.kernels.map((x) => x.id), `to include kernel ${kernelId}`);
    const chain = parentChain(file, operatorId);
    if (chain.length > 0) await checkEnclosing(ctx, id, file, chain[chain.length - 1]);

    const missing = await callFailing(ctx, 'explain_event', { trace: id, id: 999999999 });
    ok(ctx.where, `explain_event id=999999999: a tool error (${missing.split('\n')[0]})`);
}

// explain_event on a slice that encloses others (an operator, a step): the event, its parents, its children and
// the kernels launched from inside it (by it or by the calls it encloses on its thread; 20 listed).
async function checkEnclosing(ctx, id, file, sliceId) {
    const tool = `explain_event id=${sliceId}`;
    const a = await structured(ctx, 'explain_event', { trace: id, id: sliceId });
    expectEqual(tool, 'event', a.event, sqlSlices(file, `WHERE s.id = ${sliceId}`)[0], true);
    expectEqual(tool, 'event.args', a.event.args, sqlArgs(file, sliceId));
    expectEqual(tool, 'parents', a.parents.map((p) => p.id), parentChain(file, sliceId));
    const children = sqlSlices(file, `WHERE s.parent_id = ${sliceId}`);
    if (children.length <= 20) expectEqual(tool, 'children', a.children, children, true);
    else expect(tool, 'children.length', a.children.length === 20, a.children.length, 20);
    const [ts, end, track] = sql(file, `SELECT ts, ts + dur, track_id FROM slice WHERE id = ${sliceId}`).rows[0];
    const launched = sql(file, `SELECT k.id FROM kernel k JOIN slice s ON s.id = k.id WHERE k.launch_id IN ` +
        `(SELECT id FROM slice WHERE track_id = ${track} AND ts >= ${ts} AND ts <= ${end}) ORDER BY k.ts, k.id`)
        .rows.map((r) => r[0]);
    expect(tool, 'kernels_total', a.kernels_total === launched.length, a.kernels_total, launched.length);
    expect(tool, 'kernels.length', a.kernels.length === Math.min(20, launched.length), a.kernels.length,
        Math.min(20, launched.length));
    if (launched.length <= 20)
        expectEqual(tool, 'kernels[].id', a.kernels.map((x) => x.id).sort((x, y) => x - y),
            [...launched].sort((x, y) => x - y));
    ok(ctx.where, `explain_event ${a.event.name.slice(0, 40)} (${sliceId}): event, ${a.parents.length} parents, ` +
        `${children.length} children, ${launched.length} kernels launched from it equal SQL`);
    return a;
}

// An event's args as the server gives them: each key with its integer, real or text value.
function sqlArgs(file, sliceId) {
    const r = sql(file, `SELECT a.key, a.int_value, a.real_value, a.string_value FROM args a ` +
        `JOIN slice s ON s.arg_set_id = a.arg_set_id WHERE s.id = ${sliceId}`);
    return Object.fromEntries(r.rows.map(([key, i, real, text]) => [key, i ?? real ?? text]));
}

// The ids of the slices enclosing one, innermost first.
function parentChain(file, sliceId) {
    const chain = [];
    for (let p = sqlValue(file, `SELECT parent_id FROM slice WHERE id = ${sliceId}`); p !== null;
        p = sqlValue(file, `SELECT parent_id FROM slice WHERE id = ${p}`))
        chain.push(p);
    return chain;
}

async function checkQuery(ctx, id, file) {
    const queries = [
        // An aggregate (integers, text), every row.
        ['SELECT name, count(*) AS calls, sum(dur) AS total_ns FROM kernel GROUP BY name ORDER BY total_ns DESC, name LIMIT 15', 100],
        // Reals, nulls and text from args, every row.
        ['SELECT arg_set_id, key, int_value, string_value, real_value FROM args ORDER BY arg_set_id, key LIMIT 40', 1000],
        // More rows than the limit: the first ten, and the count of all.
        ['SELECT id, ts, dur, name FROM slice ORDER BY id LIMIT 40', 10],
    ];
    for (const [query, limit] of queries) {
        const tool = `query "${query.slice(0, 50)}..." limit=${limit}`;
        const a = await structured(ctx, 'query', { trace: id, sql: query, limit });
        const r = sql(file, query);
        expect(tool, 'trace_id', a.trace_id === id, a.trace_id, id);
        expectEqual(tool, 'columns', a.columns, r.columns);
        expect(tool, 'total_rows', a.total_rows === r.rows.length, a.total_rows, r.rows.length);
        expectEqual(tool, 'rows', a.rows, r.rows.slice(0, limit));
        ok(ctx.where, `query ${id}: ${a.rows.length} of ${a.total_rows} rows equal query --json (${query.slice(0, 40)}...)`);
    }
    const error = await callFailing(ctx, 'query', { trace: id, sql: 'SELECT no_such_column FROM slice' });
    ok(ctx.where, `query with a bad column: a tool error (${error.split('\n')[0]})`);
}

async function checkCompare(ctx, baseId, base, changed) {
    const a = await structured(ctx, 'compare', { base: baseId, new: changed });
    expect('compare', 'base', a.base === base, a.base, base);
    expect('compare', 'new', a.new === changed, a.new, changed);
    const text = cliText('diff', base, changed, '--json');
    if (text.length > MAX_STRUCTURED) {
        expect('compare', 'diff (over 256 KiB)', a.diff === undefined, '(present)', 'left out');
    } else {
        expectEqual('compare', 'diff', a.diff, JSON.parse(text));
    }
    ok(ctx.where, `compare ${baseId} (id) with ${path.basename(changed)} (path): diff equals diff --json`);
}

async function checkJob(ctx, ranks) {
    const a = await structured(ctx, 'job', { paths: ranks });
    expectEqual('job', 'report', a.report, cliJson('job', ...ranks, '--json'));
    ok(ctx.where, `job of ${ranks.length} ranks: report equals job --json`);
}

async function checkMemorySnapshot(ctx, file) {
    const a = await structured(ctx, 'memory_snapshot', { path: file, limit: 5 });
    const report = cliJson('memory', file, '--json', '--top', '5');
    expectEqual('memory_snapshot limit=5', 'report', a.report, report);
    // What is alive at the peak.
    const peak = report.devices?.[0]?.peak_time_us;
    if (!Number.isSafeInteger(peak)) fatal(`memory --json of ${file} has no peak_time_us to ask at_us with`);
    const at = await structured(ctx, 'memory_snapshot', { path: file, at_us: peak, limit: 3 });
    expectEqual(`memory_snapshot at_us=${peak}`, 'report', at.report,
        cliJson('memory', file, '--json', '--top', '3', '--at', String(peak)));
    ok(ctx.where, `memory_snapshot ${path.basename(file)}: report equals memory --json --top 5 (and --at ${peak} --top 3)`);
}

async function checkRender(ctx, id, file) {
    // A build without the viewer (the sanitizer build) has nothing to draw with: render says so, as a tool error.
    if (process.env.KINETOSCOPE_EXPECT_VIEWER === '0') {
        const text = await callFailing(ctx, 'render', { trace: id });
        ok(ctx.where, `render ${id}: no viewer in this build, a tool error (${text.slice(0, 60)})`);
        return;
    }
    const [lo, hi] = sql(file, 'SELECT min(ts) / 1000, max(ts + dur) / 1000 FROM slice').rows[0];
    const args = { trace: id, start_us: lo, end_us: lo + Math.floor((hi - lo) / 3), width: 640, height: 360 };
    const result = await call(ctx, 'render', args);
    const image = result.content.find((c) => c.type === 'image');
    expect('render', 'content[type=image]', !!image, result.content.map((c) => c.type), 'an image block');
    expect('render', 'mimeType', image.mimeType === 'image/png', image.mimeType, 'image/png');
    const png = Buffer.from(image.data, 'base64');
    const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect('render', 'data[0..8]', png.subarray(0, 8).equals(signature), png.subarray(0, 8).toString('hex'),
        signature.toString('hex'));
    // IHDR, the first chunk, holds the size asked for.
    const size = [png.readUInt32BE(16), png.readUInt32BE(20)];
    expectEqual('render', 'PNG IHDR width,height', size, [640, 360]);
    ok(ctx.where, `render ${id} ${args.start_us}..${args.end_us} us: a ${size.join('x')} PNG of ${png.length} bytes`);
}

// Errors: a tool error for what the tool cannot do, a JSON-RPC error for what the protocol cannot; the
// session goes on after both.
async function checkErrors(ctx, id) {
    const missing = path.join(TRACES, 'no-such-trace.json');
    const text = await callFailing(ctx, 'open_trace', { path: missing });
    expect('open_trace (missing file)', 'error text', text.includes('no-such-trace.json'), text, `to name ${missing}`);
    ok(ctx.where, `open_trace of a missing file: a tool error naming it (${text.split('\n')[0]})`);

    const misspelt = await callFailing(ctx, 'top_kernels', { trace: id, limt: 5 });
    ok(ctx.where, `top_kernels with an unknown argument: a tool error (${misspelt.split('\n')[0]})`);

    try {
        await request(ctx, 'no_such_tool', ctx.client.callTool({ name: 'no_such_tool', arguments: {} }));
        mismatch('no_such_tool', 'tools/call', 'a result', 'a JSON-RPC error (McpError)');
    } catch (e) {
        if (e instanceof Mismatch) throw e;
        expect('no_such_tool', 'error', e instanceof McpError, String(e), 'McpError');
        ok(ctx.where, `an unknown tool: JSON-RPC error ${e.code} (${e.message})`);
    }

    const after = await structured(ctx, 'query', { trace: id, sql: 'SELECT 1 AS one' });
    expectEqual('query after errors', 'rows', after.rows, [[1]]);
    ok(ctx.where, 'the session still answers after the errors');
}

// Every tool over one connection.
async function checkAllTools(ctx, corpus) {
    await checkHandshake(ctx);
    const ids = {};
    for (const key of ['a100', 'rank0', 'h100']) ids[key] = await checkOpenTrace(ctx, corpus[key]);
    for (const key of ['a100', 'rank0', 'h100']) {
        await checkSummary(ctx, ids[key], corpus[key]);
        await checkTables(ctx, ids[key], corpus[key]);
        await checkSlices(ctx, ids[key], corpus[key]);
        await checkExplainEvent(ctx, ids[key], corpus[key]);
        await checkQuery(ctx, ids[key], corpus[key]);
    }
    // A tool takes a path as well as an id.
    const byPath = await structured(ctx, 'steps', { trace: corpus.rank0, limit: 1000 });
    expect('steps (trace as a path)', 'trace_id', byPath.trace_id === ids.rank0, byPath.trace_id, ids.rank0);
    ok(ctx.where, `a trace named by its path is the one opened as ${ids.rank0}`);

    await checkCompare(ctx, ids.rank0, corpus.rank0, corpus.rank1);
    await checkJob(ctx, [corpus.rank0, corpus.rank1]);
    await checkMemorySnapshot(ctx, corpus.snapshot);
    await checkRender(ctx, ids.a100, corpus.a100);
    await checkErrors(ctx, ids.a100);
}

// ---------------------------------------------------------------------------------------------------------
// Transports
// ---------------------------------------------------------------------------------------------------------

const CLIENT_INFO = { name: 'kinetoscope-sdk-test', version: '1.0.0' };
const children = new Set();

async function overStdio(corpus) {
    const transport = new StdioClientTransport({ command: CLI, args: ['mcp'], env: { ...process.env }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client(CLIENT_INFO);
    try {
        await client.connect(transport);
        await checkAllTools(connection(client, 'stdio'), corpus);
    } catch (e) {
        if (stderr) console.error(`--- server stderr (stdio) ---\n${stderr.slice(-4000)}`);
        throw e;
    } finally {
        await client.close();
    }
}

// `kinetoscope-cli mcp --http 127.0.0.1:0 [--token T]`: the process and the URL it says on stderr.
function startHttpServer(extraArgs = []) {
    return new Promise((resolve, reject) => {
        const child = spawn(CLI, ['mcp', '--http', '127.0.0.1:0', ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
        children.add(child);
        let stderr = '';
        const timer = setTimeout(() => reject(new Mismatch(`mcp --http said no URL in 30 s; stderr: ${stderr}`)), 30_000);
        child.stderr.on('data', (d) => {
            stderr += d;
            const m = stderr.match(/http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
            if (m) {
                clearTimeout(timer);
                resolve({ child, url: new URL(m[0]), port: Number(m[1]), stderr: () => stderr });
            }
        });
        child.on('exit', (code) => {
            clearTimeout(timer);
            children.delete(child);
            reject(new Mismatch(`mcp --http exited (${code}) before saying its URL; stderr: ${stderr}`));
        });
    });
}

function stopServer(server) {
    server.child.kill('SIGTERM');
    children.delete(server.child);
}

// A raw initialize request (no SDK) with the headers given, through node:http so that Host can be set too.
function rawInitialize(server, headers, protocolVersion = '2025-11-25') {
    const body = JSON.stringify({
        jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO },
    });
    return new Promise((resolve, reject) => {
        const req = httpRequest({
            host: '127.0.0.1', port: server.port, path: '/mcp', method: 'POST',
            headers: {
                'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
                'Content-Length': Buffer.byteLength(body), ...headers,
            },
        }, (res) => {
            let text = '';
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
        });
        req.on('error', reject);
        req.end(body);
    });
}

// The same through fetch (what a browser page would send: fetch cannot set Host).
async function fetchInitialize(server, headers) {
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({
            jsonrpc: '2.0', id: 1, method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO },
        }),
    });
    return { status: response.status, text: await response.text() };
}

// DNS rebinding: a foreign Origin or Host is refused even with the right token.
async function checkRebinding(where, server, auth = {}) {
    const origin = await fetchInitialize(server, { ...auth, Origin: 'http://evil.example' });
    expect('http Origin: http://evil.example', 'status', origin.status === 403, origin.status, 403);
    ok(where, `Origin http://evil.example: ${origin.status}`);
    const host = await rawInitialize(server, { ...auth, Host: `evil.example:${server.port}` });
    expect(`http Host: evil.example:${server.port}`, 'status', host.status === 403 || host.status === 421,
        host.status, '403 or 421');
    ok(where, `Host evil.example:${server.port}: ${host.status}`);
    const local = await rawInitialize(server, { ...auth, Origin: `http://127.0.0.1:${server.port}` });
    expect('http Origin: http://127.0.0.1', 'status', local.status === 200, `${local.status} ${local.text}`, 200);
    ok(where, `Origin http://127.0.0.1:${server.port}: 200`);
}

// Both protocol revisions are negotiated as asked, each in a session of its own.
async function checkProtocolVersions(where, server, auth = {}) {
    for (const version of ['2025-06-18', '2025-11-25']) {
        const r = await rawInitialize(server, auth, version);
        expect(`http initialize ${version}`, 'status', r.status === 200, `${r.status} ${r.text}`, 200);
        const answer = JSON.parse(r.text);
        expect(`http initialize ${version}`, 'result.protocolVersion', answer.result?.protocolVersion === version,
            answer.result?.protocolVersion ?? answer, version);
        expect(`http initialize ${version}`, 'Mcp-Session-Id', !!r.headers['mcp-session-id'],
            r.headers['mcp-session-id'], 'a session id');
        ok(where, `raw initialize with protocolVersion ${version}: answered ${version}, session ${r.headers['mcp-session-id']}`);
    }
}

async function overHttp(corpus) {
    const server = await startHttpServer();
    const where = 'http';
    try {
        ok(where, `mcp --http 127.0.0.1:0 listens at ${server.url}`);
        const transport = new StreamableHTTPClientTransport(server.url);
        const client = new Client(CLIENT_INFO);
        await client.connect(transport);
        expect('http', 'Mcp-Session-Id', !!transport.sessionId, transport.sessionId, 'a session id');
        await checkAllTools(connection(client, where), corpus);
        // Ending the session (DELETE) ends it: the next request with its id is refused.
        const session = transport.sessionId;
        await transport.terminateSession();
        const stale = await fetch(server.url, {
            method: 'POST',
            headers: {
                'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
                'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
        });
        expect('http after DELETE', 'status', stale.status === 404, stale.status, 404);
        ok(where, `DELETE ended session ${session}: a later request with it gets 404`);
        await client.close();
        await checkRebinding(where, server);
        await checkProtocolVersions(where, server);
    } catch (e) {
        console.error(`--- server stderr (http) ---\n${server.stderr().slice(-4000)}`);
        throw e;
    } finally {
        stopServer(server);
    }
}

async function overHttpWithToken(corpus) {
    const token = randomBytes(16).toString('hex');
    const server = await startHttpServer(['--token', token]);
    const where = 'http+token';
    const auth = { Authorization: `Bearer ${token}` };
    try {
        ok(where, `mcp --http 127.0.0.1:0 --token ... listens at ${server.url}`);
        const none = await fetchInitialize(server, {});
        expect('http without a token', 'status', none.status === 401, none.status, 401);
        ok(where, `no Authorization: ${none.status}`);
        const wrong = await fetchInitialize(server, { Authorization: 'Bearer wrong' });
        expect('http with a wrong token', 'status', wrong.status === 401, wrong.status, 401);
        ok(where, `a wrong token: ${wrong.status}`);
        await checkRebinding(where, server, auth);
        await checkProtocolVersions(where, server, auth);

        // The SDK without the token cannot connect.
        try {
            await new Client(CLIENT_INFO).connect(new StreamableHTTPClientTransport(server.url));
            mismatch('http+token', 'connect without the token', 'connected', 'refused');
        } catch (e) {
            if (e instanceof Mismatch) throw e;
            ok(where, `the SDK without the token is refused (${String(e.message ?? e).split('\n')[0].slice(0, 80)})`);
        }

        // With it (requestInit's headers go with every request), the tools answer.
        const transport = new StreamableHTTPClientTransport(server.url, { requestInit: { headers: auth } });
        const client = new Client(CLIENT_INFO);
        await client.connect(transport);
        const ctx = connection(client, where);
        await checkHandshake(ctx);
        const id = await checkOpenTrace(ctx, corpus.a100);
        await checkQuery(ctx, id, corpus.a100);
        await client.close();
    } catch (e) {
        console.error(`--- server stderr (http+token) ---\n${server.stderr().slice(-4000)}`);
        throw e;
    } finally {
        stopServer(server);
    }
}

// ---------------------------------------------------------------------------------------------------------

async function main() {
    const corpus = Object.fromEntries(Object.keys(CORPUS).map((k) => [k, corpusFile(k)]));
    console.log(`kinetoscope-cli: ${CLI}\ntraces: ${TRACES}`);
    await overStdio(corpus);
    await overHttp(corpus);
    await overHttpWithToken(corpus);
    console.log('PASS: every check');
}

process.on('exit', () => {
    for (const child of children) child.kill('SIGTERM');
});

main().then(
    () => process.exit(0),
    (e) => {
        console.error(e instanceof Mismatch ? `FAIL: ${e.message}` : `FAIL: ${e?.stack ?? e}`);
        process.exit(1);
    },
);
