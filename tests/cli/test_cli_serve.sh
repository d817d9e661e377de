#!/usr/bin/env bash
# CLI behaviour of `ridgeline serve`, `ridgeline capacity` and `ridgeline validate-serving`: the
# outputs hold the contract's keys, the same seed gives the same bytes, a trace file's bad lines
# are rejected and counted while the others run, and every bad input gets one message naming
# the flag, file or field with a non-zero exit. Usage: test_cli_serve.sh path/to/ridgeline
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

base=(serve --gpu h200-sxm --model llama-3.1-8b --engine vllm)
run=("${base[@]}" --input-len 512 --output-len 64 --requests 200)

expect "serve table" 0 "TTFT" -- "$bin" "${run[@]}" --rate 10
expect "serve json throughput" 0 '"output_tokens_per_s_per_gpu"' -- "$bin" "${run[@]}" --rate 10 --format json
expect "serve json tpot" 0 '"tpot_ms": {' -- "$bin" "${run[@]}" --rate 10 --format json
expect "serve json kv usage" 0 '"kv_usage"' -- "$bin" "${run[@]}" --rate inf --format json
expect "serve csv" 0 "id,arrival_s,input_tokens,output_tokens,queue_ms,ttft_ms,tpot_ms,e2e_ms" -- "$bin" "${run[@]}" --rate 10 --format csv
expect "serve warm-up said" 0 "measured after 10 warm-up requests" -- "$bin" "${run[@]}" --concurrency 10 --warmup 10
expect "serve warm-up json" 0 '"warmup_requests": 10' -- "$bin" "${run[@]}" --concurrency 10 --warmup 10 --format json
expect "serve warm-up too many" 1 "--warmup 200: must be less than the requests that run (200)" -- "$bin" "${run[@]}" --concurrency 10 --warmup 200
expect "serve warm-up negative" 1 "--warmup -1: must be 0 or more" -- "$bin" "${run[@]}" --concurrency 10 --warmup -1
expect "serve closed loop" 0 "closed loop, 16 in flight" -- "$bin" "${run[@]}" --concurrency 16
expect "serve bursty" 0 "gamma 10 req/s, cv 3" -- "$bin" "${run[@]}" --rate 10 --arrival gamma --cv 3
expect "serve goodput" 0 "goodput" -- "$bin" "${run[@]}" --rate 10 --slo ttft_p99=2s,tpot_p99=100ms
for e in trtllm sglang hf-cb; do
  expect "serve $e" 0 "engine $e" -- "$bin" serve --gpu h200-sxm --model llama-3.1-8b --engine $e --input-len 256 --output-len 32 --requests 64 --rate 8
done
# Models whose layers differ, and MLA (absorbed, as the engines run it); hf-cb refuses both.
expect "serve gpt-oss (sliding + full layers)" 0 "gpt-oss-20b on h200-sxm, engine vllm" -- "$bin" serve --gpu h200-sxm --model gpt-oss-20b --engine vllm --input-len 1024 --output-len 64 --requests 64 --rate inf
expect "serve deepseek-v2-lite (MLA)" 0 "deepseek-v2-lite on h200-sxm, engine sglang" -- "$bin" serve --gpu h200-sxm --model deepseek-v2-lite --engine sglang --input-len 1024 --output-len 64 --requests 64 --rate inf
expect "serve deepseek-v3 tp8 (MLA, MoE)" 0 "deepseek-v3 on h200-sxm tp8 (hgx-h200), engine trtllm (fp8)" -- "$bin" serve --cluster hgx-h200 --tp 8 --model deepseek-v3 --precision fp8 --engine trtllm --input-len 1024 --output-len 64 --requests 64 --rate inf
expect "serve MLA under hf-cb" 1 "deepseek-v2-lite.json: multi-head latent attention (deepseek_v2) is served in its absorbed form only" -- "$bin" serve --gpu h200-sxm --model deepseek-v2-lite --engine hf-cb --input-len 256 --output-len 16 --requests 4 --rate inf
expect "serve mixed windows under hf-cb" 1 "--engine: a packed_masked attention layout with a sliding-window model is not modelled" -- "$bin" serve --gpu h200-sxm --model gemma-3-27b --engine hf-cb --input-len 256 --output-len 16 --requests 4 --rate inf
# An engine that sizes itself as trtllm-bench does says the limits it chose.
python3 - "$tmp/bench.json" <<'PY'
import json, sys
e = json.load(open('serve/engines/trtllm.json'))
for k in ('max_num_batched_tokens', 'max_num_seqs'): del e['scheduler'][k]
e['scheduler']['limits'] = 'trtllm_bench'
json.dump(e, open(sys.argv[1], 'w'))
PY
expect "serve trtllm-bench limits" 0 "engine limits (trtllm-bench's sizing for the mean lengths): max batch size 64, max num tokens 2048" -- "$bin" serve --gpu h100-sxm --model llama-3.1-70b --engine "$tmp/bench.json" --precision fp8 --input-len 1000 --output-len 1000 --requests 20 --rate inf
expect "serve trtllm-bench limits json" 0 '"max_batch_size": 64' -- "$bin" serve --gpu h100-sxm --model llama-3.1-70b --engine "$tmp/bench.json" --precision fp8 --input-len 1000 --output-len 1000 --requests 20 --rate inf --format json
expect "serve distributions" 0 "uniform:100:900" -- "$bin" "${base[@]}" --input-len uniform:100:900 --output-len lognormal:64:0.5 --requests 100 --rate 5 --seed 3

