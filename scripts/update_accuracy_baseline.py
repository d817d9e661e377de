#!/usr/bin/env python3
"""Rewrites every validate/accuracy_baseline*.json with the current held-out MAPE of each
category (rounded up to 0.01%), predicting with the file's GPU and profile. Run it only in the
commit that changes the model on purpose, and say in that commit which numbers moved and why:
CI (`ridgeline validate --check FILE`) holds every later change to these numbers."""
import glob
import json
import math
import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/cli/ridgeline"


def holdout(base, files, workloads):
    if not files:
        return {}
    args = [BIN, "validate", "--gpu", base["gpu"], "--split", "holdout", "--format", "json"]
    if base.get("profile"):
        args += ["--profile", base["profile"]]
    for f in files:
        args += ["--data", f]
    if workloads:
        args.append("--workloads")
        if base.get("runtime"):
            args += ["--runtime", base["runtime"]]
    doc = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    return {k: math.ceil(v["ridgeline"]["mape"] * 10000) / 10000 for k, v in doc["families"].items()}


def training_holdout(path):
    args = [BIN, "validate", "--training-runs", path, "--format", "json"]
    doc = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    return {k: math.ceil(v["holdout"]["mape"] * 10000) / 10000
            for k, v in doc["categories"].items() if v["holdout"]["count"] > 0}


for path in sorted(glob.glob("validate/accuracy_baseline*.json")):
    base = json.load(open(path))
    if "training_runs" in base:  # the published training runs: categories of iteration time
        base["training_holdout_mape"] = training_holdout(base["training_runs"])
        with open(path, "w") as f:
            json.dump(base, f, indent=2)
            f.write("\n")
        print(path, base["training_holdout_mape"]["all"])
        continue
    base["op_holdout_mape"] = holdout(base, base["op_datasets"], False)
    base["workload_holdout_mape"] = holdout(base, base["workload_datasets"], True)
    with open(path, "w") as f:
        json.dump(base, f, indent=2)
        f.write("\n")
    print(path, base["op_holdout_mape"].get("all"), base["workload_holdout_mape"].get("all"))
