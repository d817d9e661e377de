#!/usr/bin/env bash
# Refits the committed calibrated profiles from the committed measurements (run it in the commit
# that changes the model, with update_accuracy_baseline.py and update_golden.sh; the tests check
# that the profiles are what these commands give). Usage: scripts/refit_profiles.sh [bin]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cli/ridgeline}
d=validate/data
"$bin" calibrate fit --gpu h100-sxm --data $d/h100-sxm-ops-2026-11-29.json \
  --data $d/h100-sxm-norms-2026-11-29.json --hardware $d/h100-sxm-gpubench-2026-11-29.json \
  --workloads $d/h100-sxm-models-2026-11-29.json --out hardware/profiles/h100-sxm.json | tail -1
"$bin" calibrate fit --gpu h200-sxm --data $d/h200-sxm-ops-2026-11-29.json \
  --data $d/h200-sxm-attention-splits-2026-12-01.json --data $d/h200-sxm-strided-2026-12-01.json \
  --hardware $d/h200-sxm-gpubench-2026-11-29.json \
  --workloads $d/h200-sxm-models-2026-11-29.json --out hardware/profiles/h200-sxm.json | tail -1
"$bin" calibrate fit --gpu h200-sxm --data $d/h200-sxm-calibration-2026-12-01.json \
  --out validate/profiles/h200-sxm-from-calibrate-run-2026-12-01.json | tail -1
"$bin" calibrate fit --gpu h200-sxm --data $d/h200-sxm-calibration-quick-2026-12-01.json \
  --out validate/profiles/h200-sxm-from-calibrate-run-quick-2026-12-01.json | tail -1
