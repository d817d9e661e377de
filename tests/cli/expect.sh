# Sourced by the CLI test scripts: `expect NAME EXIT_CODE NEEDLE -- command...` runs the command
# and checks its exit status and that its output (stdout and stderr) holds NEEDLE; `finish`
# prints the counts and exits non-zero if any expectation failed.
failures=0
pass=0

expect() {
  local name=$1 code=$2 needle=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -ne $code ]]; then
    echo "FAIL $name: exit $rc, expected $code"; echo "$out" | head -5; failures=$((failures + 1)); return
  fi
  if [[ "$out" != *"$needle"* ]]; then
    echo "FAIL $name: output lacks: $needle"; echo "$out" | head -5; failures=$((failures + 1)); return
  fi
  pass=$((pass + 1))
}

finish() {
  echo "$pass passed, $failures failed"
  [[ $failures -eq 0 ]]
}
