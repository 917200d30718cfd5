#!/usr/bin/env bash
# The LoadGen against the MLCommons reference LoadGen (tests/diff/lgdiff.py, `make lgdifftest`):
# 1. the cases the differential campaigns found, replayed against the reference's own trace,
#    detail-log keys and summary lines stored in tests/e2e/data/lgdiff/ (no reference needed);
# 2. a performance_issue_same index past a short accuracy set never reads out of bounds (the
#    reference's behaviour there is undefined, so it is not compared);
# 3. with ../shared and g++: a few fresh seeds against the reference v5.1.1 (built once into a
#    cache under /tmp, about a minute the first time; LGDIFF_LIVE=0 skips it).
. "$(dirname "$0")/lib.sh"
have_python || { echo "SKIP $(basename "$0"): python3 is absent"; exit 0; }
DATA=tests/e2e/data/lgdiff

python3 tests/diff/lgdiff.py --mlsubmit "$MLSUBMIT" --check-data "$DATA" >"$TMP/check" 2>&1
replayed "$TMP/check" 29 reference

# Server accuracy, 15 samples in sets of 7 (the last one holds 1), same index 5
"$MLSUBMIT" loadgen run --sut null --loadgen-compat 2.0 --scenario Server --mode accuracy \
  --total-samples 15 --performance-samples 7 --set min_duration_ms=0 --set server_target_qps=5000 \
  --set performance_issue_same=1 --set performance_issue_same_index=5 --no-record --quiet \
  -o "$TMP/same" --dump-issued "$TMP/same.trace" >/dev/null 2>&1
bad=$(awk '$1 == "Q" { for (i = 2; i <= NF; i++) if ($i + 0 >= 15) print $i }' "$TMP/same.trace" | head -1)
[ -s "$TMP/same.trace" ] && [ -z "$bad" ] && ok || fail "same index past the accuracy set: sample index '$bad' out of 15"

# a user.conf sets the seeds up to v4.1 (FromConfig without conf_type), not from v5.0
printf 'resnet50.Offline.qsl_rng_seed = 7\n' > "$TMP/seed.conf"
"$MLSUBMIT" loadgen check-conf "$TMP/seed.conf" --model resnet50 --scenario Offline --loadgen-compat 4.1 --effective >"$TMP/cc41" 2>&1
"$MLSUBMIT" loadgen check-conf "$TMP/seed.conf" --model resnet50 --scenario Offline --loadgen-compat 5.1 >"$TMP/cc51" 2>&1
expect_no_grep 'only read from mlperf.conf' "$TMP/cc41"
expect_grep 'qsl_rng_seed.*= 7$|qsl_rng_seed = 7$|qsl_rng_seed: 7$' "$TMP/cc41"
expect_grep "'qsl_rng_seed' is only read from mlperf.conf" "$TMP/cc51"

if [ "${LGDIFF_LIVE:-1}" != 0 ] && [ -n "$SHARED" ] && [ -d "$SHARED/upstream/loadgen/v5.1.1" ] && command -v g++ >/dev/null; then
  python3 tests/diff/lgdiff.py --mlsubmit "$MLSUBMIT" --tags v5.1.1 --n 6 --first 9001 >"$TMP/live" 2>&1
  live_diff $? "$TMP/live" lgdiff
else
  echo "lgdiff live part skipped (needs ../shared/upstream/loadgen and g++)"
fi
finish
