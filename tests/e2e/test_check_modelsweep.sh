#!/usr/bin/env bash
# The model sweep (tests/diff/modelsweep.py): for each round mkround.sh generates (v3.1, v4.0,
# v4.1, v5.0, v5.1), a tree whose closed division holds every model of the official checker's
# MODEL_CONFIG in every scenario it asks of a datacenter and an edge system, every number read
# from that checker; `mlsubmit check` and the round's official MLCommons checker must give the
# same rows, counts and exit status on it, then on a deterministic sample of one-change copies
# (accuracy below a target or over an upper limit, a compliance test removed, a performance
# sample count, minimum query count or Offline samples per query one short, a Server latency over
# its constraint, a required scenario missing, ...), and on the cases of the divergences the sweep
# found (each fixed in rules/ or src/checker/). Skipped without ../shared or python3. The rounds
# before v3.1: test_check_modelsweep_old.sh.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
SHARED=${MLSUBMIT_SHARED:-../shared}
if [ ! -d "$SHARED/upstream/submission-checkers" ] || [ ! -f "$SHARED/upstream/COMMITS.txt" ] ||
   ! command -v python3 >/dev/null; then
  echo "SKIP: $SHARED/upstream/submission-checkers or python3 is absent"
  exit 0
fi
SHARED=$(cd "$SHARED" && pwd)

# The cases of the divergences found by `make modelsweep` (tests/diff/README.md, Model sweep)
# (the base trees hold the others: v5.0's gptj-99/-99.9 and llama2-70b-interactive-99/-99.9)
FIXED=(
  "v3.1:with gpt3-99 (absent from OFFLINE_MIN_SPQ_SINCE_V4)"
  "v3.1:with gpt3-99.9 (absent from OFFLINE_MIN_SPQ_SINCE_V4)"
  "v5.0:dc1/llama2-70b-interactive-99/Server equal_issue_off"
  "v5.0:dc1/llama2-70b-interactive-99.9/Server equal_issue_off"
  "v4.1:dcedge1/mixtral-8x7b/SingleStream no_token_latencies"
  "v4.1:dcedge1/mixtral-8x7b/SingleStream ttft_at_limit"
  "v4.1:dcedge1/mixtral-8x7b/SingleStream tpot_at_limit"
  "v5.0:dc1/stable-diffusion-xl/Server acc_printed_quoted"
  "v5.0:dc1/stable-diffusion-xl/Server acc_printed_two_blanks"
  "v5.0:dc1/retinanet/Server acc_printed_prefixed"
  "v5.0:with pointpainting of v5.1"
)
args=()
for c in "${FIXED[@]}"; do args+=(--case "$c"); done

# 25 sampled one-change cases per generated round (seed 1) besides the base trees and the cases
# above
sweep() { # sweep NAME ARGS...
  local name=$1
  shift
  if TMPDIR=$TMP python3 "$HERE/../diff/modelsweep.py" --mlsubmit "$MLSUBMIT" --shared "$SHARED" "$@" \
       >"$TMP/$name.out" 2>&1; then
    grep '^modelsweep' "$TMP/$name.out" | sed 's/^/ok: /'
  else
    cat "$TMP/$name.out"
    echo "FAIL: the model sweep ($name) diverges from the official checkers"
    fail=1
  fi
}
sweep gen --cases 25 --seed 1 "${args[@]}"
exit $fail
