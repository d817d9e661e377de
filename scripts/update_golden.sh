#!/usr/bin/env bash
# Regenerates the golden outputs under tests/golden/ from the current build. Each case file
# tests/golden/NAME.test holds its command ("# RUN: ridgeline ARGS", words split at spaces) and
# names its output ("# EXPECTED: FILE"); ctest runs the same lines (tests/golden/compare.cmake).
# Review the diff (git diff tests/golden) before committing: every changed number is a changed
# prediction. Usage: scripts/update_golden.sh [bin]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cli/ridgeline}
for case in tests/golden/*.test; do
  run=$(sed -n 's/^# RUN: ridgeline //p' "$case")
  expected=$(sed -n 's/^# EXPECTED: //p' "$case")
  if [ -z "$run" ] || [ -z "$expected" ] || [ "$(grep -c '^# RUN: ' "$case")" != 1 ]; then
    echo "$case: expected one '# RUN: ridgeline ...' and one '# EXPECTED: FILE' line" >&2
    exit 1
  fi
  # A case may exit non-zero on purpose (a bad input line among good ones): its stdout is the
  # reviewed output either way.
  read -r -a args <<< "$run"
  rc=0
  "$bin" "${args[@]}" > "tests/golden/$expected" 2>/dev/null || rc=$?
  [ "$rc" = 0 ] || echo "note: $case exited $rc (its output is kept; check that is meant)" >&2
done
echo "golden files regenerated; review with: git diff tests/golden"
