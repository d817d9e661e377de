#!/usr/bin/env bash
# CLI behaviour of batch runs (cli/batch_run.h): --jobs gives byte-identical output to one thread
# (sweep, search, capacity, op --input); --shard I/N outputs run under GNU parallel and combined by `ridgeline
# merge` equal the unsharded output in every format; bad shard specs, bad --jobs and bad merges
# get one clear error each (naming the flag, or the file and line); the sweep streams (output
# before the run ends, peak RSS of a 10^5-point sweep under a bound); SIGINT ends a run with exit
# 130 and leaves no output file presented as complete.
# Usage: test_cli_scale.sh path/to/ridgeline (run from the source root).
bin=$1
source "$(dirname "$0")/expect.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

same() {  # same NAME FILE_A FILE_B
  if cmp -s "$2" "$3" && [[ -s "$2" ]]; then pass=$((pass + 1)); else
    echo "FAIL $1: $2 and $3 differ (or are empty)"; diff "$2" "$3" | head -5; failures=$((failures + 1))
  fi
}

sw=(sweep --model llama-3-8b --phase decode --batches 1,2,4,8,16,32,64,0 --kv-lens 256,1024,4096
    --weight-dtypes bf16,fp8)
for f in table json csv; do
  "$bin" "${sw[@]}" --format $f > "$tmp/one.$f" 2>/dev/null
  "$bin" "${sw[@]}" --format $f --jobs 4 > "$tmp/four.$f" 2>/dev/null
  same "sweep --jobs 4 = --jobs 1 ($f)" "$tmp/one.$f" "$tmp/four.$f"
done
expect "sweep --jobs 4 still counts failed points" 1 '6 of 48 points failed' -- "$bin" "${sw[@]}" --jobs 4
expect "--jobs 0" 1 '--jobs 0: must be at least 1 (threads)' -- "$bin" "${sw[@]}" --jobs 0
expect "--jobs too many" 1 '--jobs 5000: at most 1024 threads' -- "$bin" "${sw[@]}" --jobs 5000
expect "--jobs negative" 1 '--jobs -3: must be at least 1' -- "$bin" "${sw[@]}" --jobs -3

# op --input --jobs: stdout, stderr and exit status of one thread, on ~3,000 lines (several of
# its 128 KiB batches) with bad lines, blank lines and no newline at the end.
for i in $(seq 1 3000); do
  case $((i % 7)) in
    0) echo '{"op":"gemm","m":1,"n":1,"k":1,"dtype":"tf16"}' ;;
    3) echo ;;
    5) echo 'not json' ;;
    *) echo "{\"id\":\"g$i\",\"op\":\"gemm\",\"m\":$i,\"n\":4096,\"k\":4096,\"dtype\":\"bf16\"}" ;;
  esac
done > "$tmp/ops.jsonl"
printf '%s' '{"op":"rmsnorm","rows":3,"cols":5,"dtype":"bf16"}' >> "$tmp/ops.jsonl"
"$bin" op --input "$tmp/ops.jsonl" > "$tmp/op1.out" 2> "$tmp/op1.err"; rc1=$?
"$bin" op --input "$tmp/ops.jsonl" --jobs 3 > "$tmp/op3.out" 2> "$tmp/op3.err"; rc3=$?
same "op --jobs 3 = --jobs 1 (stdout)" "$tmp/op1.out" "$tmp/op3.out"
same "op --jobs 3 = --jobs 1 (stderr)" "$tmp/op1.err" "$tmp/op3.err"
[[ $rc1 -eq 1 && $rc3 -eq 1 ]] && pass=$((pass + 1)) ||
  { echo "FAIL op --jobs exit status: $rc1 and $rc3 (expected 1)"; failures=$((failures + 1)); }
