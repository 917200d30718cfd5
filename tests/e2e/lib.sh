# Shared helpers for the end-to-end tests (sourced). Each test runs from the repo root with
# $MLSUBMIT pointing at the binary; it creates its own temporary directory.
set -u
: "${MLSUBMIT:=$(pwd)/build/mlsubmit}"
MLSUBMIT_REAL=$MLSUBMIT   # the binary itself, even when MLSUBMIT becomes a TEST_WRAP wrapper
SHARED=${MLSUBMIT_SHARED:-../shared}
[ -d "$SHARED" ] && SHARED=$(cd "$SHARED" && pwd) || SHARED=""
export MLSUBMIT_NO_PROGRESS=1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mlsubmit-e2e-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# `loadgen run` and `audit run` record every run in a runs database (~/.local/share by default):
# tests record into their temporary directory, never into the real home
export MLSUBMIT_RUNS_DB="$TMP/runs.sqlite"
FAILS=0
PASSES=0
REPO=$(pwd)
# Under valgrind everything runs 20-50x slower: timing comparisons mean nothing there (they are
# checked by make test and make asan), so tests skip them when SLOW_TOOL is set.
SLOW_TOOL=""
case "${TEST_WRAP:-}" in *valgrind*) SLOW_TOOL=1 ;; esac
# make valgrind (or any TEST_WRAP) runs every mlsubmit invocation under the wrapper
if [ -n "${TEST_WRAP:-}" ]; then
  printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$TEST_WRAP" "$MLSUBMIT" > "$TMP/mlsubmit-wrapped"
  chmod +x "$TMP/mlsubmit-wrapped"
  MLSUBMIT="$TMP/mlsubmit-wrapped"
fi

ok()   { PASSES=$((PASSES+1)); }
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS+1)); }
# expect_exit CODE cmd...: runs cmd, checks its exit code; output in $TMP/out, $TMP/err
expect_exit() {
  local want=$1; shift
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" = "$want" ]; then ok; else
    fail "exit $got (wanted $want): $*"; sed 's/^/  stderr: /' "$TMP/err" | head -5 >&2; fi
}
# expect_grep PATTERN FILE [what]
expect_grep() {
  if grep -qE -- "$1" "$2"; then ok; else fail "${3:-$2}: no line matching /$1/"; fi
}
expect_no_grep() {
  if grep -qE -- "$1" "$2"; then fail "${3:-$2}: unexpected line matching /$1/"; else ok; fi
}
# python3 is used for some JSON checks; on a machine without it those checks are skipped
have_python() { command -v python3 >/dev/null 2>&1; }
need_shared() {
  if [ -z "$SHARED" ]; then echo "SKIP $(basename "$0"): ../shared is absent"; exit 0; fi
}
finish() {
  echo "$(basename "$0"): $PASSES passed, $FAILS failed"
  [ "$FAILS" = 0 ]
}
