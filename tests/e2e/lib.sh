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
# python_module: finds the mlperf_loadgen module of the build under test: PY_BUILD_DIR (the build
# folder, whose python/ holds it), PY_PRELOAD (the ASan runtime to preload for a sanitizer build,
# whose leaks checks are turned off: CPython's own leaks are not ours; else empty). Returns 1
# when the module is not built or python3 is absent.
python_module() {
  case "$MLSUBMIT_REAL" in */build*/mlsubmit) PY_BUILD_DIR=$(dirname "$MLSUBMIT_REAL") ;; *) PY_BUILD_DIR=$REPO/build ;; esac
  local mod
  mod=$(ls "$PY_BUILD_DIR"/python/mlperf_loadgen*.so 2>/dev/null | head -1)
  PY_PRELOAD=""
  [ -n "$mod" ] && command -v "${PYTHON:-python3}" >/dev/null || return 1
  if nm -D "$mod" 2>/dev/null | grep -q __asan_; then
    PY_PRELOAD=$(cc -print-file-name=libasan.so)
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0  # the last setting wins
  fi
}
# replayed CHECK MIN WHAT: one ok / fail per "ok NAME" / "DIFF NAME ..." line of a differential
# test's --check-data output in CHECK (the DIFF block's first lines in the message), and a
# failure when fewer than MIN cases ran.
replayed() {
  local st name n
  while read -r st name _; do
    case $st in
      ok) ok ;;
      DIFF) fail "$name differs from the $3: $(sed -n "/^DIFF $name /,/^\(ok\|DIFF\) /p" "$1" | sed -n '2,6p' | tr -s ' ' | tr '\n' ' ')" ;;
    esac
  done < <(grep -E '^(ok|DIFF) ' "$1")
  n=$(grep -cE '^(ok|DIFF) ' "$1")
  [ "$n" -ge "$2" ] && ok || { fail "only $n stored cases ran"; tail -20 "$1" >&2; }
}
# live_diff RC OUT WHAT: the verdict of a differential test's live seeds (exit status RC, output
# in OUT): 0 passes, 3 (skipped: no reference sources or compiler) notes it, anything else fails
# with the first divergences.
live_diff() {
  if [ "$1" = 0 ]; then ok; elif [ "$1" = 3 ]; then echo "$3 live part skipped: $(tail -1 "$2")"; else
    fail "live seeds against the reference diverge ($3):"; grep -A8 '^DIVERGENCE' "$2" | head -20 >&2; fi
}
