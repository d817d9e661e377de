#!/usr/bin/env bash
# Architect: "Where does the time of a training step go, does it fit, and what does activation
# recomputation buy?" Four GPT-3 175B blocks on one A100 and one H100, and a whole Llama-3-8B
# training step that does not fit without more memory.
set -euo pipefail
bin=${RIDGELINE:-build/cli/ridgeline}
"$bin" predict --gpu a100-sxm-80gb --model gpt3-175b --phase train --batch 1 --seq 2048 --blocks 4 --top 6
"$bin" predict --gpu h100-sxm --model gpt3-175b --phase train --batch 1 --seq 2048 --blocks 4 --recompute --top 3
"$bin" predict --gpu h100-sxm --model llama-3-8b --phase train --batch 1 --seq 4096 --optimizer adamw \
  --trace /tmp/ridgeline-train-trace.json || echo "(as expected: the step does not fit in one H100)"
