#!/usr/bin/env bash
# Smoke of the differential test (tests/diff/): 28 seeded mutations of the real rounds in
# ../shared (each mutation kind twice), each checked by the round's official MLCommons checker and
# by `mlsubmit check`; the verdicts (summary.csv rows as multisets, `errors` aside, and the
# counts) must agree, and where the official checker crashes mlsubmit must exit 1 naming the
# damaged file. Skipped when ../shared is absent. A campaign: make difftest N=2000.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
SHARED=${MLSUBMIT_SHARED:-../shared}
if [ ! -d "$SHARED/upstream/submission-checkers" ]; then
  echo "SKIP: $SHARED/upstream/submission-checkers is absent"
  exit 0
fi
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 0; }
# The smoke runs the rounds whose campaign ended with no unexplained divergence (v5.1). The v3.0
# excerpt entered the harness with rules/v3.0.json and has two open divergences, listed in
# tests/diff/README.md ("Open"); replay them with `make difftest ROUNDS=rounds/v3.0 SEED=14|27`.
# Add a round here once its campaign is clean.
python3 "$HERE/../diff/difftest.py" --mlsubmit "$MLSUBMIT" --wrap "$TEST_WRAP" --shared "$SHARED" \
  --rounds "${DIFFTEST_SMOKE_ROUNDS:-v5.1-mini,gen-v5.1}" \
  --n "${DIFFTEST_SMOKE_N:-28}" --first 1 --work "$TMP/work" --table || fail=1
exit $fail
