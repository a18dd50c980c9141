"""Kinetoscope in Python: PyTorch profiler traces as pandas DataFrames, from the same C++ that the viewer and
`kinetoscope-cli` run (so a notebook and `kinetoscope-cli summary --json` never disagree).

    import kinetoscope
    t = kinetoscope.load("run.pt.trace.json.gz")   # the load runs without the GIL; Ctrl+C cancels it
    t.kernels().sort_values("total_us", ascending=False).head()
    t.operators(); t.annotations(); t.steps(); t.gpu_idle(); t.kernel_sequences(); t.recommendations()
    t.summary()                                     # the whole `summary --json` object as a dict

Each table's columns are the JSON keys of `kinetoscope-cli summary --json`. Errors are exceptions carrying the
CLI's one-line message (file, byte, reason).
"""
import json
import sys

import numpy as np
import pandas as pd

from . import _kinetoscope

__all__ = ["load", "Trace"]


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
        handle = _kinetoscope.load(str(path), gpu_only, report if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    return Trace(handle)


class Trace:
    """A loaded trace. Its tables are computed once, on first use, all from one report."""

    def __init__(self, handle):
        self._handle = handle
        self._summary = None

    @property
    def path(self):
        return self._handle.path

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
            return json.loads(_kinetoscope.summary_json(self._handle, names))
        if self._summary is None:
            self._summary = json.loads(_kinetoscope.summary_json(self._handle))
        return self._summary

    def _table(self, key):
        rows = self.summary().get(key) or []
        return pd.DataFrame(rows)

    def slices(self, name=None, category=None, track=None, start_us=None, end_us=None):
        """The slices as a DataFrame built from the store's columns: track (index into track_titles), track_title,
        name and category (categoricals), start_us (from the trace's first event, as the ruler reads) and dur_us.
        Filters: an exact name, an exact category as the trace writes it ("kernel", "cpu_op", ...; "Kernel" in older
        Kineto), a track index, a time range."""
        cols = _kinetoscope.slices(self._handle, name, category, track, start_us, end_us)

        def labels(codes, dictionary):
            # (take, not from_codes: two tracks may share a title)
            return pd.Categorical(np.asarray(dictionary, dtype=object)[codes]) if len(codes) else pd.Categorical([])

        return pd.DataFrame({
            "track": cols["track"],
            "track_title": labels(cols["track"], cols["track_titles"]),
            "name": labels(cols["name_code"], cols["names"]),
            "category": labels(cols["category_code"], cols["categories"]),
            "start_us": cols["start_us"],
            "dur_us": cols["dur_us"],
        })

    def kernels(self):
        """One row a kernel name: calls, total, min, max, mean (µs), category, tensor cores."""
        return self._table("kernels")

    def operators(self):
        """One row an operator, as torch's key_averages(): calls, host and device total and self time (µs)."""
        return self._table("operators")

    def annotations(self):
        """record_function ranges and ProfilerStep#N, as the operators."""
        return self._table("annotations")

    def steps(self):
        return self._table("steps")

    def gpu_idle(self):
        """HTA's idle time per stream: waiting for the host, for the previous kernel, other."""
        return self._table("gpu_idle")

    def kernel_sequences(self):
        return self._table("kernel_sequences")

    def recommendations(self):
        return self._table("recommendations")
