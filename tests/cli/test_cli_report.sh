#!/usr/bin/env bash
# `ridgeline report`: each kind (predict on one GPU and on a cluster, sweep, validate, search,
# serve) writes one self-contained HTML page, which headless Chromium loads offline (every
# network lookup fails) and must draw: every chart's element gets data-rendered="true", <body>
# data-rendered="N/N" data-status="ok" (all charts drawn, no script error: window.onerror writes
# into #errors) and Chromium's console log (--enable-logging=stderr) holds no message at all. One page is also saved as a screenshot (SCREENSHOT).
# Then the bad inputs, one test each. Usage: test_cli_report.sh path/to/ridgeline SCREENSHOT
# Exits 77 (ctest: skipped) when chromium is not installed or ridgeline was built without charts.
set -u
bin=$1
shot=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

if ! command -v chromium >/dev/null; then
  echo "SKIP: chromium is not installed (Debian: apt-get install chromium chromium-driver)"
  exit 77
fi
if "$bin" report predict --model llama-3-8b --phase decode --out "$tmp/probe.html" 2>&1 |
  grep -q "built without charts"; then
  echo "SKIP: this ridgeline was built without charts (npm was missing at configure time)"
  exit 77
fi

browse() {  # browse PAGE [chromium flags...]: the DOM after the page's scripts ran, offline
  local page=$1
  shift
  timeout 120 chromium --headless --disable-gpu --no-sandbox --no-first-run --disable-extensions \
    --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$tmp/chrome-profile" \
    --enable-logging=stderr --v=0 --virtual-time-budget=30000 "$@" "file://$page" \
    2>"$page.console"
}

rendered() {  # rendered NAME PAGE: loads PAGE and checks every chart drew and nothing failed
  local name=$1 page=$2 dom divs charts drawn
  dom=$(browse "$page" --dump-dom)
  divs=$(grep -o '<div class="chart[^>]*>' <<<"$dom")  # the chart elements (not script text)
  charts=$(grep -c 'data-chart=' <<<"$divs")
  drawn=$(grep -c 'data-rendered="true"' <<<"$divs")
  if [[ $charts -eq 0 || $drawn -ne $charts ]] ||
    ! grep -q "<body data-rendered=\"$charts/$charts\" data-status=\"ok\">" <<<"$dom"; then
    echo "FAIL $name: $drawn of $charts charts drawn; $(grep -o '<body data-[^>]*>' <<<"$dom");" \
      "errors: $(grep -o '<pre id="errors"[^<]*' <<<"$dom")"
    failures=$((failures + 1))
    return
  fi
  if grep -q ':CONSOLE' "$page.console"; then  # any console output (error, warning, log)
    echo "FAIL $name: console messages:"; grep ':CONSOLE' "$page.console" | head -5
    failures=$((failures + 1))
    return
  fi
  if grep -qE '<script[^>]* src=|<link[^>]* href=' "$page"; then
    echo "FAIL $name: the page loads something from outside itself"
    failures=$((failures + 1))
    return
  fi
  echo "ok $name: $drawn of $charts charts drawn"
  pass=$((pass + 1))
}

report() {  # report NAME KIND FLAGS...: writes $tmp/NAME.html and checks it in the browser
  local name=$1
  shift
  expect "report $name writes its page" 0 "ridgeline report: wrote $tmp/$name.html" -- \
    "$bin" report "$@" --out "$tmp/$name.html"
  [[ -s $tmp/$name.html ]] && rendered "report $name renders" "$tmp/$name.html"
}

report predict predict --gpu h100-sxm --model llama-3-8b --phase decode --batch 32 --kv-len 2048
report predict-cluster predict --cluster dgx-h100 --gpus 16 --tp 8 --dp 2 --model llama-3-8b \
  --phase train --microbatch 1 --global-batch 16 --seq 2048
report sweep sweep --model llama-3-8b --phase decode --kv-len 2048 --batches 1,8,64 \
  --weight-dtypes bf16,fp8
report validate validate --data validate/data/h100-sxm-ops-2026-11-29.json
report search search --model llama-3-8b --cluster dgx-h100 --gpus 16 --global-batch 64 --seq 2048 --top 8
report serve serve --gpu h100-sxm --model llama-3-8b --engine vllm --input-len 512 --output-len 128 \
  --rate 4 --requests 40

# The page holds the command's own numbers: the predict page's data is predict --format json's.
want=$("$bin" predict --gpu h100-sxm --model llama-3-8b --phase decode --batch 32 --kv-len 2048 --format json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["total_us"])')
got=$(python3 -c 'import json,re,sys; t=open(sys.argv[1]).read(); m=re.search(r"<script id=\"ridgeline-data\" type=\"application/json\">(.*?)</script>", t, re.S); print(json.loads(m.group(1))["run"]["total_us"])' "$tmp/predict.html")
if [[ "$want" == "$got" ]]; then pass=$((pass + 1)); else
  echo "FAIL report predict holds predict's total_us: $got, predict says $want"; failures=$((failures + 1)); fi

# One screenshot of a page, for the README.
browse "$tmp/predict.html" --screenshot="$shot" --window-size=1100,2500 >/dev/null
if [[ -s $shot ]]; then pass=$((pass + 1)); echo "ok screenshot: $shot"; else
  echo "FAIL screenshot: $shot not written"; failures=$((failures + 1)); fi

# Bad input: one test per message.
expect "report of a sweep with no point that ran" 1 "report sweep: the sweep has no point that ran (1 points, none ok); nothing to report" -- \
  "$bin" report sweep --model llama-3-8b --phase decode --kv-len 2048 --batches 0 --out "$tmp/empty.html"
[[ -e $tmp/empty.html ]] && { echo "FAIL empty report left a file"; failures=$((failures + 1)); }
expect "report to an unwritable path" 1 "--out $tmp/no/such/dir/r.html: cannot write file" -- \
  "$bin" report predict --model llama-3-8b --phase decode --out "$tmp/no/such/dir/r.html"
expect "report refuses --format" 1 "--format: a report is an HTML page (--out FILE); leave --format out" -- \
  "$bin" report predict --model llama-3-8b --phase decode --format json --out "$tmp/f.html"
expect "report needs --out" 2 "--out is required" -- "$bin" report predict --model llama-3-8b --phase decode
expect "report validate is a --data scorecard" 1 "--check: report validate charts the scorecard of --data; not with --check" -- \
  "$bin" report validate --check validate/accuracy_baseline.json --out "$tmp/v.html"
expect "report validate needs --data" 1 "report validate: give --data FILE" -- \
  "$bin" report validate --out "$tmp/v.html"
expect "report keeps the command's own checks" 1 "--model" -- \
  "$bin" report predict --model no-such-model --phase decode --out "$tmp/m.html"
expect "report needs a kind" 2 "A subcommand is required" -- "$bin" report
finish
