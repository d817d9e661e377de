#!/usr/bin/env bash
# `ridgeline export prometheus` and `validate --trace --format prometheus`: the exposition text
# passes `promtool check metrics`, holds the expected step time (the prediction's own total_us),
# tokens/s, MFU and per-layer times under the workload's labels; a measured trace gives the
# measured figures under the same labels; monitoring/alerts.yml passes `promtool check rules` and
# its ratio rule fires on a job slower than expected (promtool test rules); the Grafana dashboard
# is valid JSON querying these metrics. Bad input: one test per message.
# Usage: test_cli_export.sh path/to/ridgeline. Exits 77 (ctest: skipped) without promtool.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

if ! command -v promtool >/dev/null; then
  echo "SKIP: promtool is not installed (Debian: apt-get install prometheus)"
  exit 77
fi

check_metrics() {  # check_metrics NAME FILE: promtool accepts the exposition text
  if promtool check metrics <"$2" >"$tmp/lint" 2>&1; then pass=$((pass + 1)); else
    echo "FAIL $1: promtool check metrics:"; head -5 "$tmp/lint"; failures=$((failures + 1)); fi
}

w=(--gpu h100-sxm --model llama-3-8b --phase decode --batch 32 --kv-len 2048)
"$bin" export prometheus "${w[@]}" --job llama-decode --out "$tmp/expected.prom"
check_metrics "export prometheus" "$tmp/expected.prom"
total=$("$bin" predict "${w[@]}" --format json | python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["total_us"] * 1e-6))')
labels='gpu="h100-sxm",model="llama-3-8b",phase="decode",batch="32",seq="0",kv_len="2048",weights="bf16",runtime="pytorch-eager",launch="graph",job="llama-decode"'
expect "export holds the expected step time" 0 "ridgeline_expected_step_seconds{$labels} " -- cat "$tmp/expected.prom"
expect "export's step time is predict's total_us" 0 "ridgeline_expected_step_seconds{$labels} ${total:0:8}" -- cat "$tmp/expected.prom"
tokens=$(python3 -c "print(repr(32 / $total)[:6])")  # batch 32, one token each
expect "export holds tokens/s (batch / step time)" 0 "ridgeline_expected_tokens_per_second{$labels} $tokens" -- cat "$tmp/expected.prom"
expect "export holds MFU" 0 "# TYPE ridgeline_expected_mfu_ratio gauge" -- cat "$tmp/expected.prom"
expect "export holds every layer" 0 "ridgeline_expected_layer_seconds{$labels,section=\"decoder_block\",layer=\"31\"}" -- cat "$tmp/expected.prom"
expect "export holds time by bound" 0 "ridgeline_expected_bound_seconds{$labels,bound=\"hbm\"}" -- cat "$tmp/expected.prom"
expect "export without --job has no job label" 0 'launch="graph"} ' -- "$bin" export prometheus "${w[@]}"
"$bin" export prometheus --cluster dgx-h100 --gpus 16 --tp 8 --dp 2 --model llama-3-8b --phase train \
  --microbatch 1 --global-batch 16 --seq 2048 --job train >"$tmp/cluster.prom"
check_metrics "export prometheus --cluster" "$tmp/cluster.prom"
expect "export --cluster carries the cluster's MFU" 0 'ridgeline_expected_mfu_ratio{gpu="h100-sxm",cluster="dgx-h100"' -- cat "$tmp/cluster.prom"

tr=validate/data/traces/trace-blocks4-decode-b8-kv2048.json
t=(--model llama-3-8b --blocks 4 --phase decode --batch 8 --kv-len 2048 --launch eager)
"$bin" validate --trace $tr "${t[@]}" --format prometheus --job llama-decode >"$tmp/measured.prom"
check_metrics "validate --trace --format prometheus" "$tmp/measured.prom"
expect "a trace gives the measured step time" 0 'ridgeline_measured_step_seconds{gpu="h100-sxm",model="llama-3-8b",phase="decode",batch="8"' -- cat "$tmp/measured.prom"
expect "a trace gives measured layer kernel times" 0 'ridgeline_measured_layer_kernel_seconds{' -- cat "$tmp/measured.prom"
expect "a trace gives its kernel time beside the predicted" 0 'ridgeline_expected_kernel_seconds{' -- cat "$tmp/measured.prom"
expect "a trace gives the expectation beside it" 0 'ridgeline_expected_step_seconds{gpu="h100-sxm",model="llama-3-8b",phase="decode",batch="8"' -- cat "$tmp/measured.prom"

# The alert rules: valid, and the ratio fires on a job 50% slower than expected, not on one on time.
expect "alert rules pass promtool" 0 "SUCCESS: 4 rules found" -- promtool check rules monitoring/alerts.yml
cat >"$tmp/alerts_test.yml" <<YAML
rule_files: [$PWD/monitoring/alerts.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'ridgeline_expected_step_seconds{job="slow"}'
        values: '0.010+0x30'
      - series: 'ridgeline_measured_step_seconds{job="slow"}'
        values: '0.015+0x30'
      - series: 'ridgeline_expected_step_seconds{job="fine"}'
        values: '0.010+0x30'
      - series: 'ridgeline_measured_step_seconds{job="fine"}'
        values: '0.011+0x30'
    alert_rule_test:
      - eval_time: 20m
        alertname: StepSlowerThanExpected
        exp_alerts:
          - exp_labels: {job: slow, severity: warning}
            exp_annotations:
              summary: "slow steps take 1.5x the time ridgeline expects"
              description: "Measured step time of slow has been over 1.25x ridgeline_expected_step_seconds for 10 minutes."
      - eval_time: 20m
        alertname: StepMuchSlowerThanExpected
        exp_alerts: []
YAML
expect "the alert fires on a slow job only" 0 "SUCCESS" -- promtool test rules "$tmp/alerts_test.yml"
expect "the dashboard queries the expectation" 0 "ridgeline_expected_step_seconds" -- \
  python3 -c 'import json,sys; d=json.load(open("monitoring/grafana-dashboard.json")); print(" ".join(t["expr"] for p in d["panels"] for t in p["targets"]))'

# Bad input: one test per message.
expect "export refuses --format" 1 "--format: export prometheus writes exposition text; leave --format out" -- \
  "$bin" export prometheus "${w[@]}" --format json
expect "export refuses --trace" 1 "--trace: not with export prometheus (it writes metrics only; validate --trace --format prometheus measures a trace)" -- \
  "$bin" export prometheus "${w[@]}" --trace "$tmp/t.json"
expect "export to an unwritable path" 1 "--out $tmp/no/dir/x.prom: cannot write file" -- \
  "$bin" export prometheus "${w[@]}" --out "$tmp/no/dir/x.prom"
expect "export keeps predict's flags" 2 "--phase is required" -- "$bin" export prometheus --model llama-3-8b
expect "export needs a format kind" 2 "A subcommand is required" -- "$bin" export
expect "validate --format prometheus needs --trace" 1 "--format prometheus: the metrics of a measured step; only with --trace" -- \
  "$bin" validate --data validate/data/h100-sxm-ops-2026-11-29.json --format prometheus
expect "validate --job needs --format prometheus" 1 "--job: labels the metrics of --trace --format prometheus; not without" -- \
  "$bin" validate --trace $tr "${t[@]}" --job x
expect "validate --trace --format prometheus takes no --worst" 1 "--worst: lists the worst kernels in the table; not with --format prometheus" -- \
  "$bin" validate --trace $tr "${t[@]}" --format prometheus --worst 3
finish
