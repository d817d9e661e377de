#!/usr/bin/env python3
"""Rewrites validate/accuracy_baseline.json with the current held-out MAPE of every category
(rounded up to 0.01%). Run it only in the commit that changes the model on purpose, and say
in that commit which numbers moved and why: CI (`ridgeline validate --check`) holds every
later change to these numbers."""
import json
import math
import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/cli/ridgeline"
PATH = "validate/accuracy_baseline.json"


def holdout(files, workloads):
    args = [BIN, "validate", "--split", "holdout", "--format", "json"]
    for f in files:
        args += ["--data", f]
    if workloads:
        args.append("--workloads")
    doc = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    return {k: math.ceil(v["ridgeline"]["mape"] * 10000) / 10000 for k, v in doc["families"].items()}


base = json.load(open(PATH))
base["op_holdout_mape"] = holdout(base["op_datasets"], False)
base["workload_holdout_mape"] = holdout(base["workload_datasets"], True)
with open(PATH, "w") as f:
    json.dump(base, f, indent=2)
    f.write("\n")
print(json.dumps({"ops": base["op_holdout_mape"], "steps": base["workload_holdout_mape"]}, indent=1))
