#!/usr/bin/env python3
"""Fits hf-transformers' generate() setup (workloads/runtimes/hf-transformers.json
/host/generate_setup_us: transformers' host work before a generate() call's first forward) on the
FIT split of the H200 transformers run (validate/data/h200-sxm-hf-2026-12-01.json): the median of
measured - predicted time to the first token over its generate() records, predicted with the
figure at 0 and every other figure kept. The held-out generate records (the H100 check,
validate/data/h100-sxm-hf-generate-2026-12-07.json) are not read.
Usage: fit_generate_setup.py [ridgeline]   (prints each record and the figure)"""
import json, os, statistics, subprocess, sys, tempfile

R = sys.argv[1] if len(sys.argv) > 1 else 'build/cli/ridgeline'
DATA = 'validate/data/h200-sxm-hf-2026-12-01.json'
doc = json.load(open('workloads/runtimes/hf-transformers.json'))
doc['host']['generate_setup_us'] = 0
path = os.path.join(tempfile.mkdtemp(), 'hf-transformers.json')
json.dump(doc, open(path, 'w'))
out = subprocess.run([R, 'validate', '--gpu', 'h200-sxm', '--data', DATA, '--workloads', '--runtime', path,
                      '--split', 'fit', '--format', 'json'], capture_output=True, text=True, check=True).stdout
cases = [c for c in json.loads(out)['cases'] if c['id'].endswith('/ttft') and '-generate-' in c['id']]
assert cases and all(c['split'] == 'fit' for c in cases)
gaps = []
for c in cases:
    gaps.append(c['measured_us'] - c['predicted_us'])
    print('  %-62s measured %9.1f us  predicted %9.1f us  gap %7.1f us' % (
        c['id'], c['measured_us'], c['predicted_us'], gaps[-1]))
print('generate_setup_us: median gap over %d fit records: %.1f' % (len(gaps), statistics.median(gaps)))
