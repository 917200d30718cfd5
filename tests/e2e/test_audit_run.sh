#!/usr/bin/env bash
# audit run end to end: honest SUTs pass TEST01, TEST04 and TEST05 (COMPAT and STRICT); each
# cheater fails the audit that exists to catch it (the cheating SUTs of README, Reference SUTs);
# the compliance directory is laid out as the checker expects (exact file sets, v5.1 / v6).
# Runs are kept short (tens of ms of minimum duration, sleep-based emulated costs so that the
# timings do not depend on how busy the machine is).
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
export MLSUBMIT_RULES="$REPO/rules"
have_sut() { $M loadgen suts | grep -q "^  $1 "; }
have_digits() { [ -f "$REPO/data/digits/digits.csv.gz" ] && [ -f "$REPO/data/digits/digits-fp32.bin" ] && have_sut digits; }
DIG="--model digits --data $REPO/data"
# (a 1 s latency bound keeps Server runs VALID on a busy machine: with one core kept busy by
# another process, 99th percentiles of 20 to 60 ms were measured for the digits SUT)
SRV="--scenario Server --set min_duration_ms=300 --set server_target_qps=20000 --set server_target_latency_ns=1000000000"
# digits infers for real: 5000 QPS (1,500 queries) leave the CPU to a sanitizer or a busy machine
DSRV="--scenario Server --set min_duration_ms=300 --set server_target_qps=5000 --set server_target_latency_ns=1000000000"
# exact_files DIR "a b c": DIR holds exactly these files
exact_files() {
  local got; got=$(cd "$1" 2>/dev/null && ls -A | sort | tr '\n' ' ')
  [ "$got" = "$(echo $2 | tr ' ' '\n' | sort | tr '\n' ' ')" ] && ok || fail "$1 holds '$got', expected '$2'"
}

# ---- A10: honest SUTs pass every audit -----------------------------------------------------------
# null SUT, Server (the completed rate follows the schedule), STRICT
for t in TEST01 TEST04 TEST05; do
  expect_exit 0 $M audit run $t --mode strict --sut null --total-samples 2000 $DIG $SRV -o "$TMP/null/Server"
  expect_grep "^$t: PASS \(strict\)" "$TMP/out" "null $t"
  expect_grep '^TEST PASS$' "$TMP/null/Server/$t/verify_performance.txt"
done
expect_grep '^STRICT verdict: PASS' "$TMP/out"
exact_files "$TMP/null/Server/TEST01" "accuracy performance verify_accuracy.txt verify_performance.txt"
exact_files "$TMP/null/Server/TEST01/accuracy" "accuracy.txt mlperf_log_accuracy.json"
exact_files "$TMP/null/Server/TEST01/performance/run_1" "mlperf_log_detail.txt mlperf_log_summary.txt"
exact_files "$TMP/null/Server/TEST04" "performance verify_performance.txt"
exact_files "$TMP/null/Server/TEST05/performance/run_1" "mlperf_log_detail.txt mlperf_log_summary.txt"
expect_grep '^TEST PASS$' "$TMP/null/Server/TEST01/verify_accuracy.txt"
expect_grep '^num_perf_log_data_mismatch = 0$' "$TMP/null/Server/TEST01/verify_accuracy.txt"
# v6 layout: the reference runs sit beside the TEST directories
[ -f "$TMP/null/Server/accuracy/mlperf_log_accuracy.json" ] && [ -f "$TMP/null/Server/performance/run_1/mlperf_log_detail.txt" ] \
  && ok || fail "v6 layout: reference runs not in the scenario directory"
# the work directory (audit.config, raw logs) is gone; no audit.config anywhere in the tree
[ -z "$(find "$TMP/null" -name 'audit.config' -o -name '.mlsubmit-audit-*')" ] && ok || fail "work files left in the tree"
# TEST05 used the round's alternate seeds, TEST01 the sampling target of the model
expect_grep '"key": "effective_qsl_rng_seed", "value": 7975553102935885558,' "$TMP/null/Server/TEST05/performance/run_1/mlperf_log_detail.txt"
expect_grep 'Test05 flag detected Overriding random seeds' "$TMP/null/Server/TEST05/performance/run_1/mlperf_log_detail.txt"
expect_grep '"key": "effective_accuracy_log_sampling_target", "value": 256,' "$TMP/null/Server/TEST01/performance/run_1/mlperf_log_detail.txt"