"$bin" "${run[@]}" --rate 10 --seed 5 --format json > "$tmp/a.json"
"$bin" "${run[@]}" --rate 10 --seed 5 --format json > "$tmp/b.json"
"$bin" "${run[@]}" --rate 10 --seed 6 --format json > "$tmp/c.json"
expect "same seed, same bytes" 0 "" -- cmp "$tmp/a.json" "$tmp/b.json"
expect "another seed, other bytes" 1 "differ" -- cmp "$tmp/a.json" "$tmp/c.json"

expect "perfetto trace" 0 "" -- "$bin" "${run[@]}" --rate 10 --trace "$tmp/t.json"
expect "trace has steps and requests" 0 '"name":"queued"' -- grep -o '"name":"queued"' "$tmp/t.json"
expect "trace names the engine" 0 '"name":"vllm engine on' -- grep -o '"name":"vllm engine on' "$tmp/t.json"

printf 'arrival_s,input_tokens,output_tokens\n0,100,10\n0.1,-5,10\n0.2,100,10\n0.3,100\n' > "$tmp/trace.csv"
expect "trace file runs its good lines" 0 "requests 2 in" -- "$bin" "${base[@]}" --workload "$tmp/trace.csv"
expect "trace file counts rejected lines" 0 "rejected 2" -- "$bin" "${base[@]}" --workload "$tmp/trace.csv"
expect "trace file names file:line:field" 0 "trace.csv:3: input_tokens: expected a whole number >= 1" -- "$bin" "${base[@]}" --workload "$tmp/trace.csv"
expect "trace file json rejections" 0 '"count": 2' -- "$bin" "${base[@]}" --workload "$tmp/trace.csv" --format json
printf '{"arrival_s": 0, "input_tokens": 100, "output_tokens": 10}\n{"arrival_s": 0.5, "input_tokens": 200000, "output_tokens": 10}\n' > "$tmp/trace.jsonl"
expect "trace request beyond the context is rejected" 0 "exceed the model's context of 131072" -- "$bin" "${base[@]}" --workload "$tmp/trace.jsonl"