expect "op --jobs names each bad line" 1 'ops.jsonl line 2994: invalid JSON' -- "$bin" op --input "$tmp/ops.jsonl" --jobs 2
expect "op --jobs 0" 1 '--jobs 0: must be at least 1 (threads)' -- "$bin" op --input "$tmp/ops.jsonl" --jobs 0
expect "op --jobs with a table" 1 '--jobs 2: only with --input in JSONL' -- "$bin" op --input "$tmp/ops.jsonl" --jobs 2 --format table

# Shard specs.
expect "--shard 3/2" 1 '--shard 3/2: I must be less than N' -- "$bin" "${sw[@]}" --shard 3/2
expect "--shard 0/0" 1 '--shard 0/0: N must be at least 1' -- "$bin" "${sw[@]}" --shard 0/0
expect "--shard -1/2" 1 '--shard -1/2: not two whole numbers I/N (expected I/N, 0-based' -- "$bin" "${sw[@]}" --shard -1/2
expect "--shard a/b" 1 '--shard a/b: not two whole numbers' -- "$bin" "${sw[@]}" --shard a/b
expect "--shard 1" 1 '--shard 1: not two whole numbers' -- "$bin" "${sw[@]}" --shard 1
expect "--shard with --format" 1 '--format: a --shard run writes JSONL' -- "$bin" "${sw[@]}" --shard 0/2 --format json
expect "a shard's header" 1 '{"record":"header","command":"sweep","shard":"1/4","points":48' -- "$bin" "${sw[@]}" --shard 1/4
expect "a shard's footer" 1 '{"record":"footer","shard":"1/4","points":12,"complete":true}' -- "$bin" "${sw[@]}" --shard 1/4

# GNU parallel over four shards, merged = unsharded, in each format.
if parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
  parallel "$bin" "${sw[@]}" --shard {}/4 --out "$tmp/s{}.jsonl" ::: 0 1 2 3 2>/dev/null
else
  echo "note: GNU parallel missing (quickstart.sh installs it); shards run one after the other"
  for i in 0 1 2 3; do "$bin" "${sw[@]}" --shard $i/4 --out "$tmp/s$i.jsonl" 2>/dev/null; done
fi
for f in table json csv; do
  "$bin" merge "$tmp/s2.jsonl" "$tmp/s0.jsonl" "$tmp/s3.jsonl" "$tmp/s1.jsonl" --format $f \
    > "$tmp/merged.$f" 2>/dev/null
  same "merge of 4 shards = unsharded sweep ($f)" "$tmp/one.$f" "$tmp/merged.$f"
done
expect "merge counts failed points" 1 'ridgeline sweep: 6 of 48 points failed' -- "$bin" merge "$tmp"/s?.jsonl
s=("$tmp/s0.jsonl" "$tmp/s1.jsonl" "$tmp/s2.jsonl" "$tmp/s3.jsonl")

