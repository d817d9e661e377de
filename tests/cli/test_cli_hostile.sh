#!/usr/bin/env bash
# Hostile inputs found probing the CLI and writing the fuzz harnesses of the batch inputs
# (issue 16), each answered by one clear error and exit 1: JSON nested a million deep (it
# crashed with a stack overflow in gpus show, predict --model and op --input), shard files for
# `merge` with a point's fields missing (an internal error), serve flags at the doubles' and the
# integers' limits (--requests 2^63-1 never ended, --cv 1e-300 never ended, --cv 1e300 was an
# internal error, --input-len 1e308 ran with 1-token prompts).
# Usage: test_cli_hostile.sh path/to/ridgeline (run from the source root).
bin=$1
source "$(dirname "$0")/expect.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# JSON nested past 512 levels, in files of each kind.
python3 -c "print('[' * 1000000 + ']' * 1000000)" > "$tmp/deep.json"
cp "$tmp/deep.json" "$tmp/deep.jsonl"
msg='invalid JSON: nested deeper than 512 levels'
expect "deep GPU file" 1 "deep.json: $msg" -- "$bin" gpus show "$tmp/deep.json"
expect "deep model file" 1 "$msg" -- "$bin" predict --model "$tmp/deep.json" --gpu h100-sxm --phase decode --batch 1 --kv-len 128
expect "deep op line" 1 "deep.jsonl line 1: $msg" -- "$bin" op --gpu h100-sxm --input "$tmp/deep.jsonl"
expect "deep engine file" 1 "$msg" -- "$bin" serve --gpu h200-sxm --model llama-3.1-8b --engine "$tmp/deep.json" --input-len 8 --output-len 8 --rate 1 --requests 1
python3 -c "print('[' * 512 + ']' * 512)" > "$tmp/d512.json"
expect "512 levels parse (then are not a GPU)" 1 'd512.json: ' -- "$bin" gpus show "$tmp/d512.json"
if "$bin" gpus show "$tmp/d512.json" 2>&1 | grep -q 'nested deeper'; then
  echo "FAIL 512 levels refused as too deep"; failures=$((failures + 1))
else pass=$((pass + 1)); fi

# merge: a point's fields are checked in pass 1 (they were read unchecked in pass 2).
shard=tests/fuzz/seeds/merge/sweep-shard.jsonl
sed '2s/"ok":[a-z]*,//' "$shard" > "$tmp/no-ok.jsonl"
expect "merge: point without ok" 1 'no-ok.jsonl:2: /ok: missing or of the wrong type' -- "$bin" merge "$tmp/no-ok.jsonl"
sed '2s/"table":"[^"]*",//' "$shard" > "$tmp/no-table.jsonl"
expect "merge: point without table" 1 'no-table.jsonl:2: /table: missing or of the wrong type' -- "$bin" merge "$tmp/no-table.jsonl"
sed '2s/"csv":"[^"]*",//' "$shard" > "$tmp/no-csv.jsonl"
expect "merge: point without csv" 1 'no-csv.jsonl:2: /csv: missing or of the wrong type' -- "$bin" merge "$tmp/no-csv.jsonl"
sed '2s/"json":{.*}}$/"x":1}/' "$shard" > "$tmp/no-json.jsonl"
expect "merge: point without json" 1 'no-json.jsonl:2: /json: missing' -- "$bin" merge "$tmp/no-json.jsonl"
sed '1s/"json_head":[^}]*},//' "$shard" > "$tmp/no-head.jsonl"
expect "merge: header without json_head" 1 'no-head.jsonl:1: /json_head: missing' -- "$bin" merge "$tmp/no-head.jsonl"
expect "merge: the seed shard merges" 1 'ridgeline sweep: 2 of 6 points failed' -- "$bin" merge "$shard"

# serve flags at the limits.
s=(serve --gpu h200-sxm --model llama-3.1-8b --engine vllm)
expect "--requests 2^63-1" 1 '--requests 9223372036854775807: at most 1000000000' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --rate 1 --requests 9223372036854775807
expect "--requests 10^9 accepted (then the warm-up check)" 1 '--warmup 1000000000: must be less than the requests that run (1000000000)' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --rate 1 --requests 1000000000 --warmup 1000000000
expect "--input-len 1e308" 1 '--input-len 1e308: more than 10^12 tokens' -- "$bin" "${s[@]}" --input-len 1e308 --output-len 8 --rate 1 --requests 3
expect "--input-len 10^12: the model's context" 1 "request 0: 1000000000000 + 8 tokens exceed the model's context of 131072" -- "$bin" "${s[@]}" --input-len 1000000000000 --output-len 8 --rate 1 --requests 3
expect "lognormal tail held at 10^12" 1 "exceed the model's context" -- "$bin" "${s[@]}" --input-len lognormal:64:500 --output-len 8 --rate 1 --requests 50
expect "--cv 1e-300" 1 '--cv: must be between 0.001 and 1000' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --rate 5 --arrival gamma --cv 1e-300 --requests 3
expect "--cv 1e300" 1 '--cv: must be between 0.001 and 1000' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --rate 5 --arrival gamma --cv 1e300 --requests 3
expect "--cv 0.001 runs" 0 'requests 3 in' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --rate 5 --arrival gamma --cv 0.001 --requests 3
expect "--cv 1000 runs" 0 'requests 3 in' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --rate 5 --arrival gamma --cv 1000 --requests 3
expect "--rate 1e-308" 1 '--rate 1e-308: must be at least 1e-06 requests per second' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --rate 1e-308 --requests 3
expect "--rate 1e-6 runs" 0 'requests 3 in' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --rate 1e-6 --requests 3
expect "--rate 1e308 runs" 0 'requests 3 in' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --rate 1e308 --requests 3
expect "--concurrency 2^63-1 runs" 0 'requests 3 in' -- "$bin" "${s[@]}" --input-len 8 --output-len 8 --concurrency 9223372036854775807 --requests 3

# A 10^6-line trace file is read line by line (not as one text), and filtered in place.
if [[ -z ${RIDGELINE_SANITIZED:-} ]]; then
  python3 -c "
import random
random.seed(1)
t = 0
print('arrival_s,input_tokens,output_tokens')
for i in range(1000000):
    t += random.expovariate(500)
    print('%.6f,%d,%d' % (t, random.randint(16, 64), random.randint(2, 8)))" > "$tmp/trace.csv"
  /usr/bin/time -o "$tmp/rss" -f '%M %e' "$bin" "${s[@]}" --workload "$tmp/trace.csv" > "$tmp/trace.txt" 2>/dev/null
  rc=$?
  read -r rss secs < <(tail -1 "$tmp/rss")
  echo "note: serve --workload of a 10^6-line trace: peak RSS $rss kB, $secs s"
  if [[ $rc -eq 0 && $rss -lt 65536 ]] && grep -q 'requests 1000000 in' "$tmp/trace.txt"; then pass=$((pass + 1)); else
    echo "FAIL 10^6-line trace: exit $rc, peak RSS $rss kB (bound 65536 kB)"; failures=$((failures + 1))
  fi
fi
finish
