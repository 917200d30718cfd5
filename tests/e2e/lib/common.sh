# Shared preamble of the checker's end-to-end tests, sourced after `set -uo pipefail`:
# checks $MLSUBMIT, sets HERE (tests/e2e), TMP (a scratch directory removed on exit) and
# fail=0, and defines mk_scratch.
# A scratch directory: $TMPDIR if set, else /dev/shm when writable (many small trees are copied,
# which is several times faster on tmpfs), else /tmp. Removed on exit.
mk_scratch() {
  local base=${TMPDIR:-}
  if [ -z "$base" ]; then
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then base=/dev/shm; else base=/tmp; fi
  fi
  mktemp -d "$base/mlsubmit-e2e-XXXXXX"
}

: "${MLSUBMIT:?set MLSUBMIT to the mlsubmit binary}"
: "${TEST_WRAP:=}"
TMP=$(mk_scratch)
trap 'rm -rf "$TMP"' EXIT
fail=0
