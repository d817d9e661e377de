#!/usr/bin/env python3
"""Copies the published NCCL measurements (shared/reference/published/collectives.json) into
validate/data/published-collectives.json, the form `ridgeline validate --collectives` and
`ridgeline calibrate fit-collectives` read: one row per measured point with the cluster preset it
ran on, the message size in nccl-tests' convention, the out-of-place time, its source, and a
fixed split chosen BEFORE any fitting: FNV-1a 64 of "system|gpu|gpus|collective|message_bytes|
source" (the source's own fields, as printed); the row is held out when the hash % 5 == 0.
Rows without a size (nominal peaks) are left out. Usage:
  scripts/import_published_collectives.py SRC.json validate/data/published-collectives.json
"""
import json
import sys

CLUSTER = {"A100-SXM4-80GB": "dgx-a100", "H100-SXM (80GB HBM3)": "dgx-h100", "H100-SXM": "dgx-h100",
           "H200": "hgx-h200", "B200": "dgx-b200", "GB200": "gb200-nvl72"}
COLLECTIVE = {"all_reduce": "all_reduce", "all_gather": "all_gather",
              "reduce_scatter": "reduce_scatter", "alltoall": "all_to_all"}
GPU = {"A100-SXM4-80GB": "A100", "H100-SXM (80GB HBM3)": "H100", "H100-SXM": "H100", "H200": "H200",
       "B200": "B200", "GB200": "GB200"}


def fnv1a64(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main(src, out):
    doc = json.load(open(src))
    rows = []
    for r in doc["rows"]:
        if r.get("message_bytes") is None or r.get("time_us") is None or r["kind"] != "measured":
            continue
        key = "|".join(str(r[k]) for k in ("system", "gpu", "gpus", "collective", "message_bytes", "source"))
        h = fnv1a64(key)
        rows.append({"id": "%016x" % h, "split": "holdout" if h % 5 == 0 else "fit", "split_key": key,
                     "cluster": CLUSTER[r["gpu"]], "gpu": GPU[r["gpu"]], "gpus": r["gpus"],
                     "nodes": r["nodes"], "collective": COLLECTIVE[r["collective"]],
                     "dtype": r["dtype"], "message_bytes": r["message_bytes"], "time_us": r["time_us"],
                     "nccl_version": r["nccl_version"], "system": r["system"], "tool": r["tool"],
                     "source": r["source"]})
    meta = {
        "what": "NCCL collectives measured by NVIDIA, copied as printed: aiconfigurator's nccl_perf "
                "tables (ai-dynamo/aiconfigurator 095f58a5; A100, H100, H200, B200, GB200 nodes, 2/4/8 "
                "GPUs, 512 B to 512 MiB) and the DGX Cloud benchmarking recipe's DGX H100 sample "
                "(NVIDIA/dgxc-benchmarking 841f5466). Each row names its source. Nothing here was "
                "measured by ridgeline.",
        "message_bytes": "nccl-tests' size: all_reduce = buffer; all_gather = total output; "
                         "reduce_scatter = total input; all_to_all = one rank's send buffer",
        "time_us": "out-of-place time per call, microseconds",
        "split": "fixed before any fit: FNV-1a 64 of system|gpu|gpus|collective|message_bytes|source "
                 "(the published row's fields); holdout when the hash % 5 == 0. Fits read only 'fit'.",
        "imported_by": "scripts/import_published_collectives.py"}
    with open(out, "w") as f:
        f.write('{\n  "meta": ' + json.dumps(meta, indent=2).replace("\n", "\n  ") + ',\n  "rows": [\n')
        f.write(",\n".join("    " + json.dumps(r) for r in rows))
        f.write("\n  ]\n}\n")
    held = sum(r["split"] == "holdout" for r in rows)
    print("%d rows (%d held out) -> %s" % (len(rows), held, out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
