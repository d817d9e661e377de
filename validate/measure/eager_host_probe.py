"""Why are eager decodes of some families host-bound beyond what ridgeline's host table says?
A probe (2026-12-02) of measure_hf_families.py's cropped-cache eager decodes: for each case, the
same setup and timing (mh.time_eager), then one step under torch.cuda.set_sync_debug_mode("warn")
(every device-to-host synchronisation transformers' code makes, with the warning's text and
the Python line that asked), then one profiled step: every CPU op (not cut to 40), the Python
function events (with_stack), and a gzipped Kineto trace. Writes OUT/eager-host-probe.json and
OUT/probe-<case>.json.gz.

  python3 eager_host_probe.py OUT [--only REGEX]
"""

import gzip
import json
import os
import re
import sys
import time
import traceback
import warnings

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import hf_families_models as fm  # noqa: E402
import measure_hf as mh  # noqa: E402
from ridgeline_measure.harness import err_text  # noqa: E402

torch = mh.torch

CASES = [  # (family, batch, kv): each as measure_hf_families.py's decode, DynamicCache cropped
    ("qwen3-30b-a3b", 1, 2048), ("qwen3-30b-a3b", 8, 512), ("qwen3-30b-a3b", 32, 1024),
    ("qwen2-57b-a14b", 1, 2048), ("qwen3-32b", 4, 1024), ("qwen3-32b", 16, 2048),
    ("olmo2-7b", 8, 512), ("olmo2-7b", 16, 2048), ("gpt-oss-20b", 8, 512),
]


def case_of(fam, b, kv):
    layers = fm.FAMILIES[fam][2]
    return {"id": f"probe-{fam}-L{layers}-decode-b{b}-kv{kv}-dynamic_crop-eager", "family": fam,
            "layers": layers, "phase": "decode", "batch": b, "kv_len": kv, "seq": 1,
            "cache": "dynamic_crop", "launch": "eager"}


def sync_probe(st):
    """One step with sync debug on: each synchronising call's warning text and caller lines."""
    if st.get("pre"):
        st["pre"]()
    torch.cuda.synchronize()
    found = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            st["step"]()
        finally:
            torch.cuda.set_sync_debug_mode("default")
        for x in w:
            found.append({"message": str(x.message)[:200], "file": os.path.basename(x.filename), "line": x.lineno})
    torch.cuda.synchronize()
    # group by (message, file, line)
    groups = {}
    for f in found:
        k = (f["message"], f["file"], f["line"])
        groups[k] = groups.get(k, 0) + 1
    return {"syncs": len(found),
            "sync_sites": [{"message": m, "file": fi, "line": li, "count": c} for (m, fi, li), c in groups.items()]}


def host_only(st, n=20):
    """Host time to issue a step when the GPU is idle at its start, median of n (as time_eager's
    host_ms), and the same with torch.cuda.synchronize() after: a crude split of issue and wait."""
    vals = []
    for _ in range(n):
        if st.get("pre"):
            st["pre"]()
        torch.cuda.synchronize()
        t = time.perf_counter()
        st["step"]()
        vals.append((time.perf_counter() - t) * 1e3)
    torch.cuda.synchronize()
    vals.sort()
    return vals[len(vals) // 2]


def profile(st, path):
    from torch.profiler import ProfilerActivity
    if st.get("pre"):
        st["pre"]()
    st["step"]()
    torch.cuda.synchronize()
    if st.get("pre"):
        st["pre"]()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], with_stack=True) as prof:
        st["step"]()
        torch.cuda.synchronize()
    tmp = path + ".tmp.json"
    prof.export_chrome_trace(tmp)
    with open(tmp, "rb") as f, gzip.open(path, "wb") as g:
        g.write(f.read())
    os.remove(tmp)
    ops = []
    for e in prof.key_averages():
        ops.append({"name": e.key, "count": e.count, "self_cpu_us": round(e.self_cpu_time_total, 2),
                    "cpu_total_us": round(e.cpu_time_total, 2)})
    ops.sort(key=lambda o: -o["self_cpu_us"])
    return {"cpu_ops_all": ops, "cpu_self_total_us": round(sum(o["self_cpu_us"] for o in ops), 1)}


def main():
    out = sys.argv[1]
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    os.makedirs(out, exist_ok=True)
    import transformers
    doc = {"meta": {"utc_start": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "device_name": torch.cuda.get_device_name(0),
                    "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                                 "cuda": torch.version.cuda, "python": sys.version.split()[0]},
                    "nvidia_smi_start": mh.nvidia_smi(), "method": __doc__}, "records": []}
    for fam, b, kv in CASES:
        case = case_of(fam, b, kv)
        if only and not re.search(only, case["id"]):
            continue
        rec = dict(case)
        t0 = time.perf_counter()
        try:
            st = fm.setup(case)
            rec.update(mh.time_eager(st["step"], st.get("pre")))
            rec["host_idle_start_median_ms"] = host_only(st)
            rec.update(sync_probe(st))
            rec.update(profile(st, os.path.join(out, f"{case['id']}.json.gz")))
            del st
        except Exception as exc:  # noqa: BLE001
            rec["error"] = err_text(exc)
            rec["traceback"] = traceback.format_exc()[-2000:]
        rec["wall_s"] = round(time.perf_counter() - t0, 1)
        print(f"{case['id']}: dev {rec.get('device_median_ms')} host {rec.get('host_median_ms')} "
              f"syncs {rec.get('syncs')} {rec.get('error', '')[:200]}", flush=True)
        doc["records"].append(rec)
        with open(os.path.join(out, "eager-host-probe.json"), "w") as f:
            json.dump(doc, f, indent=1)
        import gc
        gc.collect()
        torch.cuda.empty_cache()
    doc["meta"]["nvidia_smi_end"] = mh.nvidia_smi()
    doc["meta"]["utc_end"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with open(os.path.join(out, "eager-host-probe.json"), "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
