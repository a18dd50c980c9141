#!/usr/bin/python3
"""Headless driver for the TensorBoard PyTorch profiler plugin's *distributed* view.

Plugin: torch_tb_profiler extracted unmodified from pytorch/kineto commit
4b3b2ed2a6a1cba126ba79d1aa5211e75740f35f (../shared/tools/tbref/setup.sh; bench/tbdist/run.sh does it) into $TBREF_SRC.

What RunLoader.load() does, done here in one process (its own load() spawns processes and imports absl,
which is not installed; nothing is stubbed, the steps are the same calls in the same order):
  1. list the run folder, keep names matching consts.WORKER_PATTERN, worker = group 1, span = group 2 turned
     into its 1-based index among that worker's spans (same code as RunLoader.load);
  2. per file, RunLoader._process_data's body: RunProfileData.parse -> RunGenerator(...).generate_run_profile()
     -> DistributedRunProfileData(data), added to a Run (distributed_run) as the queue consumer does;
  3. RunLoader._process_spans(distributed_run) itself (the unmodified method, called on a RunLoader made with
     object.__new__ so no mp.Queue is created): per span, _process_distributed_profiles matches the
     communication nodes across workers, computes real_time_ranges, calls communication_parse() and
     DistributedRunGenerator.generate_run_profile().

Only read-only wrapping at runtime: EventParser.parse is wrapped to keep a reference to each worker's parser
(for the step ranges), and the plugin's logger is captured to report its errors (e.g. mismatched
communication node counts, which make it drop the distributed view).

Usage: /usr/bin/python3 tb_dist.py RUN_DIR [OUT.json]
"""
import bisect
import json
import logging
import os
import sys
import tempfile
import warnings
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get('TBREF_SRC', os.path.join(HERE, 'src')))
os.environ.setdefault('TORCH_PROFILER_LOG_LEVEL', 'INFO')
warnings.filterwarnings('ignore', category=UserWarning)

from torch_tb_profiler import consts, io  # noqa: E402
from torch_tb_profiler.profiler import event_parser as _ep  # noqa: E402
from torch_tb_profiler.profiler.data import DistributedRunProfileData, RunProfileData  # noqa: E402
from torch_tb_profiler.profiler.loader import RunLoader  # noqa: E402
from torch_tb_profiler.profiler.run_generator import RunGenerator  # noqa: E402
from torch_tb_profiler.run import Run  # noqa: E402


class _Keep(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append('%s: %s' % (record.levelname, record.getMessage()))


_log = _Keep()
logging.getLogger(consts.PLUGIN_NAME).addHandler(_log)

_parsers = []
_orig_parse = _ep.EventParser.parse


def _parse_and_keep(self, *a, **kw):
    r = _orig_parse(self, *a, **kw)
    _parsers.append(self)
    return r


_ep.EventParser.parse = _parse_and_keep


def main():
    run_dir = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else None
    run_name = os.path.basename(run_dir)

    # 1. RunLoader.load: workers and spans.
    workers = []
    spans_by_workers = defaultdict(list)
    for path in io.listdir(run_dir):
        if io.isdir(io.join(run_dir, path)):
            continue
        match = consts.WORKER_PATTERN.match(path)
        if not match:
            continue
        worker = match.group(1)
        span = match.group(2)
        if span is not None:
            span = span[1:]
            bisect.insort(spans_by_workers[worker], span)
        workers.append((worker, span, path))
    span_index_map = {}
    for worker, span_array in spans_by_workers.items():
        for i, span in enumerate(span_array, 1):
            span_index_map[(worker, span)] = i

    # 2. RunLoader._process_data per worker, then the queue consumer.
    res = {'run_dir': run_dir, 'plugin_commit': '4b3b2ed2a6a1cba126ba79d1aa5211e75740f35f', 'workers': {}}
    distributed_run = Run(run_name, run_dir)
    run = Run(run_name, run_dir)
    with tempfile.TemporaryDirectory() as cache_dir:
        for worker, span, path in sorted(workers):
            span_index = None if span is None else span_index_map[(worker, span)]
            data = RunProfileData.parse(worker, span_index, io.join(run_dir, path), cache_dir)
            parser = _parsers[-1]
            profile = RunGenerator(worker, span_index, data).generate_run_profile()
            dist_data = DistributedRunProfileData(data)
            run.add_profile(profile)
            distributed_run.add_profile(dist_data)
            w = {'file': path, 'span': span_index,
                 'distributed_info': data.distributed_info,
                 'comm_lib': sorted(int(x) for x in data.comm_lib),
                 'has_communication': data.has_communication,
                 'steps': [{'name': n, 'start_us': s, 'end_us': e}
                           for n, (s, e) in zip(parser.steps_names, parser.steps)],
                 # OverallParser.communication_overlap, raw (before DistributedRunGenerator subtracts overlap)
                 'comm_overlap_raw_us': [{'name': n, 'computation': c.computation, 'communication': c.communication,
                                          'overlap': c.overlap, 'other': c.other}
                                         for n, c in zip(data.steps_names, data.comm_overlap_costs)],
                 'comm_nodes': len(data.comm_node_list or [])}
            res['workers'][worker] = w

        # 3. RunLoader._process_spans, unmodified.
        loader = object.__new__(RunLoader)
        loader.run_name, loader.run_dir, loader.caches = run_name, run_dir, None
        dprofiles = loader._process_spans(distributed_run)

    res['distributed_view'] = [d is not None for d in dprofiles]
    for dd in distributed_run.get_profiles():
        w = res['workers'][dd.worker]
        w['comm_nodes_detail'] = [
            {'name': c.name, 'step': c.step_name, 'start': c.start_time, 'end': c.end_time,
             'kernel_ranges': c.kernel_ranges, 'real_time_ranges': c.real_time_ranges}
            for c in (dd.comm_node_list or [])]
        # analyze_communication_nodes: per step [comm kernel time (merged), real (transfer) time (merged)]
        w['step_comm_stats_raw_us'] = dd.step_comm_stats
        w['total_comm_stats_raw'] = ({k: {'calls': v[0], 'bytes': v[1], 'total_us': v[2], 'transfer_us': v[3]}
                                      for k, v in dd.total_comm_stats.items()}
                                     if dd.total_comm_stats is not None else None)
    res['generator'] = [None if d is None else {'steps_to_overlap': d.steps_to_overlap,
                                                 'steps_to_wait': d.steps_to_wait,
                                                 'comm_ops': d.comm_ops} for d in dprofiles]
    res['plugin_log'] = _log.records
    s = json.dumps(res, indent=1, default=str)
    if out:
        with open(out, 'w') as f:
            f.write(s)
    else:
        print(s)


if __name__ == '__main__':
    main()
