#!/usr/bin/env python3
"""Small seed inputs for the fuzzers whose real files are larger than libFuzzer's -max_len
(64 KiB): the first records of committed measurement files and the first events of committed
profiler traces, written under tests/fuzz/seeds/<target>/. Re-run after a format change."""
import gzip
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fuzz", "seeds")


def write(target, name, doc):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "w") as f:
        json.dump(doc, f, separators=(",", ":"))


def shrink_records(path, keep):
    doc = json.load(open(os.path.join(ROOT, path)))
    doc["records"] = doc["records"][:keep]
    return doc


def main():
    write("dataset", "h200-ops.json", shrink_records("validate/data/h200-sxm-ops-2026-11-29.json", 12))
    write("dataset", "h200-hf-kernels.json",
          shrink_records("validate/data/h200-sxm-hf-kernels-2026-12-01.json", 8))
    write("workloads", "h200-models.json",
          shrink_records("validate/data/h200-sxm-models-2026-11-29.json", 4))
    write("workloads", "h200-hf.json", shrink_records("validate/data/h200-sxm-hf-2026-12-01.json", 3))
    traces = os.path.join(ROOT, "validate", "data", "traces")
    for name in ["trace-blocks4-decode-b8-kv2048.json",
                 "hf-llama3-8b-L8-decode-b1-kv512-dynamic-eager.json.gz"]:
        path = os.path.join(traces, name)
        opener = gzip.open if name.endswith(".gz") else open
        doc = json.load(opener(path, "rt"))
        events = doc["traceEvents"] if isinstance(doc, dict) else doc
        small = events[:150]
        write("trace", name.replace(".gz", ""),
              dict(doc, traceEvents=small) if isinstance(doc, dict) else small)
    # The suite points calibrate fit reads figures and cross-checks from, one or two of each kind.
    suite = json.load(open(os.path.join(ROOT, "validate/data/h200-sxm-gpubench-2026-11-29.json")))
    wanted = {"memory/hbm_read", "memory/hbm_copy", "memory/working_set_read/4096KiB",
              "memory/working_set_read/8192KiB", "memory/smem_bandwidth/b128", "memory/latency/l2",
              "memory/latency/hbm", "compute/fp32_fma", "gemm/bf16/8192x8192x8192",
              "gemm/fp8/8192x8192x8192"}
    suite["benchmarks"] = [b for b in suite["benchmarks"]
                           if b.get("name") in wanted or b.get("name", "").startswith("launch/")]
    write("suite", "h200-gpubench-cut.json", suite)
    write("profile", "h100-sxm.json", json.load(open(os.path.join(ROOT, "hardware/profiles/h100-sxm.json"))))
    write("profile", "h200-sxm.json", json.load(open(os.path.join(ROOT, "hardware/profiles/h200-sxm.json"))))


if __name__ == "__main__":
    main()
