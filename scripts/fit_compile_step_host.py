#!/usr/bin/env python3
"""Fits torch-compile's graph replay lead (workloads/runtimes/torch-compile.json
/host/graph_replay_us) on the FIT split of the three H200 compile runs
(validate/data/h200-sxm-hf-compile-2026-12-01.json, -01b.json, -12-02.json): in mode
"reduce-overhead" each step first copies its new inputs into the CUDA-graph trees' static
buffers, then runs the trees' Python checks and launches the graph, the GPU idle between the two
(the fourth run's H100 profiles show one 415-490 us gap there and 0.4-0.6 us between the graph's
kernels). The value is the one that minimises the mean |log(predicted / measured)| over the fit
split's reduce-overhead records (decode and prefill), every other figure kept. The same search
over /host/op_us/per_forward on the fit split's mode-"default" decodes of the three runs moved it
only from 1504.8 to 1425.9 us (mean |log error| 0.0997 -> 0.0970; those hosts take 2.9-5.6 ms for
the same work), so per_forward stays scripts/fit_compile_host.py's. The held-out split and the
fourth run (h100-sxm-hf-compile-2026-12-06.json) are not read.
Usage: fit_compile_step_host.py [ridgeline]   (prints the figure before and after)"""
import json, math, os, subprocess, sys, tempfile

R = sys.argv[1] if len(sys.argv) > 1 else 'build/cli/ridgeline'
DATA = ['validate/data/h200-sxm-hf-compile-2026-12-01.json', 'validate/data/h200-sxm-hf-compile-2026-12-01b.json',
        'validate/data/h200-sxm-hf-compile-2026-12-02.json']
base = json.load(open('workloads/runtimes/torch-compile.json'))
tmp = tempfile.mkdtemp()
FIT = [r for f in DATA for r in json.load(open(f))['records'] if r.get('split') == 'fit' and 'device_median_ms' in r]
SETS = {'graph_replay_us': {r['id'] for r in FIT if r.get('compile_mode') == 'reduce-overhead'}}
# (to repeat the per_forward search: 'per_forward': the fit split's mode "default" decode ids)


def runtime_with(doc, key, value):
    doc = json.loads(json.dumps(doc))
    if key == 'graph_replay_us':
        doc['host']['graph_replay_us'] = value
    else:
        doc['host']['op_us'][key] = value
    return doc


def cases_for(doc, ids):
    path = os.path.join(tmp, 'torch-compile.json')
    json.dump(doc, open(path, 'w'))
    out = subprocess.run([R, 'validate', '--gpu', 'h200-sxm', '--data', *DATA, '--workloads', '--runtime', path,
                          '--split', 'fit', '--format', 'json'], capture_output=True, text=True, check=True).stdout
    cases = [c for c in json.loads(out)['cases'] if c['id'] in ids]
    assert all(c['split'] == 'fit' for c in cases) and len(cases) == len(ids), (len(cases), len(ids))
    return cases


def score(doc, ids):
    cases = cases_for(doc, ids)
    return sum(abs(math.log(c['predicted_us'] / c['measured_us'])) for c in cases) / len(cases), cases


def golden(f, lo, hi, tol):
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = f(a), f(b)
    while hi - lo > tol:
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = f(b)
    return (lo + hi) / 2


doc = base
for key, ids in SETS.items():
    now = doc['host'].get(key, 0) if key == 'graph_replay_us' else doc['host']['op_us'][key]
    best = round(golden(lambda v: score(runtime_with(doc, key, v), ids)[0], 0.0, 4000.0, 1.0), 1)
    before, _ = score(runtime_with(doc, key, now), ids)
    after, cases = score(runtime_with(doc, key, best), ids)
    for c in cases:
        print('  %-60s measured %9.1f us  predicted %9.1f us  %+.1f%%' % (
            c['id'], c['measured_us'], c['predicted_us'], 100 * (c['predicted_us'] / c['measured_us'] - 1)))
    print('%s: %d fit records; mean |log error| %.4f at %s, %.4f at %s' % (key, len(cases), before, now, after, best))
    doc = runtime_with(doc, key, best)
