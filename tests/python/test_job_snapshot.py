"""`kinetoscope.job` and `kinetoscope.memory_snapshot` (issue 55): their tables equal the CLI's JSON (`job --json`,
`memory --json`) on generated ranks and real snapshots, and bad input raises with the CLI's message."""
import glob
import json
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import kinetoscope

CLI = os.environ["KINETOSCOPE_CLI"]
TRACES = os.environ["KINETOSCOPE_TRACES_DIR"]
SOURCE = os.path.join(os.path.dirname(__file__), "..", "..")
SNAPSHOTS = sorted(glob.glob(os.path.join(TRACES, "snapshots", "*.pickle*")))


def run_cli(*args):
    return json.loads(subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout)


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    """20 generated rank traces, two stragglers planted, one trace truncated and one not a trace."""
    folder = tmp_path_factory.mktemp("ranks")
    subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "bench", "make_ranks.py"), "traces", str(folder),
                    "--ranks", "20", "--straggler", "7:1:25", "--straggler", "16:2:10"], check=True,
                   capture_output=True)
    names = sorted(os.listdir(folder))
    (folder / names[3]).write_text("not a trace")
    truncated = folder / names[11]
    truncated.write_bytes(truncated.read_bytes()[:1500])
    return folder, names[3]


def test_job_tables_equal_the_cli(ranks):
    folder, broken = ranks
    job = kinetoscope.job(folder, threads=2)
    cli = run_cli("job", str(folder), "--json")
    assert job.report() == cli
    for method in ["steps", "stragglers", "collectives", "per_rank", "hosts", "unreadable"]:
        pd.testing.assert_frame_equal(getattr(job, method)(), pd.DataFrame(cli[method]), check_exact=True,
                                      obj=method)
    # The planted stragglers first, the bad files named.
    stragglers = job.stragglers()
    assert list(zip(stragglers["rank"][:2], stragglers["step"][:2])) == [(7, "ProfilerStep#1"),
                                                                           (16, "ProfilerStep#2")]
    assert abs(stragglers["excess_us"].iloc[0] - 25000) < 100
    computation = job.steps()["computation_us"]  # a spread: min, median, p90, max
    assert computation.str["max"].iloc[1] - computation.str["median"].iloc[1] > 24000
    assert list(job.unreadable()["file"].map(os.path.basename)) == [broken]
    assert job.ranks == 19 and job.world_size == 20 and any("not here" in p for p in job.problems)
    truncated = [n for n in job.per_rank()["notes"] if any("truncated at byte" in x for x in n)]
    assert len(truncated) == 1


def test_job_bad_input(tmp_path):
    with pytest.raises(RuntimeError, match="no rank files"):
        kinetoscope.job(tmp_path)
    (tmp_path / "x.json").write_text("not JSON")
    with pytest.raises(RuntimeError, match="none of the 1 files could be read: .*x.json: byte 0"):
        kinetoscope.job([tmp_path / "x.json"])


@pytest.mark.parametrize("path", SNAPSHOTS, ids=os.path.basename)
def test_snapshot_tables_equal_the_cli(path):
    snapshot = kinetoscope.memory_snapshot(path)
    cli = run_cli("memory", path, "--json", "--top", "1000000000")
    assert snapshot.report() == cli
    assert snapshot.report(top=3) == run_cli("memory", path, "--json", "--top", "3")
    devices = snapshot.devices()
    assert list(devices["device"]) == [d["device"] for d in cli["devices"]]
    assert list(devices["reserved_bytes"]) == [d["reserved_bytes"] for d in cli["devices"]]
    largest = snapshot.largest_at_peak()
    assert len(largest) == sum(len(d["largest_at_peak"]) for d in cli["devices"])
    # The events, by action, are the counts the report gives; the segments' sizes its reserved bytes.
    events = snapshot.events()
    for d in cli["devices"]:
        counts = events[events["device"] == d["device"]]["action"].value_counts()
        assert {k: int(v) for k, v in counts.items() if v} == d["events"]
    segments = snapshot.segments()
    assert len(segments) == sum(d["segments"] for d in cli["devices"])
    for d in cli["devices"]:
        assert segments[segments["device"] == d["device"]]["total_size"].sum() == d["reserved_bytes"]
    assert events["time_us"].dtype == np.float64
    # A time read from events() (a float) asks what was alive then.
    timed = events["time_us"].dropna()
    if len(timed):
        at = timed.iloc[len(timed) // 2]
        assert snapshot.report(top=5, at_us=at) == run_cli("memory", path, "--json", "--top", "5", "--at", str(int(at)))


def test_snapshot_bad_input(tmp_path):
    bad = tmp_path / "bad.pickle"
    bad.write_bytes(b"\x80\x04\x95not a pickle at all")
    with pytest.raises(RuntimeError) as error:
        kinetoscope.memory_snapshot(bad)
    cli = subprocess.run([CLI, "memory", str(bad)], capture_output=True, text=True)
    assert cli.returncode == 1 and str(error.value) in cli.stderr


def test_the_snapshots_are_there():
    assert len(SNAPSHOTS) >= 5, SNAPSHOTS  # an empty glob would check nothing and pass


OLDER = os.path.join(SOURCE, "tests", "data", "snapshots")


def test_pytorch_2_0_snapshot_reads_like_its_source():
    # The same GPT-2 training snapshot in PyTorch 2.0's layout (blocks without addresses, stacks in `history`):
    # the same allocations at the peak, with their addresses and stacks.
    old = kinetoscope.memory_snapshot(os.path.join(OLDER, "pt20_training.pickle.gz"))
    new = kinetoscope.memory_snapshot(next(p for p in SNAPSHOTS if "medium_1024_training" in p))
    a, b = old.largest_at_peak(), new.largest_at_peak()
    assert len(a) == len(b) > 0
    assert (a["addr"] != 0).all()
    assert list(a["size"]) == list(b["size"]) and list(a["addr"]) == list(b["addr"])
    assert sum(len(f) for f in a["frames"]) == sum(len(f) for f in b["frames"]) > 0


def test_snapshot_without_history():
    # No allocation history (vLLM's workers): the snapshot's moment is the peak we know, not an error.
    s = kinetoscope.memory_snapshot(os.path.join(OLDER, "no_history_training.pickle.gz"))
    devices = s.devices()
    assert not devices["history_recorded"].any()
    assert (devices["peak_active_bytes"] == devices["allocated_bytes"]).all()
    largest = s.largest_at_peak()
    assert len(largest) > 0 and list(largest["size"]) == sorted(largest["size"], reverse=True)
    segments = s.segments()
    assert {"pool_id", "private_pool"} <= set(segments.columns)
    assert not segments["private_pool"].any() and segments["pool_id"].iloc[0] == (0, 0)
