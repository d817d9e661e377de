#!/usr/bin/env bash
# CLI behaviour of the shared machinery: every --format a command accepts prints that format
# (op, gpus show, validate pick a view), a flag a chosen view would ignore is refused, and the
# golden cases carry their own commands. Usage: test_cli_twins.sh path/to/ridgeline
set -u
bin=$1
source "$(dirname "$0")/expect.sh"

d=validate/data
h200=$d/h200-sxm-ops-2026-11-29.json
op=(op --op gemm --m 64 --n 64 --k 64)
expect "op --format table" 0 "bound" -- "$bin" "${op[@]}" --format table
expect "op --format json" 0 '"results"' -- "$bin" "${op[@]}" --format json
expect "op --format jsonl" 0 '{"id":"op"' -- "$bin" "${op[@]}" --format jsonl
expect "op --format csv" 0 "id,op,time_us" -- "$bin" "${op[@]}" --format csv
expect "op --format of no view" 2 "--format: yaml not in {table,json,jsonl,csv}" -- "$bin" "${op[@]}" --format yaml
expect "gpus show --format json" 0 '"compute/sm_count"' -- "$bin" gpus show h100-sxm --format json
expect "gpus show --format table" 0 "h100-sxm" -- "$bin" gpus show h100-sxm --format table
expect "validate --format json" 0 '"skipped"' -- "$bin" validate --data $h200 --format json
expect "validate --format markdown" 0 "|" -- "$bin" validate --data $h200 --format markdown
expect "validate --worst lists in the table" 0 "Worst cases" -- "$bin" validate --data $h200 --worst 3
expect "validate --worst with json is refused" 1 "--worst: lists the worst cases in the table; not with --format json" -- "$bin" validate --data $h200 --format json --worst 3
expect "validate --worst with markdown is refused" 1 "--worst: lists the worst cases in the table; not with --format markdown" -- "$bin" validate --data $h200 --format markdown --worst 3
for case in tests/golden/*.test; do
  expect "$case holds one RUN line" 0 "1" -- grep -c '^# RUN: ridgeline ' "$case"
done

finish
