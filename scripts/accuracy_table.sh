#!/usr/bin/env bash
# Regenerates the README's accuracy table: ridgeline and a plain datasheet roofline against the
# held-out H100 measurements (never used to set a parameter). Usage: scripts/accuracy_table.sh [bin]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cli/ridgeline}
echo "Single kernels (held-out):"
"$bin" validate --gpu h100-sxm --split holdout --format markdown \
  --data validate/data/h100-sxm-ops-2026-11-29.json --data validate/data/h100-sxm-norms-2026-11-29.json
echo
echo "Whole steps, Llama-3-8B-shaped PyTorch models (held-out):"
"$bin" validate --gpu h100-sxm --split holdout --format markdown --workloads \
  --data validate/data/h100-sxm-models-2026-11-29.json
echo
echo "H200 held-out, by the profile used (cross-GPU test):"
python3 - "$bin" <<'PY'
import json, subprocess, sys
bin = sys.argv[1]
d = "validate/data/"
columns = [("the H100's profile", ["--profile", "hardware/profiles/h100-sxm.json"]),
           ("one calibrate run (12-01)",
            ["--profile", "validate/profiles/h200-sxm-from-calibrate-run-2026-12-01.json"]),
           ("its own profile", [])]
def scores(extra, data, workloads):
    args = [bin, "validate", "--gpu", "h200-sxm", "--split", "holdout", "--format", "json",
            "--data", d + data] + (["--workloads"] if workloads else []) + extra
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
for data, workloads, cats in [
        ("h200-sxm-ops-2026-11-29.json", False, ["gemm", "attention", "memory-bound", "all"]),
        ("h200-sxm-models-2026-11-29.json", True,
         ["decode-graph", "prefill-graph", "train-graph", "decode-eager", "prefill-eager",
          "train-eager", "all"])]:
    runs = [scores(extra, data, workloads) for _, extra in columns]
    print("| held-out category | cases | " + " | ".join("H200 with " + c for c, _ in columns) +
          " | plain roofline |")
    print("|---|---:|" + "---:|" * (len(columns) + 1))
    for cat in cats:
        fam = runs[0]["families"][cat]
        cells = ["%.1f%%" % (100 * r["families"][cat]["ridgeline"]["mape"]) for r in runs]
        print("| %s | %d | %s | %.1f%% |" % (cat, fam["ridgeline"]["count"], " | ".join(cells),
                                             100 * fam["roofline"]["mape"]))
    print()
PY
echo "Real Hugging Face transformers 5.17 code on the H200 (2026-12-01), by runtime:"
python3 - "$bin" <<'PY'
import json, subprocess, sys
bin = sys.argv[1]
data = "validate/data/h200-sxm-hf-2026-12-01.json"
runtimes = ["pytorch-eager", "hf-transformers"]
def scores(runtime, split):
    args = [bin, "validate", "--workloads", "--data", data, "--runtime", runtime, "--split", split,
            "--format", "json"]
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
for split in ["holdout", "fit"]:
    runs = [scores(r, split) for r in runtimes]
    print("| %s category | cases | " % split + " | ".join("--runtime " + r for r in runtimes) + " |")
    print("|---|---:|" + "---:|" * len(runtimes))
    for cat in runs[-1]["families"]:
        n = runs[-1]["families"][cat]["ridgeline"]["count"]
        cells = ["%.1f%%" % (100 * r["families"][cat]["ridgeline"]["mape"]) for r in runs]
        print("| %s | %d | %s |" % (cat, n, " | ".join(cells)))
    print()
PY