# latency SUT (1 ms per sample from a timer thread), Server
for t in TEST01 TEST04 TEST05; do
  expect_exit 0 $M audit run $t --sut latency:fixed=1ms --total-samples 1000 $DIG --scenario Server \
     --set min_duration_ms=300 --set server_target_qps=5000 --set server_target_latency_ns=1000000000 -o "$TMP/lat/Server"
  expect_grep "^$t: PASS \(compat\)" "$TMP/out" "latency $t"
done
# v5.1 layout: TESTxx under compliance/, reference runs under results/
V51="$TMP/sub/closed/Org/compliance/sys1/digits/Server"
expect_exit 0 $M audit run TEST04 --layout v5.1 --sut null --total-samples 2000 $DIG $SRV -o "$V51"
[ -f "$V51/TEST04/verify_performance.txt" ] && [ -f "$TMP/sub/closed/Org/results/sys1/digits/Server/performance/run_1/mlperf_log_summary.txt" ] \
  && ok || fail "v5.1 layout not produced"
expect_exit 2 $M audit run TEST04 --layout v5.1 --sut null --total-samples 2000 $DIG $SRV -o "$TMP/nocompliance"
expect_grep "give --results DIR" "$TMP/err"
# --reuse-results verifies against the reference logs already there
expect_exit 0 $M audit run TEST04 --reuse-results --sut null --total-samples 2000 $DIG $SRV -o "$TMP/null/Server"
expect_grep '^reference runs: reusing' "$TMP/out"

# usage: tests the round does not require, unknown models, bad options
expect_exit 2 $M audit run TEST05 --sut null --total-samples 100 --model resnet50 $SRV -o "$TMP/x"
expect_grep "not required for model 'resnet50'" "$TMP/err"
expect_exit 2 $M audit run TEST01 --sut null --total-samples 100 --model mymodel $SRV -o "$TMP/x"
expect_grep "give --sampling-target" "$TMP/err"
expect_exit 2 $M audit run TEST02 --sut null --model digits $SRV -o "$TMP/x"
expect_exit 2 $M audit run TEST01 --sut null --model digits --scenario Offline --mode lax -o "$TMP/x"

if ! have_digits; then
  echo "SKIP digits audits: digits SUT or data/digits missing (make data)"
  finish; exit
fi

# digits FP32 and INT8 in Server (the completed rate follows the schedule, so busy CPUs do not
# change the verdicts), STRICT: TEST04 with its unique-index runs
for sut in digits digits:int8; do
  for t in TEST01 TEST04 TEST05; do
    expect_exit 0 $M audit run $t --mode strict --sut $sut $DIG $DSRV -o "$TMP/$sut/Server"
    expect_grep "^$t: PASS \(strict\)" "$TMP/out" "$sut $t"
    [ $t = TEST04 ] && expect_grep '^PASS  same-index run not faster than the unique-index run' "$TMP/out"
  done
done
# accuracy.txt of TEST01: the digits scorer on the sampled performance-mode responses
expect_grep '^accuracy=(9[0-9]|100)\.[0-9]{3}%, good=[0-9]+, total=[0-9]+$' "$TMP/digits/Server/TEST01/accuracy/accuracy.txt"

# ---- the cheaters --------------------------------------------------------------------------------
# A2: cheat-perf answers garbage in performance mode: TEST01 accuracy fails, the fallback is
# produced (only on FAIL) and rejected
if have_sut cheat-perf; then
  expect_exit 1 $M audit run TEST01 --sut cheat-perf $DIG $SRV -o "$TMP/cp/Server"
  expect_grep '^TEST01: FAIL' "$TMP/out"
  V="$TMP/cp/Server/TEST01"
  expect_grep '^TEST FAIL$' "$V/verify_accuracy.txt"
  n=$(sed -n 's/^num_perf_log_data_mismatch = //p' "$V/verify_accuracy.txt")
  [ "${n:-0}" -gt 100 ] && ok || fail "cheat-perf: only '$n' mismatches"
  expect_grep '^TEST PASS$' "$V/verify_performance.txt" "cheat-perf performance (it is not slower)"
  exact_files "$V/accuracy" "accuracy.txt baseline_accuracy.txt compliance_accuracy.txt mlperf_log_accuracy.json"
  expect_grep '^accuracy=9[0-9]\.[0-9]+%' "$V/accuracy/baseline_accuracy.txt"
  expect_grep '^accuracy=0\.000%' "$V/accuracy/compliance_accuracy.txt"
  expect_grep 'fallback: .* rejected' "$TMP/out"