# Bad merges: each names the file (and line).
expect "merge: shard missing" 1 'merge: shard 3/4 missing' -- "$bin" merge "${s[@]:0:3}"
cp "${s[1]}" "$tmp/again.jsonl"
expect "merge: shard twice" 1 "again.jsonl: shard 1/4 again (also $tmp/s1.jsonl)" -- "$bin" merge "${s[@]}" "$tmp/again.jsonl"
head -n 5 "${s[0]}" > "$tmp/cut.jsonl"
expect "merge: no footer" 1 'cut.jsonl: no footer record: the shard is incomplete' -- "$bin" merge "$tmp/cut.jsonl" "${s[@]:1}"
{ head -n 3 "${s[0]}"; sed -n 3p "${s[0]}"; tail -n +4 "${s[0]}"; } > "$tmp/dup.jsonl"
expect "merge: duplicate point" 1 'dup.jsonl:4: point 4 again or out of order (duplicate point)' -- "$bin" merge "$tmp/dup.jsonl" "${s[@]:1}"
{ head -n 2 "${s[0]}"; tail -n +4 "${s[0]}"; } > "$tmp/gap.jsonl"
expect "merge: missing point" 1 'gap.jsonl:3: point 4 missing' -- "$bin" merge "$tmp/gap.jsonl" "${s[@]:1}"
sed '14s/"points":12/"points":11/' "${s[0]}" > "$tmp/short.jsonl"
expect "merge: footer count" 1 'short.jsonl:14: footer'"'"'s point count differs' -- "$bin" merge "$tmp/short.jsonl" "${s[@]:1}"
{ cat "${s[0]}"; tail -n 1 "${s[0]}"; } > "$tmp/after.jsonl"
expect "merge: record after footer" 1 'after.jsonl:15: a record after the footer' -- "$bin" merge "$tmp/after.jsonl" "${s[@]:1}"
{ head -n 1 "${s[0]}"; echo 'not json'; } > "$tmp/garbage.jsonl"
expect "merge: not JSON" 1 'garbage.jsonl:2: not a JSON record' -- "$bin" merge "$tmp/garbage.jsonl" "${s[@]:1}"
echo '{"a":1}' > "$tmp/norecord.jsonl"
expect "merge: no record key" 1 'norecord.jsonl:1: not a shard record' -- "$bin" merge "$tmp/norecord.jsonl"
sed -n 2p "${s[0]}" > "$tmp/headless.jsonl"
expect "merge: header first" 1 "headless.jsonl:1: expected the shard's header record first" -- "$bin" merge "$tmp/headless.jsonl"
: > "$tmp/empty.jsonl"
expect "merge: empty file" 1 'empty.jsonl: empty (no shard header)' -- "$bin" merge "$tmp/empty.jsonl"
expect "merge: unreadable" 1 "$tmp/nope.jsonl: cannot read file" -- "$bin" merge "$tmp/nope.jsonl"
sed '1s/"command":"sweep"/"command":"capacity"/' "${s[1]}" > "$tmp/mixed.jsonl"
expect "merge: mixed commands" 1 'mixed.jsonl: a `capacity` shard' -- "$bin" merge "${s[0]}" "$tmp/mixed.jsonl" "${s[@]:2}"
"$bin" "${sw[@]}" --kv-lens 256,1024,8192 --shard 1/4 > "$tmp/other.jsonl" 2>/dev/null
expect "merge: other inputs" 1 "other.jsonl: the command's inputs differs" -- "$bin" merge "${s[0]}" "$tmp/other.jsonl" "${s[@]:2}"
"$bin" "${sw[@]}" --shard 1/3 > "$tmp/three.jsonl" 2>/dev/null
expect "merge: shard counts differ" 1 'three.jsonl: shard count 1/3 differs' -- "$bin" merge "${s[0]}" "$tmp/three.jsonl"
sed '2s/"index":1,/"index":99,/' "${s[1]}" > "$tmp/outside.jsonl"
expect "merge: point outside the run" 1 "outside.jsonl:2: point 99 outside the run's 48 points" -- "$bin" merge "${s[0]}" "$tmp/outside.jsonl" "${s[@]:2}"
sed '2s/"shard":"1\/4","index"/"shard":"2\/4","index"/' "${s[1]}" > "$tmp/foreign.jsonl"
expect "merge: a point of another shard" 1 "foreign.jsonl:2: a point of shard 2/4 in shard 1/4's file" -- "$bin" merge "${s[0]}" "$tmp/foreign.jsonl" "${s[@]:2}"
sed '2s/"record":"point"/"record":"row"/' "${s[1]}" > "$tmp/kind.jsonl"
expect "merge: unknown record" 1 'kind.jsonl:2: unknown record "row"' -- "$bin" merge "${s[0]}" "$tmp/kind.jsonl" "${s[@]:2}"
sed '1s/"points":48,//' "${s[1]}" > "$tmp/nofield.jsonl"
expect "merge: header field missing" 1 'nofield.jsonl:1: /points: missing or of the wrong type' -- "$bin" merge "${s[0]}" "$tmp/nofield.jsonl"
sed '1s/"shard":"1\/4"/"shard":"5\/4"/' "${s[1]}" > "$tmp/badspec.jsonl"
expect "merge: bad shard spec in a file" 1 'badspec.jsonl:1: /shard 5/4: I must be less than N' -- "$bin" merge "$tmp/badspec.jsonl"
expect "merge --out unwritable" 1 '--out /nonexistent/dir/x.txt: cannot write file' -- "$bin" merge "${s[@]}" --out /nonexistent/dir/x.txt
"$bin" merge "${s[@]}" --format json --out "$tmp/merged-out.json" 2>/dev/null
same "merge --out" "$tmp/one.json" "$tmp/merged-out.json"

