"""`import kinetoscope` (issue 55): every table equals the CLI's JSON on every trace of the corpus, bad files raise
with the CLI's one-line message, and a GPU-only load gives the same kernel table."""
import glob
import json
import os
import subprocess

import pandas as pd
import pytest

import kinetoscope

CLI = os.environ["KINETOSCOPE_CLI"]
TRACES = os.environ["KINETOSCOPE_TRACES_DIR"]
CORPUS = [
    "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz",
    "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz",
]


# Every trace of the corpus (../shared/traces, the folders of real repositories' files), for the table check.
ALL_TRACES = sorted(os.path.relpath(p, TRACES) for pattern in ("*/*.json", "*/*.json.gz")
                    for p in glob.glob(os.path.join(TRACES, pattern)))


def test_the_corpus_is_there():
    # An empty glob (a moved corpus, a wrong path) would run none of the table checks and pass.
    assert len(ALL_TRACES) >= 40, ALL_TRACES


def cli_json(path):
    out = subprocess.run([CLI, "summary", path, "--json", "--all-rows"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


TABLES = [  # (method, the JSON table it equals: a key, or (block, key))
    ("kernels", "kernels"), ("operators", "operators"), ("annotations", "annotations"), ("steps", "steps"),
    ("gpu_idle", "gpu_idle"), ("kernel_sequences", "kernel_sequences"), ("recommendations", "recommendations"),
    ("roofline", "perf_model"), ("roofline_not_modelled", "perf_model_not_modelled"),
    ("temporal_breakdown", "temporal_breakdown"), ("gpu_queue", "gpu_queue"),
    ("compiled_graphs", ("inductor", "graphs")), ("critical_path", ("critical_path", "events")),
    ("devices", ("run", "devices")),
]


@pytest.mark.parametrize("relative", ALL_TRACES)
def test_tables_equal_the_cli(relative):
    path = os.path.join(TRACES, relative)
    run = subprocess.run([CLI, "summary", path, "--json", "--all-rows"], capture_output=True, text=True)
    if run.returncode != 0:  # a file the CLI refuses: the module refuses it with the same line
        with pytest.raises(RuntimeError) as error:
            kinetoscope.load(path, progress=False)
        assert str(error.value) in run.stderr
        return
    cli = json.loads(run.stdout)
    trace = kinetoscope.load(path, progress=False)
    for method, key in TABLES:
        frame = getattr(trace, method)()
        block, name = key if isinstance(key, tuple) else (None, key)
        rows = (cli.get(block) or {}).get(name) if block else cli.get(name)
        if not rows:  # an empty table keeps its columns
            assert len(frame) == 0 and len(frame.columns) > 0, method
            continue
        expected = pd.DataFrame(rows)
        if method == "steps":  # times from the trace's first event, as slices() counts; ts_us on its own clock
            assert list(frame["ts_us"]) == list(expected["start_us"])
            assert list(frame["dur_us"]) == list(expected["end_us"] - expected["start_us"])
            assert list(frame["start_us"]) == list(expected["start_us"] - trace.origin_us)
            continue
        assert list(frame.columns) == list(expected.columns), method
        pd.testing.assert_frame_equal(frame, expected, check_exact=True, obj=method)
    # The whole object, too (the run's facts included).
    assert trace.summary() == cli
    # And SQL on every trace we read: the slices, and the kernel table's calls by name.
    assert t_query_int(trace, "SELECT count(*) FROM slice") == trace._handle.slices
    calls = trace.query("SELECT name, count(*) AS n FROM kernel GROUP BY name")
    assert dict(zip(calls["name"], calls["n"])) == {k["name"]: k["count"] for k in cli.get("kernels", [])}


def test_every_row():
    # The CLI's JSON lists 20 kernel sequences and unmodelled operators; the module every one.
    path = os.path.join(TRACES, CORPUS[0])
    trace = kinetoscope.load(path, progress=False)
    capped = json.loads(subprocess.run([CLI, "summary", path, "--json"], check=True, capture_output=True,
                                       text=True).stdout)
    assert len(capped["kernel_sequences"]) == 20 and len(trace.kernel_sequences()) == 25
    assert len(capped["perf_model_not_modelled"]) == 20 and len(trace.roofline_not_modelled()) == 24
    assert trace.kernel_sequences().head(20).to_dict("records") == capped["kernel_sequences"]


def test_compiled_run_tables():
    trace = kinetoscope.load(os.path.join(TRACES, CORPUS[2]), progress=False)
    graphs = trace.compiled_graphs()
    assert len(graphs) == 1 and graphs.iloc[0]["name"].startswith("CompiledFxGraph")
    assert {c["category"] for c in graphs.iloc[0]["categories"]} >= {"triton_pointwise"}
    assert len(trace.roofline()) > 0 and trace.devices().iloc[0]["name"] == "AMD Instinct MI300X"


def test_gpu_only_kernels():
    path = os.path.join(TRACES, CORPUS[1])
    full = kinetoscope.load(path, progress=False).kernels()
    gpu = kinetoscope.load(path, gpu_only=True, progress=False).kernels()
    pd.testing.assert_frame_equal(gpu, full, check_exact=True)


def test_bad_files_raise_with_the_cli_message(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(RuntimeError, match="missing.json"):
        kinetoscope.load(missing, progress=False)
    broken = tmp_path / "broken.json"
    broken.write_text("not JSON at all")
    with pytest.raises(RuntimeError) as error:
        kinetoscope.load(broken, progress=False)
    cli = subprocess.run([CLI, "info", str(broken)], capture_output=True, text=True)
    assert cli.returncode == 1
    assert str(error.value) in cli.stderr


def test_ctrl_c_cancels_the_load(tmp_path):
    import signal
    big = tmp_path / "big.json"
    event = '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": %d, "dur": 5}'
    with open(big, "w") as f:
        f.write('{"traceEvents": [\n')
        f.write(",\n".join(event % (i * 10) for i in range(1_500_000)))
        f.write("\n]}\n")

    def interrupt(*_):
        raise KeyboardInterrupt

    threads_before = len(os.listdir("/proc/self/task"))
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.005)
        with pytest.raises(KeyboardInterrupt):
            kinetoscope.load(big, progress=False)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # A Ctrl+C that lands in the progress callback (tqdm's, by default) cancels the same way.
    calls = []

    def progress_interrupted(done, total):
        calls.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        kinetoscope._kinetoscope.load(str(big), False, progress_interrupted)
    assert calls
    # Nothing left running (the loader's threads joined) and nothing half-done: the same file loads whole.
    assert len(os.listdir("/proc/self/task")) == threads_before
    assert kinetoscope.load(big, progress=False)._handle.slices == 1_500_000


@pytest.mark.parametrize("relative", CORPUS[:2])
def test_slices_are_the_store(relative):
    path = os.path.join(TRACES, relative)
    trace = kinetoscope.load(path, progress=False)
    every = trace.slices()
    assert len(every) == trace._handle.slices
    # The category as the trace writes it ("kernel", or "Kernel" in older Kineto).
    (kernel_category,) = [c for c in every["category"].unique() if str(c).lower() == "kernel"]
    kernels = trace.slices(category=kernel_category)
    table = trace.kernels()
    assert len(kernels) == table["count"].sum()
    # Per name, the same calls and total time as the kernel table (µs, to the table's three decimals).
    by_name = kernels.groupby("name", observed=True)["dur_us"].agg(["count", "sum"])
    for row in table.itertuples():
        assert by_name.loc[row.name, "count"] == row.count
        assert abs(by_name.loc[row.name, "sum"] - row.total_us) < 0.002
    # Filters: one name, one track, a time range.
    first = table.iloc[0]["name"]
    assert (trace.slices(name=first)["name"] == first).all()
    one_track = every["track"].iloc[0]
    assert (trace.slices(track=int(one_track))["track"] == one_track).all()
    early = trace.slices(end_us=1000.0)
    assert (early["start_us"] <= 1000.0).all() and len(early) < len(every)
    # ts_us is the trace's clock, which the tables use: each event on the critical path is a slice there.
    path = trace.critical_path()
    assert len(path) > 0
    for event in path.head(20).itertuples():
        same = every[(every["name"] == event.name) & ((every["ts_us"] - event.ts_us).abs() < 0.5)]
        assert len(same) >= 1, event
    # Args only when asked, as the trace wrote them: a kernel's correlation id and launch shape.
    assert "args" not in kernels.columns
    with_args = trace.slices(category=kernel_category, args=True)
    assert len(with_args) == len(kernels)
    assert all("correlation" in a and "grid" in a for a in with_args["args"])
    # SQL over the same trace: its slices, and the kernel table's calls and time by name.
    assert t_query_int(trace, "SELECT count(*) FROM slice") == len(every)
    sql_kernels = trace.query("SELECT name, count(*) AS n, sum(dur) AS ns FROM kernel GROUP BY name")
    assert dict(zip(sql_kernels["name"], sql_kernels["n"])) == dict(zip(table["name"], table["count"]))


def t_query_int(trace, sql):
    return int(trace.query(sql).iloc[0, 0])


def test_render(tmp_path):
    trace = kinetoscope.load(os.path.join(TRACES, CORPUS[1]), progress=False)
    try:
        kinetoscope._viewer()
    except RuntimeError:
        # A build with the viewer that cannot find it is a failure; only a build without Qt skips.
        if os.environ.get("KINETOSCOPE_EXPECT_VIEWER") == "1":
            raise
        pytest.skip("no viewer in this build (Qt missing)")
    png = trace.render(0, 5000, size=(900, 320))
    assert png.data[:8] == b"\x89PNG\r\n\x1a\n" and png.size == (900, 320)
    assert png._repr_png_() is png.data
    png.save(tmp_path / "t.png")
    assert (tmp_path / "t.png").read_bytes() == png.data
    # Distinct ranges draw distinct pictures; a backwards range is refused before the viewer runs.
    assert trace.render(5000, 20000, size=(900, 320)).data != png.data
    with pytest.raises(ValueError):
        trace.render(10, 5)
    # A GPU-only load's times count from its first GPU event, the viewer's from the file's first event.
    with pytest.raises(ValueError, match="whole trace"):
        kinetoscope.load(os.path.join(TRACES, CORPUS[1]), gpu_only=True, progress=False).render(0, 100)


def test_sections_and_repr():
    path = os.path.join(TRACES, CORPUS[0])
    trace = kinetoscope.load(path, progress=False)
    only = trace.summary(sections="kernels")
    assert "kernels" in only and "operators" not in only
    assert "slices" in repr(trace) and trace.load_seconds >= 0


def test_a_path_that_is_not_utf8(tmp_path):
    # A folder named in Latin-1: the trace loads, and its path, tables and report read (the path exactly, as
    # os.fsdecode gives it; the report's copy with U+FFFD).
    folder = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    os.mkdir(folder)
    target = os.path.join(folder, b"t.json")
    with open(target, "wb") as f:
        f.write(open(os.path.join(TRACES, "debian-torch", "mlp.1795236617046.pt.trace.json"), "rb").read())
    trace = kinetoscope.load(os.fsdecode(target), progress=False)
    assert trace.path == os.fsdecode(target) and "caf" in repr(trace)
    assert len(trace.slices()) > 0 and len(trace.operators()) > 0
    assert trace.summary()["events"] > 0


def test_bytes_that_are_not_utf8(tmp_path):
    # One name with a byte that is not UTF-8: the event is skipped as malformed (warned, as the CLI does), and
    # the rest reads.
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::caf\xe9", "pid": 1, "tid": 1, '
                     b'"ts": 10, "dur": 5}, {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, '
                     b'"ts": 20, "dur": 5}]}')
    with pytest.warns(UserWarning, match="1 malformed events skipped"):
        trace = kinetoscope.load(path, progress=False)
    assert set(trace.slices()["name"]) == {"aten::mm"}
    assert trace.summary()["run"]["issues"][0]["byte"] == 17
    assert list(trace.operators()["name"]) == ["aten::mm"]


def test_truncated_file_warns(tmp_path):
    # As the CLI warns: the byte where the file stops, and what was loaded.
    whole = os.path.join(TRACES, "debian-torch", "mlp.1795236617046.pt.trace.json")
    cut = tmp_path / "cut.json"
    data = open(whole, "rb").read()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.warns(UserWarning, match=r"byte \d+: file is truncated; loaded the events before it"):
        trace = kinetoscope.load(cut, progress=False)
    assert len(trace.slices()) > 0
    cli = subprocess.run([CLI, "info", str(cut)], capture_output=True, text=True)
    assert "file is truncated" in cli.stderr


def test_empty_tables_keep_their_columns():
    # A CPU-only trace: no kernels, no GPU idle; the tables are empty with their columns.
    trace = kinetoscope.load(os.path.join(TRACES, "debian-torch", "mlp.1795236617046.pt.trace.json"), progress=False)
    for method in ("kernels", "gpu_idle", "gpu_queue", "kernel_sequences"):
        frame = getattr(trace, method)()
        assert len(frame) == 0 and len(frame.columns) > 0, method
    assert {"name", "count", "total_us"} <= set(trace.kernels().columns)


def test_a_failure_inside_the_load_raises(tmp_path):
    # Out of memory inside the loader's threads raises in Python (MemoryError; RuntimeError for a thread that
    # could not start), never ends the interpreter ("terminate called after throwing an instance of
    # 'std::bad_alloc'" before). With so little memory glibc
    # itself may abort a thread it cannot start ("cannot allocate memory for thread-local data"), which no code of
    # ours can catch: such a run is tried again, up to five times.
    script = tmp_path / "oom.py"
    script.write_text(
        "import resource, kinetoscope, sys\n"
        "vm = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmSize:')) * 1024\n"
        "resource.setrlimit(resource.RLIMIT_AS, (vm + (32 << 20), resource.RLIM_INFINITY))\n"
        "try:\n"
        "    kinetoscope.load(sys.argv[1], progress=False)\n"
        "    print('loaded')\n"
        "except (MemoryError, RuntimeError) as e:  # (32 MiB: room to start the load, none to finish it)\n"
        "    print('raised', type(e).__name__)\n")
    for _ in range(5):
        run = subprocess.run(["/usr/bin/python3", str(script), os.path.join(TRACES, CORPUS[1])],
                             capture_output=True, text=True, env=os.environ)
        assert "terminate called" not in run.stderr, run.stderr[-2000:]
        if "thread-local data" not in run.stderr:
            break
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("raised"), run.stdout + run.stderr[-2000:]  # MemoryError, or a thread not started


def test_query_equals_the_kernel_table():
    # SQL over the trace (issue 62): kernel calls by name equal kernels(), from column arrays with their types.
    t = kinetoscope.load(os.path.join(TRACES, CORPUS[1]), progress=False)
    q = t.query("SELECT slice.name AS name, count(*) AS calls, sum(dur) AS total_ns, NULL AS missing "
                "FROM slice JOIN track ON slice.track_id = track.id "
                "WHERE track.type = 'gpu_stream' AND category = 'kernel' GROUP BY slice.name")
    assert list(q.columns) == ["name", "calls", "total_ns", "missing"]
    assert str(q["calls"].dtype) == "int64" and str(q["total_ns"].dtype) == "int64"
    kernels = t.kernels()
    assert len(q) == len(kernels)
    assert dict(zip(q["name"], q["calls"])) == dict(zip(kernels["name"], kernels["count"]))
    assert q["missing"].isna().all()
    # Repeated column names stay, and an empty result keeps its columns.
    both = t.query("SELECT s.name, t.name FROM slice s JOIN track t ON s.track_id = t.id LIMIT 3")
    assert list(both.columns) == ["name", "name"] and len(both) == 3
    empty = t.query("SELECT id, ts FROM slice WHERE dur < 0")
    assert list(empty.columns) == ["id", "ts"] and len(empty) == 0


@pytest.mark.parametrize("sql", [
    "SELECT name, count(*) AS calls, sum(dur) AS ns, avg(dur) / 1e3 AS mean_us FROM kernel GROUP BY name",
    "SELECT key, value FROM summary",  # a column of mixed types
    "SELECT id, ts, dur, name, parent_id, arg_set_id FROM slice WHERE depth = 1 LIMIT 200",
    "SELECT * FROM operators",
])
def test_query_dataframes_equal_the_cli(sql):
    # Trace.query's DataFrame and `kinetoscope-cli query --json`: the same columns, rows and types.
    path = os.path.join(TRACES, CORPUS[1])
    cli = json.loads(subprocess.run([CLI, "query", path, sql, "--json"], check=True, capture_output=True,
                                    text=True).stdout)
    frame = kinetoscope.load(path, progress=False).query(sql)
    assert list(frame.columns) == cli["columns"]
    assert len(frame) == len(cli["rows"])
    for i, row in enumerate(cli["rows"]):
        for column, expected in zip(frame.columns, row):
            got = frame[column].iloc[i]
            if expected is None:
                assert got is None or pd.isna(got), (i, column)
            else:
                assert got == expected and type(got) is not str or isinstance(expected, str), (i, column, got)
                assert isinstance(got, str) == isinstance(expected, str), (i, column, got, expected)


def test_query_errors_say_where_and_nothing_is_written():
    t = kinetoscope.load(os.path.join(TRACES, CORPUS[1]), progress=False)
    with pytest.raises(ValueError, match=r"line 2, column 8: no such column: nosuch"):
        t.query("SELECT name,\n       nosuch FROM slice")
    for sql in ("DELETE FROM slice", "ATTACH DATABASE '/tmp/kinetoscope-py.db' AS x", "CREATE TABLE x(a)"):
        with pytest.raises(ValueError):
            t.query(sql)
    assert not os.path.exists("/tmp/kinetoscope-py.db")
    assert t.query("SELECT count(*) AS n FROM slice")["n"][0] == len(t.slices())


# Traces whose kernel args differ in layout: Kineto's pretty-printed args (B200, a grid split over lines), an
# H100 and a ROCm one.
PLAIN_READING_TRACES = [
    "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz",
    "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "AMD-AGI__TraceLens/tests__traces__mi300__gaunernst_bert-small-uncased__1016001.json.gz",
]


def plain_events(path):
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


@pytest.mark.parametrize("relative", PLAIN_READING_TRACES)
def test_kernel_table_equals_a_plain_reading(relative):
    # The `kernel` table's calls, times and launch shapes by name equal a plain Python reading of the JSON.
    path = os.path.join(TRACES, relative)
    expected = {}
    for e in plain_events(path):
        if e.get("ph") != "X" or str(e.get("cat", "")).lower() != "kernel":
            continue
        args = e.get("args", {})
        row = expected.setdefault(e["name"], {"calls": 0, "ns": 0, "shapes": set()})
        row["calls"] += 1
        row["ns"] += round(float(e["dur"]) * 1000)
        row["shapes"].add((tuple(args.get("grid", [])), tuple(args.get("block", [])),
                           args.get("registers per thread")))
    assert expected, relative
    t = kinetoscope.load(path, progress=False)
    q = t.query("SELECT name, count(*) AS calls, sum(dur) AS ns FROM kernel GROUP BY name")
    ours = {n: (c, ns) for n, c, ns in zip(q["name"], q["calls"], q["ns"])}
    assert set(ours) == set(expected)
    for name, row in expected.items():
        assert ours[name][0] == row["calls"], name
        assert abs(ours[name][1] - row["ns"]) <= row["calls"], name  # a ns of rounding a call at most
    shapes = t.query("SELECT DISTINCT name, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
                     "registers_per_thread FROM kernel")
    got = {}
    for r in shapes.itertuples(index=False):
        grid = () if pd.isna(r.grid_x) else (int(r.grid_x), int(r.grid_y), int(r.grid_z))
        block = () if pd.isna(r.block_x) else (int(r.block_x), int(r.block_y), int(r.block_z))
        regs = None if pd.isna(r.registers_per_thread) else int(r.registers_per_thread)
        got.setdefault(r.name, set()).add((grid, block, regs))
    assert got == {n: row["shapes"] for n, row in expected.items()}


# The report's tables in SQL (docs/SQL.md) and where the CLI's JSON has them.
SQL_REPORT_TABLES = [
    ("operators", ("operators",)), ("annotations", ("annotations",)), ("kernels", ("kernels",)),
    ("steps", ("steps",)), ("recommendations", ("recommendations",)), ("gpu_idle", ("gpu_idle",)),
    ("temporal_breakdown", ("temporal_breakdown",)), ("gpu_queue", ("gpu_queue",)),
    ("kernel_sequences", ("kernel_sequences",)), ("roofline", ("perf_model",)),
    ("roofline_not_modelled", ("perf_model_not_modelled",)), ("rank_steps", ("distributed", "steps")),
    ("collectives", ("distributed", "collectives")), ("inductor_categories", ("inductor", "trace", "categories")),
    ("inductor_graphs", ("inductor", "graphs")), ("critical_path_events", ("critical_path", "events")),
    ("critical_path_edges", ("critical_path", "edges")),
]


def same_cell(sql, js):
    if js is None or (isinstance(js, str) and js == "" and sql is None):
        return sql is None or (isinstance(sql, float) and pd.isna(sql)) or sql == js
    if isinstance(sql, float) and pd.isna(sql):
        return False
    if isinstance(js, bool):
        return int(sql) == int(js)
    if isinstance(js, (list, dict)):
        return json.loads(sql) == js
    return sql == js


@pytest.mark.parametrize("relative", CORPUS + [
    "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz",
    "facebookresearch__HolisticTraceAnalysis/"
    "tests__data__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
])
def test_report_tables_in_sql_equal_the_cli(relative):
    # Every table of `summary --json` read through SQL equals the CLI's JSON, row by row, and the one-figure
    # `summary` table holds its single numbers.
    path = os.path.join(TRACES, relative)
    doc = cli_json(path)
    t = kinetoscope.load(path, progress=False)
    nonempty = 0
    for table, where in SQL_REPORT_TABLES:
        rows = doc
        for key in where:
            rows = rows.get(key, {}) if isinstance(rows, dict) else {}
        rows = rows if isinstance(rows, list) else []
        q = t.query(f"SELECT * FROM {table}")
        assert len(q) == len(rows), table
        nonempty += bool(rows)
        for i, row in enumerate(rows):
            assert set(row) <= set(q.columns), (table, set(row) - set(q.columns))
            for column in q.columns:
                assert same_cell(q[column].iloc[i], row.get(column)), (table, i, column, q[column].iloc[i],
                                                                       row.get(column))
    assert nonempty >= 5, relative
    figures = dict(t.query("SELECT key, value FROM summary").itertuples(index=False))
    assert figures["events"] == doc["events"]
    for key, value in doc["breakdown_us"].items():
        assert figures[f"breakdown_us.{key}"] == pytest.approx(value, abs=0), key


def test_perfetto_trace_equals_a_plain_protobuf_decode():
    # A Perfetto trace (issue 63): its slices, instants and names by thread equal what protoc's own schema-less
    # decode finds (packet 1 { track_event 11 { type 9, name 23, track 11 } }), not our reader.
    path = os.path.join(TRACES, "formats", "vospascal__atrium__trace.pftrace")
    raw = subprocess.run(["protoc", "--decode_raw"], stdin=open(path, "rb"), capture_output=True, check=True,
                         text=True).stdout.splitlines()
    begins, instants, names = 0, 0, {}
    event = None
    for line in raw:
        if line == "  11 {":
            event = {}
        elif event is not None and line == "  }":
            if event.get("type") == "1":
                begins += 1
                names[event.get("name")] = names.get(event.get("name"), 0) + 1
            elif event.get("type") == "3":
                instants += 1
            event = None
        elif event is not None and line.startswith("    9: "):
            event["type"] = line[7:]
        elif event is not None and line.startswith("    23: "):
            event["name"] = json.loads(line[8:])
    assert begins == 20010
    t = kinetoscope.load(path, progress=False)
    slices = t.query("SELECT count(*) AS n FROM slice")["n"][0]
    assert slices == begins + instants
    q = t.query("SELECT name, count(*) AS n FROM slice WHERE dur > 0 GROUP BY name")
    assert dict(zip(q["name"], q["n"])) == names


@pytest.mark.parametrize("relative,fmt", [
    ("formats/MohanadOdema__DLProf__w_Relu__nsys_profile.sqlite", "nsys_sqlite"),
    ("formats/ROCm__rocmProfileData__examples__rocm-profile-data__results__matmul_result.rpd", "rocm_rpd"),
    ("formats/HGLiu1998__batched_gemm__bmm__37ca13315e70__21_results.db", "rocpd"),
    ("formats/vospascal__atrium__trace.pftrace", "perfetto"),
])
def test_other_formats_in_python_and_the_cli(relative, fmt):
    # Every format opens in Python as in the CLI: the same report, its format named.
    path = os.path.join(TRACES, relative)
    cli = cli_json(path)
    assert cli["run"]["format"] == fmt
    t = kinetoscope.load(path, progress=False)
    assert t.summary() == cli
    assert len(t.slices()) == t._handle.slices > 0
