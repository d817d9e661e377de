#!/usr/bin/env python3
"""Fits torch-compile's host cost per op kind (workloads/runtimes/torch-compile.json /host/op_us) on
the FIT split of validate/data/h200-sxm-hf-compile-2026-12-01.json, mode "default" decode steps
only (the host-bound ones; a training step's or a prefill's host time hides under the GPU): the
per-call CPU time of each kind comes from the profiles' CPU op lists (cpu_total_us / count of
aten::mm, SDPA, Inductor's triton_poi_* and triton_red_*/triton_per_* launchers), the per-forward
time from dynamo's cache lookup, the compiled region, the pregraph bytecode, AOT's prologue and
the compiled graph's own Python (the wrapper's self time); one scale (the profiler's inflation)
is the median over the fit records of measured host time / profiled host time.
Usage: fit_compile_host.py   (prints the op_us object)"""
import json
import statistics

D = json.load(open('validate/data/h200-sxm-hf-compile-2026-12-01.json'))
fit = [r for r in D['records'] if r['split'] == 'fit' and r.get('launch') == 'compile'
       and r['phase'] == 'decode' and 'cpu_ops' in r]


def per_call(prefixes, exact=True):
    us = n = 0
    for r in fit:
        for o in r['cpu_ops']:
            name = o['name']
            hit = name in prefixes if exact else any(name.startswith(p) for p in prefixes)
            if hit:
                us += o['cpu_total_us']
                n += o['count']
    return us / n


FORWARD = ['TorchDynamo Cache Lookup', 'Torch-Compiled Region', 'Pregraph bytecode',
           'AOTDispatcher Runtime Wrapper Prologue', '## Call CompiledFxGraph']


def forward_us(r):
    return sum(o['self_cpu_us'] for o in r['cpu_ops']
               if any(o['name'].startswith(p) for p in FORWARD))


per = {'gemm': per_call(['aten::mm']),
       'attention': per_call(['aten::_scaled_dot_product_cudnn_attention']),
       'elementwise': per_call(['triton_poi_'], exact=False),
       'reduction': per_call(['triton_red_', 'triton_per_'], exact=False)}
per['cache_update'] = per['elementwise']  # V's index_copy is an Inductor pointwise kernel


def profiled_host_us(r):
    """The record's host time as profiled: per forward, then each launch by kind."""
    us = forward_us(r)
    for o in r['cpu_ops']:
        n = o['name']
        if n == 'aten::mm':
            us += o['count'] * per['gemm']
        elif n == 'aten::_scaled_dot_product_cudnn_attention':
            us += o['count'] * per['attention']
        elif n.startswith('triton_poi_'):
            us += o['count'] * per['elementwise']
        elif n.startswith(('triton_red_', 'triton_per_')):
            us += o['count'] * per['reduction']
    return us


scales = [r['host_median_ms'] * 1000 / profiled_host_us(r) for r in fit]
scale = statistics.median(scales)
forward = statistics.median(forward_us(r) for r in fit)
print('fit records', [r['id'] for r in fit])
print('scales', [round(s, 3) for s in scales], 'median', round(scale, 3))
out = {k: round(v * scale, 2) for k, v in per.items()}
print(json.dumps({'gemm': out['gemm'], 'attention': out['attention'],
                  'elementwise': out['elementwise'], 'reduction': out['reduction'],
                  'cache_update': out['cache_update'], 'per_block': 0,
                  'per_forward': round(forward * scale, 1)}))
