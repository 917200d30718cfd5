#!/usr/bin/env bash
# The mlperf_loadgen Python module (src/python/): Python harnesses in tests/python/run_tests.py
# drive it (every scenario and mode, tokens, FromConfig, threads, bad use, Ctrl-C, issued samples
# equal to `mlsubmit loadgen run --dump-issued`). Skipped when the module is not built.
bin=${MLSUBMIT:-}   # before lib.sh wraps it under TEST_WRAP
. "$(dirname "$0")/lib.sh"
PY=${PYTHON:-python3}
case "$bin" in */build*/mlsubmit) BUILD_DIR=$(dirname "$bin") ;; *) BUILD_DIR=$REPO/build ;; esac
mod=$(ls "$BUILD_DIR"/python/mlperf_loadgen*.so 2>/dev/null | head -1)
if [ -z "$mod" ] || ! command -v "$PY" >/dev/null; then
  echo "SKIP $(basename "$0"): the Python module is not built (make python needs python3-dev)"; exit 0
fi
pre=""
if nm -D "$mod" 2>/dev/null | grep -q __asan_; then
  # an ASan build: the sanitizer runtime must be loaded first; CPython's own leaks are not ours
  pre=$(cc -print-file-name=libasan.so)
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0  # the last setting wins
fi
# the CLI runs the tests compare with are timing-sensitive: never under a TEST_WRAP (valgrind)
real=$BUILD_DIR/mlsubmit
if PYTHONPATH="$BUILD_DIR/python" MLSUBMIT="$real" LD_PRELOAD="$pre" "$PY" tests/python/run_tests.py >"$TMP/py.out" 2>&1; then
  ok
else
  fail "tests/python/run_tests.py"; grep -v '^PASS' "$TMP/py.out" | tail -40 >&2
fi
tail -1 "$TMP/py.out"
finish
