#!/usr/bin/env python3
"""Hold `whyslow diff` to torch's numbers on the pairs tools/record_diff_pairs.py recorded: for each
pair in OUTDIR/pairs.json, torch's profiled step walls, unprofiled median, window and compiles beside
whyslow's verdict, window, one-off costs, steady step, break-even, per unit, mechanism and caveats;
then the serving pair's break-even by torch (serving_break_even.json).

Usage: python3 tools/compare_diff_pairs.py OUTDIR [WHYSLOW]   (WHYSLOW: build/release/whyslow)"""
import json
import os
import subprocess
import sys

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    sys.exit(__doc__)
d = sys.argv[1]
W = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "build", "release", "whyslow")
pairs = json.load(open(os.path.join(d, 'pairs.json')))
def meta(n):
    p = os.path.join(d, n + '.meta.json')
    return json.load(open(p)) if os.path.exists(p) else None
def tr(n):
    for ext in ('.json.gz', '.json'):
        p = os.path.join(d, n + ext)
        if os.path.exists(p): return p
for p in (pairs if isinstance(pairs, list) else pairs.get('pairs', [])):
    a, b = p['a'], p['b']
    ta, tb = tr(a), tr(b)
    if not ta or not tb:
        print('MISSING', a, b); continue
    r = subprocess.run([W, 'diff', '--json', ta, tb], capture_output=True, text=True)
    if r.returncode not in (0, 4):
        print('ERR', a, b, r.stderr[:300]); continue
    v = json.loads(r.stdout)['verdict']
    ma, mb = meta(a), meta(b)
    print(f"== {a} vs {b}  ({p.get('checks','')})")
    for n, m in ((a, ma), (b, mb)):
        if m: print(f"   torch {n}: profiled ms {[round(x,1) for x in m.get('profiled_step_wall_ms',[])]}, unprofiled median {(m.get('unprofiled') or {}).get('median')}, window {m.get('window_wall_ms_profiled_steps')}, compiles {(m.get('compiles') or {}).get('compiles')}/{(m.get('compiles') or {}).get('recompiles')}, graphs/step {m.get('cudaGraphLaunch_per_profiled_step')}, work {m.get('work_per_step')}")
    print(f"   whyslow: faster={v['faster']} basis={v['basis']} conf={v['confidence']} cause={(v.get('cause') or {}).get('kind')} comparable={v['comparable']}")
    print(f"   window a/b us {v['window']['a_us']}/{v['window']['b_us']} faster {v['window']['faster']}; one_off a/b {v['one_off']['a_us']}/{v['one_off']['b_us']}; steady {v['steady']['a_us']}/{v['steady']['b_us']} {v['steady']['faster']} {v['steady']['basis']}; break_even {v['break_even']}; per_unit {v['per_unit']}")
    for part in v['one_off']['parts'][:6]: print('     one-off', part)
    for m in v['mechanism']: print('     mech', m[:200])
    for c in v['caveats']: print('     caveat', c[:200])
    print('     summary', v['summary'][:500])
be = os.path.join(d, 'serving_break_even.json')
if os.path.exists(be): print('serving_break_even', open(be).read())
