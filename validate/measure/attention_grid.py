#!/usr/bin/env python3
"""A test-only attention grid around the split-KV limit: chunked prefill (a few to a few hundred
queries over 1k-16k cached keys; fewer (head, query block) items than SMs at small batch) and
decode around the batch where items fill the SMs. Ids and the fit/holdout split follow
op_grid.py (split_of: a hash of the id).

    python3 attention_grid.py > attention.jsonl
    python3 measure_ops.py --input attention.jsonl --out results.json
"""

from op_grid import attention, with_splits, write_jsonl


def grid():
    ops = []
    for causal in (False, True):
        for batch in (1, 2, 4, 8):
            for q_len in (8, 16, 32, 64, 128, 256):
                for kv_len in (1024, 4096, 16384):
                    ops.append(attention(batch, 32, 8, 128, q_len, kv_len, causal))
    for batch in (1, 2, 4, 8, 16, 32, 64):
        for kv_len in (512, 4096, 32768):
            ops.append(attention(batch, 32, 8, 128, 1, kv_len, False))
    return with_splits(ops)


if __name__ == "__main__":
    write_jsonl(grid())
