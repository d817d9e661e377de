#!/usr/bin/env python3
"""One-off correction of validate/data/h200-sxm-hf-kernels-2026-12-01b.json (already applied; kept
as the record of what was changed and why; running it again changes nothing).

The second kernel run's attention cases (hf_cases.extra_kernel_cases: heads 64/8/128, 28/4/128,
16/16/64) were timed by hf_ops.setup_op before it read the case's heads: it built every SDPA
input as 32 query heads, 8 KV heads, head_dim 128 (Llama-3-8B's), whatever the case said. The
records show it: the head_dim-64 cases ran Flash_fwd_kernel_traits<128, ...> (FA2's kHeadDim
128), AttentionKernel<..., 64, 128, 128, ...> (CUTLASS kMaxK 128) and cuDNN's ..._64x128x128_...
(d 128), and all three head shapes of one (batch, length) took the same time to 1-3% (e.g. cuDNN
prefill b2 s1024: 49.3, 49.0, 49.4 us for 8192-, 3584- and 1024-wide heads).

So each attention record is relabelled with the shape that ran (32/8/128 at the case's batch and
lengths): heads, kv_heads and head_dim; its id (the shape that ran, then "-as-" and the shape the
case named, so the three timings of one shape stay apart), split_key (the shape that ran, as
hf_cases.attn_base_id names it) and split (split_of(split_key), the project's fixed hash: the
three timings of a shape fall on one side); "labelled_as" keeps the old id. /meta/splits follows.
Timings, kernels and every other field are as measured. The norm and softmax records are
untouched (setup_op read their rows and cols).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "validate", "measure"))
from op_grid import split_of  # noqa: E402
from ridgeline_measure.hf_cases import attn_base_id  # noqa: E402

PATH = os.path.join(HERE, "..", "validate", "data", "h200-sxm-hf-kernels-2026-12-01b.json")
RAN = (32, 8, 128)  # what hf_ops.setup_op built before it read the case's heads

doc = json.load(open(PATH))
splits = {}
for r in doc["records"]:
    if r.get("op") == "attention" and "labelled_as" not in r:
        named = f"h{r['heads']}-kv{r['kv_heads']}-d{r['head_dim']}"
        base = attn_base_id(r["batch"], r["q_len"], r["kv_len"], *RAN)
        r["labelled_as"] = r["id"]
        r["heads"], r["kv_heads"], r["head_dim"] = RAN
        r["id"] = f"{base}-impl-{r['impl']}-as-{named}"
        r["split_key"] = base
        r["split"] = split_of(base)
    splits[r["id"]] = r["split"]
doc["meta"]["splits"] = splits
doc["meta"]["corrections"] = (
    "2026-12-02: the attention records ran 32 heads, 8 KV heads, head_dim 128 (hf_ops.setup_op "
    "ignored the case's heads; its kernel names say head_dim 128 for the d64 cases) and were "
    "relabelled with that shape, their ids and splits recomputed; 'labelled_as' keeps the old id. "
    "See scripts/relabel_hf_kernels_01b.py.")
with open(PATH, "w") as f:
    f.write(json.dumps(doc, indent=1))
