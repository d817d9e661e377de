#!/usr/bin/env bash
# A serving run in bounded memory (serve/metrics_stream.h, request_source.h, request_log.h):
# `serve` of 10^6 requests peaks under 32 MB of RSS (it held 286 MB before: every request's
# record and every token's gap; 32 MB is the process's 9 MB plus room, and less than any
# per-request array of 10^6 x 32 bytes); the per-request CSV and JSON lists stream from the
# on-disk log under the same bound; percentiles are exact up to 100000 measured requests and
# from a 0.1% histogram above, said in the table and the JSON; --trace is refused above 100000
# requests with a message naming the flag. Peak RSS is not checked under AddressSanitizer (its
# quarantine holds freed memory).
# Usage: test_cli_servemem.sh path/to/ridgeline (run from the source root).
bin=$1
source "$(dirname "$0")/expect.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run=(serve --gpu h200-sxm --model llama-3.1-8b --engine vllm --input-len 64 --output-len 8 --rate 500)
rss_under() {  # rss_under NAME KB OUTFILE command... : exit 0 and peak RSS under KB
  local name=$1 bound=$2 outfile=$3
  shift 3
  /usr/bin/time -o "$tmp/rss" -f '%M %e' "$@" > "$outfile" 2>/dev/null
  local rc=$? rss secs
  read -r rss secs < <(tail -1 "$tmp/rss")
  echo "note: $name: peak RSS $rss kB, $secs s"
  if [[ $rc -eq 0 && $rss -gt 0 && $rss -lt $bound ]]; then pass=$((pass + 1)); else
    echo "FAIL $name: exit $rc, peak RSS $rss kB (bound $bound kB)"; failures=$((failures + 1))
  fi
}
if [[ -n ${RIDGELINE_SANITIZED:-} ]]; then
  echo "skip peak RSS of 10^6 requests: sanitized build"
else
  rss_under "serve of 10^6 requests" 32768 "$tmp/big.txt" "$bin" "${run[@]}" --requests 1000000
  expect "10^6 requests all measured" 0 'requests 1000000 in ' -- cat "$tmp/big.txt"
  rss_under "serve --format csv of 200000 requests" 32768 "$tmp/big.csv" "$bin" "${run[@]}" --requests 200000 --format csv
  rows=$(tail -n +2 "$tmp/big.csv" | wc -l)
  ordered=$(tail -n +2 "$tmp/big.csv" | awk -F, '$1 != NR - 1 {bad = 1} END {print bad ? "no" : "yes"}')
  [[ $rows -eq 200000 && $ordered == yes ]] && pass=$((pass + 1)) ||
    { echo "FAIL csv rows: $rows rows, in id order: $ordered"; failures=$((failures + 1)); }
  rss_under "serve --format json of 150000 requests" 32768 "$tmp/big.json" "$bin" "${run[@]}" --requests 150000 --format json
  n=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['requests']), d['requests'][-1]['id'], d['percentiles']['method'])" "$tmp/big.json")
  [[ $n == "150000 149999 histogram" ]] && pass=$((pass + 1)) ||
    { echo "FAIL json list: $n"; failures=$((failures + 1)); }
fi

# Exact percentiles up to 100000 measured requests, a histogram (said) above.
expect "100000 requests: exact" 0 'requests 100000 in' -- "$bin" "${run[@]}" --requests 100000
if "$bin" "${run[@]}" --requests 100000 2>/dev/null | grep -q histogram; then
  echo "FAIL 100000 requests: percentiles said to be from a histogram"; failures=$((failures + 1))
else pass=$((pass + 1)); fi
expect "100001 requests: histogram" 0 '(percentiles from a histogram, within 0.1% of exact: 100001 requests, more than the 100000 kept exactly)' -- "$bin" "${run[@]}" --requests 100001
expect "100010 requests, 10 warm-up: exact" 0 'measured after 10 warm-up' -- "$bin" "${run[@]}" --requests 100010 --warmup 10
if "$bin" "${run[@]}" --requests 100010 --warmup 10 2>/dev/null | grep -q histogram; then
  echo "FAIL warm-up requests counted toward the exact limit"; failures=$((failures + 1))
else pass=$((pass + 1)); fi
expect "json: exact has no percentiles key" 0 '"requests": [' -- "$bin" "${run[@]}" --requests 20 --format json
if "$bin" "${run[@]}" --requests 20 --format json | grep -q '"percentiles"'; then
  echo "FAIL exact JSON names a percentile method"; failures=$((failures + 1))
else pass=$((pass + 1)); fi
expect "json: histogram named" 0 '"exact_up_to_requests": 100000' -- "$bin" "${run[@]}" --requests 100001 --format json

# --trace: at most 100000 requests.
expect "--trace above 100000 requests" 1 "--trace $tmp/t.json: a trace of 100001 requests is too large to view; --trace takes at most 100000 requests" -- "$bin" "${run[@]}" --requests 100001 --trace "$tmp/t.json"
[[ ! -e $tmp/t.json ]] && pass=$((pass + 1)) || { echo "FAIL refused trace written"; failures=$((failures + 1)); }
expect "--trace of 100000 requests" 0 'requests 100000 in' -- "$bin" "${run[@]}" --requests 100000 --trace "$tmp/t.json"
n=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for e in d['traceEvents'] if e.get('pid') == 2 and e['ph'] == 'X'))" "$tmp/t.json")
[[ $n -eq 300000 ]] && pass=$((pass + 1)) || { echo "FAIL trace: $n request slices (expected 300000)"; failures=$((failures + 1)); }
finish
