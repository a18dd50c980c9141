"""Kinetoscope in Python: PyTorch profiler traces as pandas DataFrames, from the same C++ that the viewer and
`kinetoscope-cli` run (so a notebook and `kinetoscope-cli summary --json` never disagree).

    import kinetoscope
    t = kinetoscope.load("run.pt.trace.json.gz")   # the load runs without the GIL; Ctrl+C cancels it
    t.kernels().sort_values("total_us", ascending=False).head()
    t.operators(); t.annotations(); t.steps(); t.gpu_idle(); t.roofline(); t.compiled_graphs() ...
    t.slices(category="kernel")                     # the raw events, from the store's columns
    t.summary()                                     # the whole `summary --json` object as a dict
    t.render(0, 5000)                               # the timeline as a PNG (a notebook shows it)
    kinetoscope.job(["ranks/"]).stragglers()        # the job report of `kinetoscope-cli job`
    kinetoscope.memory_snapshot("snap.pickle").segments()

Each table's columns are the JSON keys of `kinetoscope-cli summary --json` (`job --json`, `memory --json`), with
every row (the CLI's JSON lists the 20 largest kernel sequences and unmodelled operators unless `--all-rows`).
Errors are exceptions carrying the CLI's one-line message (file, byte, reason). docs/PYTHON.md walks through it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

from . import _kinetoscope

__all__ = ["load", "job", "memory_snapshot", "Trace", "Job", "MemorySnapshot", "Png"]


def _progress_bar(total_hint):
    """A tqdm bar in a terminal or a notebook for a long load, or nothing when tqdm is missing."""
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total_hint or None, unit="B", unit_scale=True, desc="kinetoscope: loading", leave=False,
                delay=1.0, file=sys.stderr)


def load(path, *, gpu_only=False, progress=True):
    """Loads a trace (.json, .json.gz, a capture spool). `gpu_only` keeps the GPU's work alone, which is all the
    kernel table reads (faster, less memory; the CLI's `summary --by kernel` does the same)."""
    bar = _progress_bar(0) if progress else None
    state = {"last": 0.0}

    def report(done, total):
        if bar is None:
            return
        if total and bar.total != total:
            bar.total = total
        bar.update(done - state["last"])
        state["last"] = done

    try:
        # (the file system's bytes: a path need not be UTF-8)
        handle = _kinetoscope.load(os.fsencode(path), gpu_only, report if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    if handle.warnings:  # what the CLI prints as warnings: a truncated file, malformed events skipped
        import warnings
        for line in handle.warnings:
            warnings.warn(line, stacklevel=2)
    return Trace(handle)


def _json(data):
    """The C++ side's JSON (bytes): names in a trace may hold bytes that are not UTF-8, read as U+FFFD."""
    return json.loads(data.decode("utf-8", "replace"))


_COLUMNS = None


def _frame(rows, key):
    """A table as a DataFrame; an empty one still has its columns (the report's description of the table)."""
    global _COLUMNS
    if rows:
        return pd.DataFrame(rows)
    if _COLUMNS is None:
        _COLUMNS = _kinetoscope.table_columns()
    return pd.DataFrame(columns=_COLUMNS.get(key, []))


class Trace:
    """A loaded trace. Each table is computed on first use, with only the analyses its report section needs (as
    `summary --json --sections NAME`), and kept."""

    def __init__(self, handle):
        self._handle = handle
        self._summary = None
        self._sections = {}  # section name -> the report of that section alone

    @property
    def path(self):
        return os.fsdecode(self._handle.path)

    @property
    def load_seconds(self):
        return self._handle.seconds

    def __repr__(self):
        return f"<kinetoscope.Trace {self.path!r}: {self._handle.slices:,} slices>"

    def summary(self, sections=None):
        """The `kinetoscope-cli summary --json` object as a dict (every section, or those named:
        "kernels,operators")."""
        if sections:
            names = sections if isinstance(sections, str) else ",".join(sections)
            return _json(_kinetoscope.summary_json(self._handle, names))
        if self._summary is None:
            self._summary = _json(_kinetoscope.summary_json(self._handle))
        return self._summary

    def _table(self, key, section, within=None):
        if self._summary is not None:
            found = self._summary
        else:
            if section not in self._sections:
                self._sections[section] = _json(_kinetoscope.summary_json(self._handle, section))
            found = self._sections[section]
        if within is not None:
            found = found.get(within) or {}
        return _frame(found.get(key), key)

    @property
    def origin_us(self):
        """The trace's first event on the trace's own clock (µs, as its "ts" and the tables' start_us): slices' and
        render()'s times count from it."""
        return self._handle.origin_us

    @property
    def span_us(self):
        """From the trace's first event to its last, µs."""
        return self._handle.span_us

    def slices(self, name=None, category=None, track=None, start_us=None, end_us=None, args=False):
        """The slices as a DataFrame built from the store's columns: track (index into track_titles), track_title,
        name and category (categoricals), start_us (from the trace's first event, as the ruler reads), ts_us (the
        trace's own clock, as steps()' ts_us and critical_path() give times: start_us + origin_us) and dur_us.
        Filters: an exact name, an exact category as the trace writes it ("kernel", "cpu_op", ...; "Kernel" in older
        Kineto), a track index, a time range. `args=True` adds an "args" column: each slice's args as a dict, decoded
        only then (a second or so per million slices)."""
        cols = _kinetoscope.slices(self._handle, name, category, track, start_us, end_us, bool(args))

        def labels(codes, dictionary):
            # (take, not from_codes: two tracks may share a title)
            return pd.Categorical(np.asarray(dictionary, dtype=object)[codes]) if len(codes) else pd.Categorical([])

        return pd.DataFrame({
            "track": cols["track"],
            "track_title": labels(cols["track"], cols["track_titles"]),
            "name": labels(cols["name_code"], cols["names"]),
            "category": labels(cols["category_code"], cols["categories"]),
            "start_us": cols["start_us"],
            "ts_us": cols["start_us"] + self.origin_us,
            "dur_us": cols["dur_us"],
            **({"args": [json.loads(text) if text else {} for text in cols["args"]]} if args else {}),
        })

    def query(self, sql):
        """SQL over the trace, as a DataFrame built from column arrays: Perfetto's tables (slice, args, thread,
        process, track, thread_track, counter, flow; docs/SQL.md), read-only; times in integer ns on the trace's own
        clock. A bad query raises ValueError saying where ("line 2, column 8: no such column: nosuch"); Ctrl+C
        interrupts a long one."""
        result = _kinetoscope.query(self._handle, sql)
        frame = pd.DataFrame({i: values for i, values in enumerate(result["values"])})
        frame.columns = list(result["columns"])  # names may repeat (two tables' "name")
        return frame

    def kernels(self):
        """One row a kernel name: calls, total, min, max, mean (µs), category, tensor cores."""
        return self._table("kernels", "kernels")

    def operators(self):
        """One row an operator, as torch's key_averages(): calls, host and device total and self time (µs)."""
        return self._table("operators", "ops")

    def annotations(self):
        """record_function ranges and ProfilerStep#N, as the operators."""
        return self._table("annotations", "ops")

    def steps(self):
        """ProfilerStep#N: name, start_us and end_us (from the trace's first event, as slices() counts), dur_us,
        and ts_us (the step's start on the trace's own clock: start_us + origin_us)."""
        steps = self._table("steps", "overview")
        absolute = steps["start_us"].astype("float64")
        end = steps["end_us"].astype("float64")
        return pd.DataFrame({"name": steps["name"], "start_us": absolute - self.origin_us,
                             "end_us": end - self.origin_us, "dur_us": end - absolute, "ts_us": absolute})

    def gpu_idle(self):
        """HTA's idle time per stream: waiting for the host, for the previous kernel, other."""
        return self._table("gpu_idle", "gpu_waits")

    def kernel_sequences(self):
        return self._table("kernel_sequences", "sequences")

    def recommendations(self):
        return self._table("recommendations", "recommendations")

    def roofline(self):
        """TraceLens' perf model: one row an operator + input shapes + dtypes, with its FLOPs, bytes, achieved
        TFLOP/s and GB/s and the share of the peak (`perf_model` of the JSON)."""
        return self._table("perf_model", "roofline")

    def roofline_not_modelled(self):
        """The GPU time no perf model covers, by operator, every one (`perf_model_not_modelled`)."""
        return self._table("perf_model_not_modelled", "roofline")

    def temporal_breakdown(self):
        """HTA's temporal breakdown per device: idle, compute, communication and memory time."""
        return self._table("temporal_breakdown", "gpu_waits")

    def gpu_queue(self):
        """HTA's queue length per stream: launches waiting, how long the queue was full or empty."""
        return self._table("gpu_queue", "gpu_waits")

    def compiled_graphs(self):
        """TorchInductor's compiled graphs (CompiledFxGraph): calls, wall time, device busy, and their kernel
        categories (a list of dicts per graph). Empty for an eager run."""
        return self._table("graphs", "inductor", within="inductor")

    def critical_path(self):
        """The events on the median step's critical path (HTA's), each with its thread or stream; the edges are in
        `summary()["critical_path"]["edges"]`."""
        return self._table("events", "critical_path", within="critical_path")

    def devices(self):
        """The GPUs the trace names: id, name, memory, SMs, compute capability."""
        return self._table("devices", "kernels", within="run")

    def render(self, start_us=None, end_us=None, size=(1400, 600), flows=False, critical_path=False):
        """The timeline from `start_us` to `end_us` (µs from the trace's first event; the whole trace by default)
        as the viewer draws it, in a PNG of `size` pixels (a notebook displays it; `.save(path)` writes it).
        The viewer (`kinetoscope`) renders it without a display."""
        if self._handle.gpu_only and (start_us is not None or end_us is not None):
            # The viewer loads the whole file, whose first event may be a CPU one this trace did not keep: the
            # same numbers would be another window.
            raise ValueError("render: a range needs the whole trace; load(path) without gpu_only=True")
        return _render(self.path, start_us, end_us, size, flows, critical_path, self.span_us)


class Png:
    """A PNG image: a notebook displays it, `data` holds its bytes, `save(path)` writes them."""

    def __init__(self, data):
        self.data = data

    @property
    def size(self):
        """(width, height) from the PNG's header."""
        return int.from_bytes(self.data[16:20], "big"), int.from_bytes(self.data[20:24], "big")

    def _repr_png_(self):
        return self.data

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.data)

    def __repr__(self):
        return "<kinetoscope.Png %dx%d, %d bytes>" % (*self.size, len(self.data))


def _viewer():
    """The viewer that renders: $KINETOSCOPE_VIEWER, the one this package was built or installed with, or the
    first `kinetoscope` on PATH."""
    from . import _paths
    for candidate in (os.environ.get("KINETOSCOPE_VIEWER"), _paths.VIEWER, shutil.which("kinetoscope")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError("render needs the viewer (kinetoscope), which is not installed beside this module")


def _render(path, start_us, end_us, size, flows, critical_path, span_us):
    width, height = (int(v) for v in size)
    command = [_viewer(), "--size", "%dx%d" % (width, height), "--flows", "all" if flows else "none"]
    if start_us is not None or end_us is not None:
        start = float(start_us) if start_us is not None else 0.0
        end = float(end_us) if end_us is not None else span_us
        if not end > start:
            raise ValueError("render: end_us (%g) must be after start_us (%g)" % (end, start))
        command += ["--range", "%.3f:%.3f" % (start, end)]
    if critical_path:
        command.append("--critical-path")
    with tempfile.TemporaryDirectory(prefix="kinetoscope-render-") as folder:
        out = os.path.join(folder, "timeline.png")
        done = subprocess.run(command + ["--render", out, os.fsencode(path)], capture_output=True, text=True,
                              errors="replace")
        if done.returncode != 0 or not os.path.exists(out):
            raise RuntimeError((done.stderr.strip() or "the viewer failed (exit %d)" % done.returncode))
        with open(out, "rb") as f:
            return Png(f.read())


def job(paths, *, threads=0):
    """The job report of a distributed run (`kinetoscope-cli job --json`) from its ranks: rank files, traces,
    summaries or folders of them. `threads`: readers (0: one per core)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return Job(_json(_kinetoscope.job_json([os.fsencode(p) for p in paths], int(threads))))


class Job:
    """A distributed job's report. Its spreads over the ranks (step_us, total_us, ...) are dicts of min, median,
    p90 and max: `job.steps()["step_us"].str["median"]` takes one."""

    def __init__(self, report):
        self._report = report

    def report(self):
        """The `kinetoscope-cli job --json` object as a dict."""
        return self._report

    def _table(self, key):
        return pd.DataFrame(self._report.get(key) or [])

    @property
    def ranks(self):
        return self._report["ranks"]

    @property
    def world_size(self):
        return self._report["world_size"]

    @property
    def problems(self):
        """Ranks claimed twice, world sizes that disagree, ranks missing: one sentence each."""
        return list(self._report["problems"])

    def steps(self):
        """Each step across the ranks: its time, computation and communication spreads, the slowest rank."""
        return self._table("steps")

    def stragglers(self):
        """The ranks that made the others wait, worst first, with why and who waited."""
        return self._table("stragglers")

    def collectives(self):
        """Each collective across the ranks, by median time: message size, total and synchronising spreads, the
        ranks most often last to arrive."""
        return self._table("collectives")

    def per_rank(self):
        """One row a rank: mean step, computation, communication, overlap, collective time split."""
        return self._table("per_rank")

    def hosts(self):
        return self._table("hosts")

    def unreadable(self):
        """The files that could not be read, with the CLI's one-line error."""
        return self._table("unreadable")

    def __repr__(self):
        return "<kinetoscope.Job %d ranks of a world of %s, %d steps>" % (
            self.ranks, self.world_size, len(self._report["steps"]))


def memory_snapshot(path):
    """A CUDA memory snapshot (torch.cuda.memory._dump_snapshot: .pickle, .pickle.gz), read by Kinetoscope's own
    pickle reader, which refuses anything that would run code."""
    handle = _kinetoscope.memory_snapshot(os.fsencode(path))
    if handle.warning:
        import warnings
        warnings.warn(handle.warning.decode("utf-8", "replace") + "; read what came before it", stacklevel=2)
    return MemorySnapshot(handle)


class MemorySnapshot:
    """A memory snapshot's tables: per device figures, the allocations alive at the peak, the allocator's events
    and segments."""

    def __init__(self, handle):
        self._handle = handle
        self._report = None

    @property
    def path(self):
        return os.fsdecode(self._handle.path)

    def report(self, top=0, at_us=None):
        """The `kinetoscope-cli memory --json` object as a dict: `top` allocations at the peak (0: all of them),
        and with `at_us` (epoch µs, as the file's time_us) also those alive then."""
        if top == 0 and at_us is None:
            if self._report is None:
                self._report = _json(_kinetoscope.snapshot_json(self._handle, 0, None))
            return self._report
        # (events() gives times as floats, NaN where the file has none)
        return _json(_kinetoscope.snapshot_json(self._handle, int(top), None if at_us is None else int(at_us)))

    def devices(self):
        """One row a device: events by action, segments, reserved, allocated and peak active bytes."""
        rows = [{k: v for k, v in d.items() if k not in ("largest_at_peak", "live_at")}
                for d in self.report()["devices"]]
        return pd.DataFrame(rows)

    def largest_at_peak(self):
        """Every allocation alive at each device's peak, largest first: size, address, its stack's frames. A device
        without allocation history (history_recorded False in devices()) gives what was allocated at snapshot
        time, the only moment known."""
        rows = [dict(device=d["device"], **a) for d in self.report()["devices"]
                for a in (d.get("largest_at_peak") or [])]
        return pd.DataFrame(rows)

    def events(self):
        """The allocator's events (alloc, free_requested, free_completed, segment_alloc, ...) in file order, every
        device's, from the snapshot's columns: device, action (categorical), addr, size, stream, time_us (epoch µs;
        NaN where the file has none)."""
        cols = _kinetoscope.snapshot_events(self._handle)
        times = cols["time_us"].astype("float64")
        times[cols["time_us"] == np.iinfo(np.int64).min] = np.nan
        actions = np.asarray(cols["actions"], dtype=object)
        return pd.DataFrame({
            "device": cols["device"],
            "action": pd.Categorical(actions[cols["action_code"]]) if len(cols["action_code"]) else pd.Categorical([]),
            "addr": cols["addr"],
            "size": cols["size"],
            "stream": cols["stream"],
            "time_us": times,
        })

    def segments(self):
        """The segments the allocator held when the snapshot was taken: device, address, total, allocated, active
        and requested bytes, stream, blocks, type, memory pool (`pool_id`, the file's segment_pool_id pair: (0, 0)
        the default pool, a CUDA graph's or MemPool's otherwise; `private_pool`), and where it was allocated."""
        cols = _kinetoscope.snapshot_segments(self._handle)
        first, second = cols.pop("pool_id_0"), cols.pop("pool_id_1")
        df = pd.DataFrame(cols)
        df["pool_id"] = list(zip(first.tolist(), second.tolist()))
        df["private_pool"] = (first != 0) | (second != 0)
        return df

    def __repr__(self):
        return "<kinetoscope.MemorySnapshot %r>" % self.path