# --out: renamed into place complete; an unwritable path is an error before any work.
"$bin" "${sw[@]}" --format csv --out "$tmp/out.csv" 2>/dev/null
same "sweep --out = stdout" "$tmp/one.csv" "$tmp/out.csv"
expect "sweep --out unwritable" 1 '--out /nonexistent/dir/x.txt: cannot write file' -- "$bin" "${sw[@]}" --out /nonexistent/dir/x.txt
[[ -z $(ls -A "$tmp" | grep '\.tmp-') ]] && pass=$((pass + 1)) || { echo "FAIL: temporary files left"; failures=$((failures + 1)); }

# search and capacity: --jobs gives the same output; capacity shards merge.
se=(search --model llama-3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq 4096 --max-microbatch 2 --format json)
"$bin" "${se[@]}" > "$tmp/se1" 2>/dev/null
"$bin" "${se[@]}" --jobs 4 > "$tmp/se4" 2>/dev/null
same "search --jobs 4 = --jobs 1" "$tmp/se1" "$tmp/se4"
"$bin" "${se[@]}" --out "$tmp/se.out" 2>/dev/null
same "search --out = stdout" "$tmp/se1" "$tmp/se.out"
expect "search --out unwritable" 1 '--out /nonexistent/dir/x.txt: cannot write file' -- "$bin" "${se[@]}" --out /nonexistent/dir/x.txt
expect "search --jobs 0" 1 '--jobs 0: must be at least 1' -- "$bin" "${se[@]}" --jobs 0
expect "search --shard writes JSONL, not --format" 1 '--format: a --shard run writes JSONL' -- "$bin" "${se[@]}" --shard 0/2  # merged in test_cli_scale2.sh
cap=(capacity --gpu h200-sxm,h100-sxm --model llama-3.1-8b --engine vllm --precision bf16,fp8
     --input-len 512 --output-len 64 --requests 100 --slo ttft_p99=2s,tpot_p99=100ms --target-rate 50)
for f in table json; do
  "$bin" "${cap[@]}" --format $f > "$tmp/cap1.$f" 2>/dev/null
  "$bin" "${cap[@]}" --format $f --jobs 2 > "$tmp/cap2.$f" 2>/dev/null
  same "capacity --jobs 2 = --jobs 1 ($f)" "$tmp/cap1.$f" "$tmp/cap2.$f"
done
"$bin" "${cap[@]}" --shard 0/3 > "$tmp/c0.jsonl" 2>/dev/null
"$bin" "${cap[@]}" --shard 1/3 > "$tmp/c1.jsonl" 2>/dev/null
"$bin" "${cap[@]}" --shard 2/3 > "$tmp/c2.jsonl" 2>/dev/null
for f in table json; do
  "$bin" merge "$tmp"/c?.jsonl --format $f > "$tmp/capm.$f" 2>/dev/null
  same "merge of 3 capacity shards = unsharded ($f)" "$tmp/cap1.$f" "$tmp/capm.$f"
done
expect "merge: capacity has no CSV" 1 '--format csv: `capacity` has no CSV output' -- "$bin" merge "$tmp"/c?.jsonl --format csv
expect "capacity --shard 2/2" 1 '--shard 2/2: I must be less than N' -- "$bin" "${cap[@]}" --shard 2/2

