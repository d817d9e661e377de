#!/usr/bin/env python3
"""Fits how ATen's generic (strided) elementwise path slows with the dims its TensorIterator
keeps after coalescing, and with 4-byte elements (elementwise_kernel<128, 2> instead of
<128, 4>), on the FIT split of validate/data/h200-sxm-view-dims-2026-12-03.json: ops of 2^22
elements or more (past the latency knee) but the expanded copy (a broadcast source, faster), time = k(kind, numel) x (1 + per_dim x (max(dims, 2)
- 3)) / (four_byte if 4-byte), k profiled out per group (least squares in log time), per_dim and
four_byte by a grid search. The model's constants (model/memory_bound_cost.cpp
kStridedCostPerDim, kStridedFourByteRate) are these values. The held-out split is not read.
Usage: fit_view_dims.py"""
import collections, json, math

DATA = 'validate/data/h200-sxm-view-dims-2026-12-03.json'
recs = [r for r in json.load(open(DATA))['records']
        if r.get('split') == 'fit' and 'measured_us' in r and r.get('view') not in (None, 'expand')
        and r['numel'] >= 1 << 22]


def loss(per_dim, four):
    groups = collections.defaultdict(list)
    for r in recs:
        f = 1 + per_dim * (max(r['view_dims'], 2) - 3)
        if r['dtype'] == 'fp32':
            f /= four
        groups[(r['kind'], r['numel'])].append(math.log(r['measured_us'] / f))
    res = [x - sum(g) / len(g) for g in groups.values() if len(g) > 1 for x in g]
    return sum(x * x for x in res) / len(res), len(res)


best = min(((loss(s / 1000, f / 1000)[0], s / 1000, f / 1000)
            for s in range(0, 301, 2) for f in range(600, 1001, 5)))
err, n = loss(best[1], best[2])
print(f'{len(recs)} fit records ({n} in groups of two or more): per_dim {best[1]:.3f}, '
      f'four_byte {best[2]:.3f}, rms log residual {math.sqrt(err):.4f}')
