#!/usr/bin/env python3
"""Time one tensor-parallel Llama decoder layer, forward and backward, TP = world size (torch.distributed).

    torchrun --standalone --nproc_per_node N calibrate/tp_layer.py --out tp.json [--shape llama3-70b]
    python3 calibrate/tp_layer.py --dry-run          # the cases; needs no torch

For issue 17 part 2: a Megatron-style tensor-parallel layer in plain PyTorch (column-parallel
fused QKV and gate/up, row-parallel O and down projections; each rank holds heads/N query heads,
max(1, kv_heads/N) KV heads (replicated when kv_heads < N), intermediate/N of the MLP), bf16
parameters and activations, RMSNorm as F.rms_norm, RoPE omitted (elementwise, no communication),
causal SDPA with enable_gqa. Without sequence parallelism: the input is replicated, the row-parallel
outputs are all-reduced (backward: the column-parallel inputs' grads all-reduced). With sequence
parallelism: the input is split along the sequence, all-gathered before each column-parallel block
and reduce-scattered after each row-parallel one (backward: the reverse). Collectives are custom
autograd Functions over dist.all_reduce / all_gather_into_tensor / reduce_scatter_tensor. Per case:
--warmup steps, then --iters steps, each after a barrier: CUDA events around the forward and around
loss.backward() (loss = out.float().square().mean()); per rank medians; the record's times are the
slowest rank's medians; split = op_grid.split_of(id). meta records world size, NCCL version,
topology, clocks, the environment as found (NCCL_* etc., never set here). A world size of 1 runs
both modes (no communication) and proves the harness only. No data-parallel gradient all-reduce
(TP = world size leaves no DP group).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "validate", "measure"))
from ridgeline_measure.harness import percentile, sanitize, utc_now, write_atomic  # noqa: E402
from ridgeline_measure.environment import library_versions, nvidia_smi  # noqa: E402
from op_grid import split_of  # noqa: E402  (sha256 of the id, 30% holdout)

SHAPES = {"llama3-8b": {"hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "intermediate": 14336},
          "llama3-70b": {"hidden": 8192, "heads": 64, "kv_heads": 8, "head_dim": 128, "intermediate": 28672}}
ENV_PREFIXES = ("NCCL_", "TORCH_", "NVSHMEM_", "CUDA_", "WORLD_SIZE", "LOCAL_WORLD_SIZE")


def build_functions(torch, dist):
    class CopyToTP(torch.autograd.Function):  # forward identity, backward all-reduce
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            g = g.contiguous()
            dist.all_reduce(g)
            return g

    class ReduceFromTP(torch.autograd.Function):  # forward all-reduce, backward identity
        @staticmethod
        def forward(ctx, x):
            x = x.contiguous()
            dist.all_reduce(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class GatherSeq(torch.autograd.Function):  # forward all-gather along dim 0, backward reduce-scatter
        @staticmethod
        def forward(ctx, x):
            n = dist.get_world_size()
            out = torch.empty((x.shape[0] * n,) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
            dist.all_gather_into_tensor(out, x.contiguous())
            return out

        @staticmethod
        def backward(ctx, g):
            n = dist.get_world_size()
            out = torch.empty((g.shape[0] // n,) + tuple(g.shape[1:]), dtype=g.dtype, device=g.device)
            dist.reduce_scatter_tensor(out, g.contiguous())
            return out

    class ScatterSeq(torch.autograd.Function):  # forward reduce-scatter along dim 0, backward all-gather
        @staticmethod
        def forward(ctx, x):
            n = dist.get_world_size()
            out = torch.empty((x.shape[0] // n,) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
            dist.reduce_scatter_tensor(out, x.contiguous())
            return out

        @staticmethod
        def backward(ctx, g):
            n = dist.get_world_size()
            out = torch.empty((g.shape[0] * n,) + tuple(g.shape[1:]), dtype=g.dtype, device=g.device)
            dist.all_gather_into_tensor(out, g.contiguous())
            return out
    return CopyToTP, ReduceFromTP, GatherSeq, ScatterSeq


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tp.json")
    ap.add_argument("--shape", default="llama3-70b", choices=sorted(SHAPES))
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    if args.dry_run:
        print(f"shape {args.shape} {SHAPES[args.shape]}; seq {args.seq} batch {args.batch}; modes: tp, tp+sp")
        return
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    env_found = {k: v for k, v in sorted(os.environ.items()) if k.startswith(ENV_PREFIXES)}
    if "RANK" not in os.environ:
        os.environ.update({"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
                           "MASTER_PORT": os.environ.get("MASTER_PORT", "29512")})
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, n = dist.get_rank(), dist.get_world_size()
    sh = SHAPES[args.shape]
    H, KV, D, I, E = sh["heads"], sh["kv_heads"], sh["head_dim"], sh["intermediate"], sh["hidden"]
    if H % n or I % n or args.seq % n:
        sys.exit(f"tp_layer.py: heads {H}, intermediate {I} and --seq {args.seq} must divide by the world size {n}")
    h, kv, inter = H // n, max(1, KV // n), I // n
    CopyToTP, ReduceFromTP, GatherSeq, ScatterSeq = build_functions(torch, dist)
    g = torch.Generator(device="cuda").manual_seed(1234 + rank)
    bf = torch.bfloat16

    def param(*shape):
        return (torch.randn(*shape, device="cuda", dtype=bf, generator=g) * 0.02).requires_grad_()
    w_qkv, w_o = param(E, (h + 2 * kv) * D), param(h * D, E)
    w_gu, w_down = param(E, 2 * inter), param(inter, E)
    n1 = torch.ones(E, device="cuda", dtype=bf, requires_grad=True)
    n2 = torch.ones(E, device="cuda", dtype=bf, requires_grad=True)
    params = [w_qkv, w_o, w_gu, w_down, n1, n2]
    S, B = args.seq, args.batch

    def layer(x, sp):  # x: [S or S/n, B, E] (sequence first, as Megatron lays it out)
        r = x
        y = F.rms_norm(x, (E,), n1, 1e-5)
        y = GatherSeq.apply(y) if sp else CopyToTP.apply(y)
        qkv = y @ w_qkv
        q, k, v = qkv.split([h * D, kv * D, kv * D], dim=-1)
        q = q.view(S, B, h, D).permute(1, 2, 0, 3)
        k = k.view(S, B, kv, D).permute(1, 2, 0, 3)
        v = v.view(S, B, kv, D).permute(1, 2, 0, 3)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=h != kv)
        a = a.permute(2, 0, 1, 3).reshape(S, B, h * D) @ w_o
        x = r + (ScatterSeq.apply(a) if sp else ReduceFromTP.apply(a))
        r = x
        y = F.rms_norm(x, (E,), n2, 1e-5)
        y = GatherSeq.apply(y) if sp else CopyToTP.apply(y)
        gu = y @ w_gu
        gate, up = gu.chunk(2, dim=-1)
        m = (F.silu(gate) * up) @ w_down
        return r + (ScatterSeq.apply(m) if sp else ReduceFromTP.apply(m))

    meta = {"utc_start": utc_now(), "world_size": n, "argv": sys.argv, "shape": args.shape, "shape_dims": sh,
            "seq": S, "batch": B, "per_rank": {"q_heads": h, "kv_heads": kv, "intermediate": inter,
                                               "kv_heads_replicated": KV < n},
            "environment_as_found": env_found, "versions": library_versions(),
            "nccl_version": ".".join(map(str, torch.cuda.nccl.version())),
            "device_name": torch.cuda.get_device_name(local),
            "method": __doc__.split("\n\n", 2)[2].strip()}
    if rank == 0:
        meta["nvidia_smi_start"] = nvidia_smi()
        meta["driver_version"] = (meta["nvidia_smi_start"].get("gpus") or [{}])[0].get("driver_version")
        try:
            meta["topology"] = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True,
                                              timeout=30).stdout
        except Exception as exc:  # noqa: BLE001
            meta["topology"] = {"error": str(exc)[:300]}
    records = []
    for sp in (False, True):
        xs = S // n if sp else S
        x = torch.randn(xs, B, E, device="cuda", dtype=bf, generator=g).requires_grad_()
        fwd, bwd = [], []
        for it in range(args.warmup + args.iters):
            for p in params:
                p.grad = None
            x.grad = None
            dist.barrier()
            e = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
            e[0].record()
            out = layer(x, sp)
            loss = out.float().square().mean()
            e[1].record()
            loss.backward()
            e[2].record()
            torch.cuda.synchronize()
            if it >= args.warmup:
                fwd.append(e[0].elapsed_time(e[1]) * 1e3)
                bwd.append(e[1].elapsed_time(e[2]) * 1e3)
        fwd.sort()
        bwd.sort()
        mine = {"forward_median_us": statistics.median(fwd), "backward_median_us": statistics.median(bwd),
                "forward_p90_us": percentile(fwd, 90), "backward_p90_us": percentile(bwd, 90),
                "peak_mem_bytes": torch.cuda.max_memory_allocated()}
        every = [None] * n
        dist.all_gather_object(every, mine)
        mode = "tp-sp" if sp else "tp"
        rec = {"id": f"tp-layer-{args.shape}-s{S}-b{B}-n{n}-{mode}", "mode": mode, "world_size": n,
               "sequence_parallel": sp, "forward_us": max(e["forward_median_us"] for e in every),
               "backward_us": max(e["backward_median_us"] for e in every), "per_rank": every, "iters": args.iters}
        rec["step_us"] = rec["forward_us"] + rec["backward_us"]
        rec["split"] = split_of(rec["id"])
        records.append(rec)
        if rank == 0:
            print(f"{rec['id']}: forward {rec['forward_us']:.0f} us, backward {rec['backward_us']:.0f} us", flush=True)
        torch.cuda.reset_peak_memory_stats()
    if rank == 0:
        meta["nvidia_smi_end"] = nvidia_smi()
        meta["utc_end"] = utc_now()
        write_atomic(args.out, json.dumps(sanitize({"meta": meta, "records": records}), indent=1))
        print(f"wrote {len(records)} records to {args.out}")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
