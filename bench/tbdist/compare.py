#!/usr/bin/python3
"""compare.py PLUGIN.json OURS_JOB.json OURS_SUMMARY.json... : plugin vs ours, per worker, per step and summed (us).
Worker <-> rank by file basename. Tolerance: 1 us or 0.1%."""
import json, os, sys
plug = json.load(open(sys.argv[1])); job = json.load(open(sys.argv[2]))
sums = {}
for f in sys.argv[3:]:
    d = json.load(open(f))['distributed']
    sums[os.path.basename(d['source'])] = d
ok = lambda a, b: a is not None and b is not None and abs(a - b) <= max(1.0, 0.001 * abs(b))
def cell(p, o):
    return '%s / %s%s' % (fmt(p), fmt(o), '' if ok(p, o) else ' **≠**')
fmt = lambda x: '-' if x is None else ('%.0f' % x)
g = plug['generator'][0] if plug['generator'] else None
per_rank = {os.path.basename(r['file']): r for r in job['per_rank']}
print('distributed view built by plugin:', plug['distributed_view'])
print('\nPer step (plugin / ours, us): Computation, Overlapping, Communication, Other')
print('| worker | step | computation | overlap | communication | other | plugin transfer | plugin sync |')
print('|---|---|---|---|---|---|---|---|')
tot = {}
for w, wd in sorted(plug['workers'].items()):
    ours = sums[wd['file']]
    osteps = {s['name'].split('#')[-1]: s for s in ours['steps']}
    t = tot.setdefault(w, [0] * 8)
    for raw in wd['comm_overlap_raw_us']:
        n = raw['name']
        p = [raw['computation'] - raw['overlap'], raw['overlap'], raw['communication'] - raw['overlap'], raw['other']]
        if g:  # what DistributedRunGenerator._generate_overlap_graph shows
            assert p == list(g['steps_to_overlap']['data'][n][w]), (p, g['steps_to_overlap']['data'][n][w])
        s = osteps.get(n)
        o = [s['computation_us'], s['overlap_us'], s['communication_us'], s['other_us']] if s else [None] * 4
        wait = (wd.get('step_comm_stats_raw_us') or {}).get(n)
        tr, sy = (wait[1], wait[0] - wait[1]) if wait else (None, None)
        for i in range(4):
            t[i] += p[i]; t[4 + i] += o[i] or 0
        print('| %s | %s | %s | %s | %s | %s | %s | %s |' % (w, n, *(cell(p[i], o[i]) for i in range(4)), fmt(tr), fmt(sy)))
print('\nSummed over steps (plugin / ours, us); plugin "all" row is int(sum/steps)')
print('| worker | rank | computation | overlap | communication | other | transfer | synchronizing | comm kernel total (ours collectives_us) |')
print('|---|---|---|---|---|---|---|---|---|')
for w, wd in sorted(plug['workers'].items()):
    r = per_rank[wd['file']]; t = tot[w]
    st = wd.get('step_comm_stats_raw_us') or {}
    tr = sum(v[1] for v in st.values()) if st else None
    sy = sum(v[0] - v[1] for v in st.values()) if st else None
    print('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
        w, r['rank'], cell(t[0], r['computation_us']), cell(t[1], r['overlap_us']), cell(t[2], r['communication_us']),
        cell(t[3], r['other_us']), cell(tr, r['transfer_us']), cell(sy, r['synchronization_us']),
        cell(sum(v[0] for v in st.values()) if st else None, r['collectives_us'])))
if g:
    print('\nPlugin comm_ops (Name, Calls, Total Size B, Avg Size B, Total Latency us, Avg, Data Transfer us, Avg):')
    for w, tbl in g['comm_ops']['data'].items():
        for row in tbl['rows']:
            print('  ', w, row)
print('\nOurs collectives:')
for c in job['collectives']:
    print('  ', {k: c[k] for k in ('name', 'message_bytes', 'ranks', 'calls_per_rank', 'total_us', 'synchronization_us')})
