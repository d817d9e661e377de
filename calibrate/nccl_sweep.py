#!/usr/bin/env python3
"""Sweep NCCL collectives over message sizes on the GPUs of one node (torch.distributed).

    torchrun --standalone --nproc_per_node N calibrate/nccl_sweep.py --out nccl.json [--max-bytes 4G]
    python3 calibrate/nccl_sweep.py --dry-run        # the size list and collectives; needs no torch

For issue 17: measured bus bandwidth and latency per collective and GPU count, to fit and check
ridgeline's collective model on machines it measured itself. Collectives: all_reduce (sum),
all_gather_into_tensor, reduce_scatter_tensor, all_to_all_single and a send/recv ring (rank r
sends to r+1 and receives from r-1, batched with batch_isend_irecv; needs >= 2 ranks). Sizes: 1 KiB
to --max-bytes in powers of two (bf16 elements; size = the bytes of the whole buffer, as
nccl-tests counts it: all_gather's output, reduce_scatter's input). Per size: --warmup calls, then
--iters calls each timed with CUDA events on the current stream after a barrier; the record keeps
every rank's median, p10 and p90, the slowest rank's median (time_us), algorithm bandwidth
(bytes / time) and bus bandwidth (nccl-tests factors: all_reduce 2(n-1)/n, all_gather,
reduce_scatter and all_to_all (n-1)/n, send/recv 1). The results are checked once per collective
(a known-value buffer). Recorded in meta: world size, NCCL version, `nvidia-smi topo -m`,
clocks before and after, driver, every NCCL_* / TORCH_* / NVSHMEM_* / CUDA_* variable as found
(never set or overridden here: NVLink multicast stays as the machine sets it, e.g.
NCCL_NVLS_ENABLE=0), the method text. Rank 0 writes the file. A world size of 1 runs every
collective but send/recv (recorded as skipped) and proves the harness only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "validate", "measure"))
from ridgeline_measure.harness import percentile, sanitize, utc_now, write_atomic  # noqa: E402
from ridgeline_measure.environment import library_versions, nvidia_smi  # noqa: E402
from op_grid import split_of  # noqa: E402  (sha256 of the id, 30% holdout)

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv")
ENV_PREFIXES = ("NCCL_", "TORCH_", "NVSHMEM_", "CUDA_", "OMP_", "WORLD_SIZE", "LOCAL_WORLD_SIZE")

METHOD_TEXT = (
    "torch.distributed with the NCCL backend, one process per GPU (torchrun), device = LOCAL_RANK. "
    "Collectives on bf16 buffers: dist.all_reduce (SUM), dist.all_gather_into_tensor, "
    "dist.reduce_scatter_tensor (SUM), dist.all_to_all_single, and a send/recv ring (batch_isend_irecv "
    "to rank+1 and from rank-1). size_bytes is the whole buffer as nccl-tests counts it (all_gather: "
    "output; reduce_scatter: input; all_to_all: the per-rank buffer; send_recv: the message). Sizes "
    "1 KiB .. max in powers of two, rounded to a multiple of world_size elements. Per size: warm-up "
    "calls, then iters calls, each after dist.barrier(), bracketed by CUDA events on the current "
    "stream (time of the call as the GPU sees it); per rank median/p10/p90 us; time_us = the slowest "
    "rank's median (all_gather_object). algbw = size_bytes / time; busbw = algbw * factor with "
    "all_reduce 2(n-1)/n, all_gather / reduce_scatter / all_to_all (n-1)/n, send_recv 1. Each "
    "collective's result checked once on a known-value buffer. split = op_grid.split_of(id). "
    "Environment variables recorded as "
    "found, never set: multicast/NVLS stays as the machine sets it.")


def sizes(max_bytes, min_bytes=1024):
    out, b = [], min_bytes
    while b <= max_bytes:
        out.append(b)
        b *= 2
    return out


def parse_bytes(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().rstrip("B")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def bus_factor(name, n):
    if n <= 1:
        return 1.0 if name == "send_recv" else 0.0
    return {"all_reduce": 2 * (n - 1) / n, "send_recv": 1.0}.get(name, (n - 1) / n)


def topo():
    try:
        r = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True, timeout=30)
        return r.stdout if r.returncode == 0 else {"error": r.stderr[:500]}
    except Exception as exc:  # noqa: BLE001
        return {"error": str(exc)[:500]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="nccl.json")
    ap.add_argument("--max-bytes", default="4G")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--collectives", default=",".join(COLLECTIVES))
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    max_bytes = parse_bytes(args.max_bytes)
    todo = [c for c in args.collectives.split(",") if c]
    bad = [c for c in todo if c not in COLLECTIVES]
    if bad:
        sys.exit(f"nccl_sweep.py: --collectives: unknown {bad}; known: {', '.join(COLLECTIVES)}")
    if args.dry_run:
        print(f"collectives {todo}; sizes {len(sizes(max_bytes))}: {sizes(max_bytes)[0]} .. {sizes(max_bytes)[-1]}")
        return
    import torch
    import torch.distributed as dist
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    env_found = {k: v for k, v in sorted(os.environ.items()) if k.startswith(ENV_PREFIXES)}
    if "RANK" not in os.environ:  # plain python3: a world of one
        os.environ.update({"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
                           "MASTER_PORT": os.environ.get("MASTER_PORT", "29511")})
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, n = dist.get_rank(), dist.get_world_size()
    meta = {"utc_start": utc_now(), "method": METHOD_TEXT, "world_size": n, "argv": sys.argv,
            "environment_as_found": env_found, "versions": library_versions(),
            "nccl_version": ".".join(map(str, torch.cuda.nccl.version())),
            "device_name": torch.cuda.get_device_name(local)}
    if rank == 0:
        meta["nvidia_smi_start"] = nvidia_smi()
        meta["driver_version"] = (meta["nvidia_smi_start"].get("gpus") or [{}])[0].get("driver_version")
        meta["topology"] = topo()
    records = []
    dt = torch.bfloat16
    for name in todo:
        if name == "send_recv" and n < 2:
            records.append({"id": f"nccl-{name}-n{n}", "collective": name, "world_size": n, "skipped": True,
                            "error": "not run: send/recv needs 2 or more ranks"})
            continue
        for size in sizes(max_bytes):
            elems = max(n, (size // 2) // n * n)
            nbytes = elems * 2
            if name == "all_reduce":
                buf = torch.ones(elems, dtype=dt, device="cuda")

                def call():
                    dist.all_reduce(buf)
            elif name == "all_gather":
                out = torch.empty(elems, dtype=dt, device="cuda")
                inp = torch.ones(elems // n, dtype=dt, device="cuda")

                def call():
                    dist.all_gather_into_tensor(out, inp)
            elif name == "reduce_scatter":
                inp = torch.ones(elems, dtype=dt, device="cuda")
                out = torch.empty(elems // n, dtype=dt, device="cuda")

                def call():
                    dist.reduce_scatter_tensor(out, inp)
            elif name == "all_to_all":
                inp = torch.ones(elems, dtype=dt, device="cuda")
                out = torch.empty(elems, dtype=dt, device="cuda")

                def call():
                    dist.all_to_all_single(out, inp)
            else:
                snd = torch.ones(elems, dtype=dt, device="cuda")
                rcv = torch.empty(elems, dtype=dt, device="cuda")

                def call():
                    ops = [dist.P2POp(dist.isend, snd, (rank + 1) % n), dist.P2POp(dist.irecv, rcv, (rank - 1) % n)]
                    for w in dist.batch_isend_irecv(ops):
                        w.wait()
            check = None
            if size == sizes(max_bytes)[0]:
                call()
                torch.cuda.synchronize()
                got = {"all_reduce": lambda: buf[0].item(), "all_gather": lambda: out[-1].item(),
                       "reduce_scatter": lambda: out[0].item(), "all_to_all": lambda: out[-1].item(),
                       "send_recv": lambda: rcv[0].item()}[name]()
                want = float(n) if name in ("all_reduce", "reduce_scatter") else 1.0
                if name == "all_reduce":
                    buf.fill_(1)
                check = {"got": got, "want": want, "ok": abs(got - want) < 1e-3}
            for _ in range(args.warmup):
                call()
            torch.cuda.synchronize()
            vals = []
            for _ in range(args.iters):
                dist.barrier()
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                call()
                e1.record()
                torch.cuda.synchronize()
                vals.append(e0.elapsed_time(e1) * 1e3)
            vals.sort()
            mine = {"median_us": statistics.median(vals), "p10_us": percentile(vals, 10),
                    "p90_us": percentile(vals, 90)}
            every = [None] * n
            dist.all_gather_object(every, mine)
            t_us = max(e["median_us"] for e in every)
            rec = {"id": f"nccl-{name}-n{n}-{nbytes}B", "collective": name, "world_size": n, "size_bytes": nbytes,
                   "dtype": "bf16", "time_us": t_us, "per_rank": every,
                   "algbw_GBps": nbytes / (t_us * 1e-6) / 1e9,
                   "busbw_GBps": nbytes / (t_us * 1e-6) / 1e9 * bus_factor(name, n), "iters": args.iters}
            rec["split"] = split_of(rec["id"])
            if check:
                rec["check"] = check
            records.append(rec)
            if rank == 0:
                print(f"{name:15s} {nbytes:>12d} B {t_us:10.1f} us  busbw {rec['busbw_GBps']:8.2f} GB/s", flush=True)
            del call
        torch.cuda.empty_cache()
    if rank == 0:
        meta["nvidia_smi_end"] = nvidia_smi()
        meta["utc_end"] = utc_now()
        write_atomic(args.out, json.dumps(sanitize({"meta": meta, "records": records}), indent=1))
        print(f"wrote {len(records)} records to {args.out}")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    t0 = time.time()
    main()
