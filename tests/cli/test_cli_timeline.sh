#!/usr/bin/env bash
# CLI behaviour of the timeline (issue 10, item 3): `predict --trace` draws the prediction's
# Timeline with one track per stream that has events (compute; host with eager launch) plus a
# layers track, one slice per kernel of every layer, as many as the CSV has rows; JSON ops carry
# their stream and start.
# Usage: test_cli_timeline.sh path/to/ridgeline (from the repository root)
set -u
bin=$1
source "$(dirname "$0")/expect.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# has NAME FILE NEEDLE: the file holds the needle (a trace is one line: not printed when not).
has() {
  if ! grep -qF -- "$3" "$2"; then echo "FAIL $1: $2 lacks: $3"; failures=$((failures + 1)); return; fi
  pass=$((pass + 1))
}

# same NAME A B: two counts that must agree (and not be zero).
same() {
  if [[ $2 -ne $3 || $2 -eq 0 ]]; then
    echo "FAIL $1: $2 vs $3"; failures=$((failures + 1)); return
  fi
  pass=$((pass + 1))
}

tiny=examples/models/tiny-llama.json
run=(predict --model "$tiny" --phase decode --batch 4 --kv-len 256)
expect "graph launch writes a trace" 0 "tokens/s" -- "$bin" "${run[@]}" --trace "$tmp/graph.json"
has "the trace has a compute-stream track" "$tmp/graph.json" '"tid":1,"args":{"name":"compute stream"}'
has "the trace has a layers track" "$tmp/graph.json" '"tid":4,"args":{"name":"layers"}'
expect "graph launch has no host track" 1 "" -- grep -q '"name":"host"' "$tmp/graph.json"
expect "eager launch writes a trace" 0 "eager launch" -- "$bin" "${run[@]}" --launch eager --trace "$tmp/eager.json"
has "eager launch has a host track" "$tmp/eager.json" '"tid":3,"args":{"name":"host"}'
has "eager launch has a compute-stream track" "$tmp/eager.json" '"tid":1,"args":{"name":"compute stream"}'

rows=$("$bin" "${run[@]}" --format csv | grep -vc '^#\|^section,\|^total,')
same "a compute slice per CSV row" "$(grep -o '"ph":"X","pid":1,"tid":1,' "$tmp/graph.json" | wc -l)" "$rows"
same "eager: a host launch per kernel" "$(grep -o '"cat":"launch","ph":"X","pid":1,"tid":3,' "$tmp/eager.json" | wc -l)" "$rows"
layers=$("$bin" "${run[@]}" --format json | grep -c '"time_us": [0-9.e+-]*$')  # layers end with time_us; ops go on
same "a layers slice per layer of the JSON" "$(grep -o '"pid":1,"tid":4,"ts"' "$tmp/graph.json" | wc -l)" "$layers"
expect "JSON ops name their stream" 0 '"stream": "compute",' -- "$bin" "${run[@]}" --format json
expect "JSON ops start where the timeline puts them" 0 '"start_us": 0.0' -- "$bin" "${run[@]}" --format json

finish
