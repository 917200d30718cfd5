#!/usr/bin/env bash
# The mlperf_loadgen Python module (src/python/): Python harnesses in tests/python/run_tests.py
# drive it (every scenario and mode, tokens, FromConfig, threads, bad use, Ctrl-C, issued samples
# equal to `mlsubmit loadgen run --dump-issued`). Skipped when the module is not built.
. "$(dirname "$0")/lib.sh"
PY=${PYTHON:-python3}
if ! python_module; then
  echo "SKIP $(basename "$0"): the Python module is not built (make python needs python3-dev)"; exit 0
fi
BUILD_DIR=$PY_BUILD_DIR pre=$PY_PRELOAD
# the CLI runs the tests compare with are timing-sensitive: never under a TEST_WRAP (valgrind)
real=$BUILD_DIR/mlsubmit
if PYTHONPATH="$BUILD_DIR/python" MLSUBMIT="$real" LD_PRELOAD="$pre" "$PY" tests/python/run_tests.py >"$TMP/py.out" 2>&1; then
  ok
else
  fail "tests/python/run_tests.py"; grep -v '^PASS' "$TMP/py.out" | tail -40 >&2
fi
tail -1 "$TMP/py.out"
finish
