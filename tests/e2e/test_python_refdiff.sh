#!/usr/bin/env bash
# The mlperf_loadgen Python module against the MLCommons reference Python bindings
# (tests/diff/pydiff.py, `make pydifftest`):
# 1. stored cases: the same harness (tests/diff/pyref/harness.py) on build/python, compared with
#    what the reference module wrote for it (tests/e2e/data/pydiff/: the issued queries, loads,
#    bad-use outcomes, detail-log entries, summary lines, accuracy log), no reference needed;
# 2. with ../shared, g++ and pybind11, and the reference module v5.1.1 already built into
#    pydiff.py's cache (`make pydifftest TAGS=v5.1.1` builds it, about two minutes): a few fresh
#    seeds against it (PYDIFF_LIVE=0 skips them).
# Skipped when the module is not built.
. "$(dirname "$0")/lib.sh"
PY=${PYTHON:-python3}
if ! python_module; then
  echo "SKIP $(basename "$0"): the Python module is not built (make python needs python3-dev)"; exit 0
fi
BUILD_DIR=$PY_BUILD_DIR pre=$PY_PRELOAD
DATA=tests/e2e/data/pydiff

LD_PRELOAD="$pre" "$PY" tests/diff/pydiff.py --ours "$BUILD_DIR/python" --check-data "$DATA" >"$TMP/check" 2>&1
replayed "$TMP/check" 30 "reference module"

if [ "${PYDIFF_LIVE:-1}" = 0 ] || [ -n "$pre" ]; then
  echo "pydiff live part skipped (PYDIFF_LIVE=0 or a sanitizer build)"
elif [ -n "$SHARED" ] && [ -d "$SHARED/upstream/loadgen/v5.1.1" ] && command -v g++ >/dev/null &&
     "$PY" tests/diff/pydiff.py --tags v5.1.1 --cached >/dev/null 2>&1; then
  "$PY" tests/diff/pydiff.py --ours "$BUILD_DIR/python" --tags v5.1.1 --n 4 --first 9001 >"$TMP/live" 2>&1
  live_diff $? "$TMP/live" pydiff
else
  echo "pydiff live part skipped (needs ../shared/upstream/loadgen, g++, pybind11 and the reference module built once: make pydifftest TAGS=v5.1.1 N=1)"
fi
finish
