#!/usr/bin/env bash
# The README's quick start. On a fresh Debian machine each command installs what is missing
# (Debian packages, via apt-get), builds, and runs:
#   ./quickstart.sh run        predict a Llama-3-8B decode step (batch 32, 2048 cached tokens) on an H100
#   ./quickstart.sh test       build and run the whole test suite (ctest)
#   ./quickstart.sh sanitize   the suite again under AddressSanitizer and UBSan (CI runs this too)
#   ./quickstart.sh fuzz       each parser's libFuzzer harness for FUZZ_SECONDS (20) s (CI too)
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(cmake g++ make libeigen3-dev nlohmann-json3-dev libcli11-dev libboost-graph-dev catch2 libbenchmark-dev
  parallel time  # GNU parallel and GNU time: the sharding and memory tests (cli.scale)
  libsimdjson-dev pybind11-dev python3-dev python3-pytest  # the op batch parser; import ridgeline
  zlib1g-dev)  # runtime learn reads gzipped profiler traces
# ridgeline report: npm vendors the chart libraries at build time; chromium (+ its driver)
# renders the pages in the tests; prometheus provides promtool for export prometheus's tests.
PACKAGES+=(chromium chromium-driver prometheus)
# npm: Debian's package, unless an npm is already there (Node.js from NodeSource ships its own
# and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 || PACKAGES+=(npm)

install_missing() {  # [extra packages...]
  PACKAGES+=("$@")
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return
  echo "quickstart: installing ${missing[*]}"
  local sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

build() {  # build DIR [cmake options...]
  local dir=$1
  shift
  cmake -S . -B "$dir" -DRIDGELINE_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$(nproc)"
}

# The sanitizers' build (clang, ASan + UBSan, -O1 as ASan advises): the suite (`sanitize`) and
# each parser's libFuzzer harness (`fuzz`) come from the same tree, so CI builds it once.
sanitized_build() {
  CC=clang CXX=clang++ build build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
    -DRIDGELINE_SANITIZE=ON -DRIDGELINE_FUZZ=ON -DRIDGELINE_BENCH=OFF
}

case "${1:-}" in
  run)
    install_missing
    build build -DCMAKE_BUILD_TYPE=Release >/dev/null
    build/cli/ridgeline predict --gpu h100-sxm --model llama-3-8b --phase decode --batch 32 --kv-len 2048
    ;;
  test)
    install_missing
    build build -DCMAKE_BUILD_TYPE=Release
    (cd build && ctest --output-on-failure -j "$(nproc)")
    ;;
  sanitize)
    # clang, so that this build is also fuzz's (one ASan/UBSan build for both CI steps).
    install_missing clang libclang-rt-14-dev
    sanitized_build
    (cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j "$(nproc)")
    ;;
  fuzz)
    install_missing clang libclang-rt-14-dev
    sanitized_build
    corpus=$(mktemp -d)
    trap 'rm -rf "$corpus"' EXIT
    mkdir -p "$corpus"/{gpu,model,op,runtime}
    cp -r tests/fuzz/seeds/* "$corpus/"  # small cuts of measurement files, traces, profiles
    mkdir -p "$corpus"/{cluster,engine}
    cp hardware/clusters/*.json "$corpus/cluster/"
    cp serve/engines/*.json "$corpus/engine/"
    cp hardware/gpus/*.json examples/gpus/*.json "$corpus/gpu/"
    cp workloads/models/*.json examples/models/*.json validate/data/models/*.json "$corpus/model/"
    split -l 1 tests/golden/ops.jsonl "$corpus/op/line-"
    cp workloads/runtimes/*.json examples/runtimes/*.json "$corpus/runtime/"
    mkdir -p "$corpus"/{op_lines,baseline,intervals}
    cp tests/golden/ops.jsonl examples/ops/*.jsonl "$corpus/op_lines/"
    cp validate/accuracy_baseline*.json "$corpus/baseline/"
    cp validate/intervals.json "$corpus/intervals/"
    for t in gpu model op runtime dataset workloads trace profile cluster engine requests \
      op_lines collective_lines collective_data training_runs baseline intervals published merge \
      suite; do
      cp tests/fuzz/regressions/* "$corpus/$t/"  # every crash found so far, as a seed
      echo "quickstart: fuzz_$t for ${FUZZ_SECONDS:-20} s"
      build-fuzz/tests/fuzz/fuzz_$t -max_total_time="${FUZZ_SECONDS:-20}" -max_len=65536 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build-fuzz/crash-$t-" \
        "$corpus/$t" 2>&1 | grep -vE "^#[0-9]+|^INFO|^\"|ecommended dictionary" || true
      if ls build-fuzz/crash-$t-* >/dev/null 2>&1; then
        echo "quickstart: fuzz_$t found a crash: $(ls build-fuzz/crash-$t-*)" >&2
        exit 1
      fi
    done
    ;;
  *)
    echo "usage: ./quickstart.sh run|test|sanitize|fuzz" >&2
    exit 2
    ;;
esac