else
  echo "SKIP cheat-perf: not in 'mlsubmit loadgen suts'"
fi

if have_sut cheat-cache; then
  # A1a: a 64-entry LRU cache, Offline: the same-index run is far faster -> COMPAT TEST04 fails
  # (no minimum duration: the same-index run must also be VALID, and it takes milliseconds; a
  # 50 us device cost, sleep-bound at 40k samples/s, keeps the honest reference run slower than
  # the cached one on a busy machine too: 5 us gave 4.5x with one core kept busy)
  expect_exit 1 $M audit run TEST04 --sut cheat-cache:cost=50us $DIG --scenario Offline --set min_duration_ms=0 \
     --set min_query_count=20000 -o "$TMP/cc/Offline"
  expect_grep '^TEST FAIL: Test score invalid$' "$TMP/cc/Offline/TEST04/verify_performance.txt"
  r=$(sed -n 's/^reference score = //p' "$TMP/cc/Offline/TEST04/verify_performance.txt")
  t=$(sed -n 's/^test score = //p' "$TMP/cc/Offline/TEST04/verify_performance.txt")
  awk -v r="$r" -v t="$t" 'BEGIN { exit !(t > 5 * r) }' && ok || fail "cheat-cache cap=64: test $t not 5x reference $r"
  # A1b: a cache of the whole QSL in Server: the normal run is served from the cache as well, so
  # COMPAT passes (as upstream); STRICT's unique-index run catches it
  # (two runs within 10 % of each other at 200k QPS: a timing outcome, not checked under valgrind)
  if [ -z "$SLOW_TOOL" ]; then
    CC="--sut cheat-cache:cost=40us,cap=all $DIG --scenario Server --set min_duration_ms=300 --set server_target_qps=200000 --set server_target_latency_ns=1000000000"
    expect_exit 0 $M audit run TEST04 $CC -o "$TMP/cca/Server"
    expect_grep '^TEST04: PASS \(compat\)' "$TMP/out" "cheat-cache cap=all COMPAT"
    expect_exit 1 $M audit run TEST04 --mode strict --strict-report "$TMP/cca-strict.txt" $CC -o "$TMP/cca2/Server"
    expect_grep '^FAIL  same-index run not faster than the unique-index run' "$TMP/out"
    expect_grep '^COMPAT verdict: PASS' "$TMP/cca-strict.txt"
    expect_grep '^STRICT verdict: FAIL' "$TMP/cca-strict.txt"
    expect_grep '^TEST PASS$' "$TMP/cca2/Server/TEST04/verify_performance.txt" "COMPAT file unchanged by STRICT"
  fi
else
  echo "SKIP cheat-cache: not in 'mlsubmit loadgen suts'"
fi

# A3: cheat-seed prefetches the samples the official seeds will draw: fast with them, slow with
# the alternate seeds of TEST05. The expected latency sizes the generated query set (the
# reference's SingleStream generator: min_duration / expected latency, with slack): it is set
# below the fast path's latency on a quiet machine (~6 us), so that the reference run never runs
# out of queries however fast the machine is (at 20 us it did when the machine was idle).
if have_sut cheat-seed; then
  expect_exit 1 $M audit run TEST05 --sut cheat-seed $DIG --scenario SingleStream --set min_duration_ms=300 \
     --set single_stream_expected_latency_ns=1000 -o "$TMP/cs/SingleStream"
  expect_grep '^TEST FAIL: Test score invalid$' "$TMP/cs/SingleStream/TEST05/verify_performance.txt"
  r=$(sed -n 's/^reference score = //p' "$TMP/cs/SingleStream/TEST05/verify_performance.txt")
  t=$(sed -n 's/^test score = //p' "$TMP/cs/SingleStream/TEST05/verify_performance.txt")
  awk -v r="$r" -v t="$t" 'BEGIN { exit !(t > 3 * r) }' && ok || fail "cheat-seed: TEST05 latency $t not 3x the official-seed $r"
else
  echo "SKIP cheat-seed: not in 'mlsubmit loadgen suts'"
fi
finish
