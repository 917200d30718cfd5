#!/usr/bin/env bash
# The model sweep of the older rounds (tests/diff/modelsweep_old.py): for v0.5, v0.7, v1.0, v1.1,
# v2.0, v2.1 and v3.0, a tree whose closed division holds every model of the official checker's
# MODEL_CONFIG in every scenario it requires of a datacenter and an edge system, built from real
# result folders of the round's excerpt retargeted with the numbers of that checker; `mlsubmit
# check` and the round's official MLCommons checker must give the same rows, counts and exit
# status on it, then on a deterministic sample of one-change copies (accuracy below a target, a
# compliance test removed, a performance sample count, minimum query count or Offline samples per
# query one short, a latency over its constraint, a required scenario missing). Skipped without
# ../shared (its upstream checkers and round excerpts) or python3.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
SHARED=${MLSUBMIT_SHARED:-../shared}
if [ ! -d "$SHARED/upstream/submission-checkers" ] || [ ! -f "$SHARED/upstream/COMMITS.txt" ] ||
   [ ! -d "$SHARED/rounds" ] || ! command -v python3 >/dev/null; then
  echo "SKIP: $SHARED/upstream/submission-checkers, $SHARED/rounds or python3 is absent"
  exit 0
fi
SHARED=$(cd "$SHARED" && pwd)

# 20 sampled one-change cases per round (seed 1) besides the base trees
if TMPDIR=$TMP python3 "$HERE/../diff/modelsweep_old.py" --mlsubmit "$MLSUBMIT" --shared "$SHARED" \
     --cases 20 --seed 1 >"$TMP/sweep.out" 2>&1; then
  grep '^modelsweep_old' "$TMP/sweep.out" | sed 's/^/ok: /'
else
  cat "$TMP/sweep.out"
  echo "FAIL: the model sweep of the older rounds diverges from the official checkers"
  fail=1
fi
exit $fail
