# Shared preamble of the checker's end-to-end tests, sourced after `set -uo pipefail`:
# checks $MLSUBMIT, sets HERE (tests/e2e), TMP (a scratch directory removed on exit) and
# fail=0, and defines mk_scratch and rows_sans_errors.
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

# rows without the `errors` column (CSV-aware: fields are quoted and may hold commas), sorted
rows_sans_errors() {
  python3 - "$1" <<'PY'
import csv, sys
r = list(csv.reader(open(sys.argv[1], newline="")))
i = r[0].index("errors") if "errors" in r[0] else None
for row in sorted(tuple(x for j, x in enumerate(row) if j != i) for row in r[1:]):
    print(repr(row))
PY
}