# Bad input: one message each, naming the flag, file or field.
expect "rate zero" 1 "--rate 0: must be > 0 requests per second" -- "$bin" "${run[@]}" --rate 0
expect "rate negative" 1 "--rate -3: must be > 0" -- "$bin" "${run[@]}" --rate -3
expect "rate not a number" 1 "--rate fast: expected requests per second" -- "$bin" "${run[@]}" --rate fast
expect "no arrivals" 1 "--rate R|inf or --concurrency C" -- "$bin" "${run[@]}"
expect "rate and concurrency" 1 "--concurrency: give --rate or --concurrency, not both" -- "$bin" "${run[@]}" --rate 4 --concurrency 4
expect "cv without gamma" 1 "--cv: applies to --arrival gamma only" -- "$bin" "${run[@]}" --rate 4 --cv 2
expect "no lengths" 1 "--input-len and --output-len (or --workload FILE)" -- "$bin" "${base[@]}" --rate 4 --requests 10
expect "no request count" 1 "--requests: how many requests to send" -- "$bin" "${base[@]}" --input-len 10 --output-len 10 --rate 4
expect "bad length" 1 "--output-len gauss:1:2: unknown distribution" -- "$bin" "${base[@]}" --input-len 10 --output-len gauss:1:2 --requests 4 --rate 4
expect "lengths and workload" 1 "--workload: gives the lengths itself" -- "$bin" "${base[@]}" --input-len 10 --workload "$tmp/trace.csv"
expect "workload and rate" 1 "--rate: the --workload file gives each request's arrival_s" -- "$bin" "${base[@]}" --workload "$tmp/trace.csv" --rate 3
expect "workload extension" 1 "expected a .csv or .jsonl trace file" -- "$bin" "${base[@]}" --workload "$tmp/trace.txt"
expect "request longer than the context" 1 "exceed the model's context of 131072" -- "$bin" "${base[@]}" --input-len 130000 --output-len 2000 --requests 2 --rate 1
expect "request longer than the KV cache" 1 "KV blocks; the engine's cache holds" -- "$bin" serve --gpu h100-sxm --model llama-3.1-70b --precision fp8 --engine vllm --input-len 16000 --output-len 100 --requests 2 --rate 1
expect "unknown engine" 1 "--engine orca: unknown engine (known: hf-cb, sglang, trtllm, vllm" -- "$bin" serve --gpu h200-sxm --model llama-3.1-8b --engine orca --input-len 10 --output-len 10 --requests 2 --rate 1
sed 's/"max_num_seqs": 1024/"max_num_seqs": 1024, "max_running": 3/' serve/engines/vllm.json > "$tmp/mine.json"
expect "engine file unknown key" 1 "mine.json: /scheduler/max_running: unknown key" -- "$bin" serve --gpu h200-sxm --model llama-3.1-8b --engine "$tmp/mine.json" --input-len 10 --output-len 10 --requests 2 --rate 1
sed 's/"memory_fraction": 0.9/"memory_fraction": 0.1/' serve/engines/vllm.json > "$tmp/small.json"
expect "engine memory leaves no KV block" 1 "small.json: /kv_cache/memory_fraction: 0.1 leaves no KV block" -- "$bin" serve --gpu h200-sxm --model llama-3.1-8b --engine "$tmp/small.json" --input-len 10 --output-len 10 --requests 2 --rate 1
expect "slo unknown metric" 1 "--slo latency_p99=2s: unknown metric \"latency\"" -- "$bin" "${run[@]}" --rate 4 --slo latency_p99=2s

cap=(capacity --gpu h200-sxm --model llama-3.1-8b --engine vllm --input-len 512 --output-len 64 --requests 200)
expect "capacity table" 0 "max req/s/replica" -- "$bin" "${cap[@]}" --slo ttft_p99=2s,tpot_p99=100ms --target-rate 50
expect "capacity json" 0 '"max_requests_per_s_per_replica"' -- "$bin" "${cap[@]}" --slo ttft_p99=2s --target-rate 50 --format json --price-per-gpu-hour 3.5
expect "capacity cost" 0 '"cost_per_hour": ' -- "$bin" "${cap[@]}" --slo ttft_p99=2s --target-rate 50 --format json --price-per-gpu-hour h200-sxm=3.5
expect "capacity not met is a result" 0 "not met: the SLA is not met even at" -- "$bin" "${cap[@]}" --slo tpot_p99=1ms --target-rate 50
expect "capacity target zero" 1 "--target-rate: must be > 0 requests per second" -- "$bin" "${cap[@]}" --slo ttft_p99=2s --target-rate 0
expect "capacity unknown slo metric" 1 "unknown metric \"goodput\"" -- "$bin" "${cap[@]}" --slo goodput_p99=2s --target-rate 10
expect "capacity price for another gpu" 1 "--price-per-gpu-hour b200=3: expected GPU=PRICE for a GPU of --gpu" -- "$bin" "${cap[@]}" --slo ttft_p99=2s --target-rate 10 --price-per-gpu-hour b200=3
expect "capacity bad precision" 1 "--precision int3: expected bf16, fp16, fp8 or nvfp4" -- "$bin" "${cap[@]}" --slo ttft_p99=2s --target-rate 10 --precision bf16,int3

expect "validate-serving needs data" 1 "--data: the published serving file to score" -- "$bin" validate-serving
expect "validate-serving check takes no data" 1 "--data: not with --check" -- "$bin" validate-serving --check validate/serving_baseline.json --data x.json
expect "validate-serving engine-for" 1 "--engine-for trtllm: expected FAMILY=ENGINE" -- "$bin" validate-serving --data validate/data/h200-sxm-hf-cb-2026-12-01.json --engine-for trtllm
finish
