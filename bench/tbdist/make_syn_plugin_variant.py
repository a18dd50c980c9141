#!/usr/bin/python3
"""Copy make_ranks.py's synthetic traces, adding only what the TensorBoard plugin needs to see a collective:
a CPU operator named `nccl:all_reduce` (cat cpu_op, 10 us, enclosing the all-reduce's cudaLaunchKernel) and an
`External id` on that operator, its launch and its kernel (plus an `aten::mm` op around the gemm launch).
GPU timings are untouched. Usage: make_syn_plugin_variant.py IN_DIR OUT_DIR"""
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
for name in sorted(os.listdir(src)):
    t = json.load(open(os.path.join(src, name)))
    ev = t['traceEvents']
    add = []
    for e in ev:
        if e['cat'] == 'cuda_runtime':
            corr = e['args']['correlation']
            ext = 1000 + corr
            e['args']['External id'] = ext
            if corr % 2 == 0:   # the all-reduce's launch (corr = 2*step + 2)
                add.append({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1, "tid": 1,
                            "ts": e['ts'] - 2, "dur": 10,
                            "args": {"External id": ext, "Input Dims": [[1048576]], "Input type": ["float"]}})
            else:
                add.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                            "ts": e['ts'] - 2, "dur": 9, "args": {"External id": ext}})
    for e in ev:
        if e['cat'] == 'kernel':
            e['args']['External id'] = 1000 + e['args']['correlation']
    t['traceEvents'] = ev + add
    json.dump(t, open(os.path.join(dst, name), 'w'))