# Streaming and SIGINT: a 10^6-point sweep writes its first rows long before its end; ^C stops it
# with exit 130; its --out file is never created and its temporary file removed; a shard written
# to stdout lacks its footer, and merge refuses it.
big=(sweep --model llama-3-8b --phase decode --batches "$(seq -s, 1 1000)" --kv-lens "$(seq -s, 8 8 8000)")
interrupt() {  # interrupt NAME FILE_TO_WATCH command...
  local name=$1 watch=$2
  shift 2
  "$@" & local pid=$!
  for _ in $(seq 600); do [[ -s $(ls $watch 2>/dev/null | head -1) ]] && break; sleep 0.1; done
  local hwm
  hwm=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null)
  kill -INT $pid
  wait $pid
  local rc=$?
  if [[ $rc -eq 130 && -n $hwm ]]; then pass=$((pass + 1)); else
    echo "FAIL $name: exit $rc (expected 130; output started: ${hwm:+yes})"; failures=$((failures + 1))
  fi
}
interrupt "SIGINT with --out" "$tmp/.big.txt.tmp-*" "$bin" "${big[@]}" --jobs 2 --out "$tmp/big.txt" 2>/dev/null
[[ ! -e $tmp/big.txt && -z $(ls -A "$tmp" | grep '\.tmp-') ]] && pass=$((pass + 1)) ||
  { echo "FAIL SIGINT: an output file is left"; ls -A "$tmp"; failures=$((failures + 1)); }
interrupt "SIGINT of a shard on stdout" "$tmp/big0.jsonl" bash -c "exec \"$bin\" $(printf '%q ' "${big[@]}") --shard 0/2 > $tmp/big0.jsonl 2>/dev/null"
expect "merge refuses an interrupted shard" 1 'big0.jsonl: no footer record: the shard is incomplete (interrupted run?)' -- "$bin" merge "$tmp/big0.jsonl"
interrupt "SIGINT of serve" "$tmp/serve.err" bash -c "exec \"$bin\" serve --gpu h200-sxm --model llama-3.1-8b --engine vllm --input-len 512 --output-len 64 --rate 50 --requests 1000000 --out $tmp/serve.txt 2> $tmp/serve.err"
[[ ! -e $tmp/serve.txt && -z $(ls -A "$tmp" | grep '\.tmp-') ]] && pass=$((pass + 1)) ||
  { echo "FAIL SIGINT of serve: an output file is left"; ls -A "$tmp"; failures=$((failures + 1)); }
expect "serve --out unwritable" 1 '--out /nonexistent/dir/x.txt: cannot write file' -- "$bin" serve --gpu h200-sxm --model llama-3.1-8b --engine vllm --input-len 512 --output-len 64 --rate 50 --requests 10 --out /nonexistent/dir/x.txt

# Bounded memory: a 10^5-point sweep (rows streamed, not held) peaks under 64 MB of RSS. Not
# under AddressSanitizer (its quarantine holds freed memory, and Debug runs it 30x slower): the
# Release run checks it.
if [[ -n ${RIDGELINE_SANITIZED:-} ]]; then
  echo "skip 10^5-point sweep RSS: sanitized build"
else
/usr/bin/time -o "$tmp/rss" -f '%M' "$bin" sweep --model llama-3-8b --phase decode \
  --batches "$(seq -s, 1 1000)" --kv-lens "$(seq -s, 64 64 6400)" --format csv --jobs 2 > /dev/null 2>&1
rc=$?
rss=$(tail -1 "$tmp/rss")
if [[ $rc -eq 0 && $rss -gt 0 && $rss -lt 65536 ]]; then pass=$((pass + 1)); else
  echo "FAIL 10^5-point sweep: exit $rc, peak RSS ${rss} kB (bound 65536 kB)"; failures=$((failures + 1))
fi
fi
finish
