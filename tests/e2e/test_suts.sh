#!/usr/bin/env bash
# The reference SUTs of issue 3 end to end: tokens (TTFT/TPOT in Server, token payloads), and
# each cheater faster than its honest twin in the situation it exploits, with the bytes it is
# documented to return; bad options give a clear error and a non-zero exit.
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT

# ---- tokens (no dataset needed) ----------------------------------------------------------------
T="tokens:ttft=2ms,tpot=100us,len=8..24,seed=3"
# (latency bounds of 1 s TTFT and 100 ms TPOT keep the run VALID on a busy machine: with a core
# kept busy by another process, 50 ms / 5 ms made it INVALID)
expect_exit 0 $M loadgen run --scenario Server --mode performance --sut $T --total-samples 1000 \
   --set min_duration_ms=200 --set min_query_count=600 --set server_target_qps=2000 --set use_token_latencies=1 \
   --set server_ttft_latency=1000000000 --set server_tpot_latency=100000000 -o "$TMP/tok"
S="$TMP/tok/mlperf_log_summary.txt"
expect_grep '^SUT name : tokens \(ttft 2000000 ns, tpot 100000 ns, 8\.\.24 tokens, seed 3\)' "$S"
expect_grep '^Completed tokens per second' "$S"
expect_grep '^Mean First Token latency \(ns\) +: [0-9]+' "$S"
expect_grep '^Mean Time to Output Token \(ns\) +: [0-9]+|^Mean Time per Output Token \(ns\) +: [0-9]+' "$S"
expect_grep '^TTFT Early Stopping Result:' "$S"
expect_grep '^TPOT Early Stopping Result:' "$S"
# first-token latency is at least ttft; the median stays near it
p50=$(awk -F: '/^50.00 percentile first token latency/ {gsub(/ /, "", $2); print $2}' "$S")
# (the upper bound is a timing outcome: not checked under valgrind)
[ -n "$p50" ] && [ "$p50" -ge 2000000 ] && { [ -n "$SLOW_TOOL" ] || [ "$p50" -lt 20000000 ]; } && ok || fail "tokens: p50 TTFT $p50 ns"
# accuracy mode: token_data (the first token) then token_count, payload = 4 bytes per token,
# the same bytes for the same sample in another run
for r in a b; do
  expect_exit 0 $M loadgen run --scenario Server --mode accuracy --sut $T --total-samples 40 \
     --set server_target_qps=2000 --set use_token_latencies=1 -o "$TMP/tacc$r"
done
A="$TMP/tacca/mlperf_log_accuracy.json"
expect_grep '^\{ "seq_id" : [0-9]+, "qsl_idx" : [0-9]+, "data" : "[0-9A-F]+", "token_data" : "[0-9A-F]{8}", "token_count" : [0-9]+ \},?$' "$A"
bad=$(awk -F'"' '/seq_id/ { split($0, c, "\"token_count\" : "); n = c[2] + 0;
        if (length($8) != 8 * n || n < 8 || n > 24 || substr($8, 1, 8) != $12) print }' "$A" | wc -l)
[ "$bad" = 0 ] && ok || fail "tokens: $bad entries with a payload that is not token_count tokens starting with token_data"
# entries compared without seq_id and without the separating comma: the entry that completes
# last (no comma) is a matter of timing (it differed under valgrind on a loaded machine)
norm() { sed -E 's/"seq_id" : [0-9]+, //; s/\},$/}/' "$1" | sort; }
[ "$(norm "$A")" = "$(norm "$TMP/taccb/mlperf_log_accuracy.json")" ] && ok || fail "tokens: payloads differ between runs"
expect_exit 0 $M loadgen run --scenario Offline --mode performance --sut $T --total-samples 100 \
   --set min_duration_ms=1 --set offline_expected_qps=10000 --set use_token_latencies=1 -o "$TMP/toff"
expect_grep '^Tokens per second' "$TMP/toff/mlperf_log_summary.txt"

# ---- bad options ---------------------------------------------------------------------------------
badopt() { # exit, spec, message regex
  expect_exit "$1" $M loadgen run --scenario Offline --sut "$2" --total-samples 10 -o "$TMP/bad"
  expect_grep "$3" "$TMP/err" "--sut $2"
}
badopt 2 tokens:len=1..3 'option len: expected LO\.\.HI with 2 <= LO'
badopt 2 tokens:len=9..3 "option 'len=9\.\.3' is not a range"
badopt 2 tokens:ttft=soon "option 'ttft=soon' is not a duration"
badopt 2 tokens:tpot=5ms,colour=red "unknown option 'colour'"
badopt 2 digits:workers=0 "option 'workers=0' must be an integer in \[1, 256\]"
badopt 2 digits:cost=fast "option 'cost=fast' is not a duration"
badopt 2 digits:int8=yes "option 'int8=yes': int8 is a flag and takes no value"
badopt 2 cheat-cache:cap=0 'option cap: expected .all. or an integer >= 1'
badopt 2 cheat-cache:cap=lots 'option cap: expected .all. or an integer >= 1'
badopt 2 cheat-seed:round=4.2 "option round: expected a round with an embedded mlperf.conf"
badopt 2 cheat-seed:round=6.0,seed=5 'either seed=N or round=R'
badopt 2 cheat-seed:fetch=-1ms "fetch"
badopt 2 cheat-perf:batch=0 "option 'batch=0'"

CSV=${MLSUBMIT_DATA:-data}/digits/digits.csv.gz
if [ ! -f "$CSV" ]; then echo "SKIP digits-based SUTs: $CSV is absent (run make data)"; finish; exit $?; fi
D="$TMP/data"
mkdir -p "$D/digits"
cp "$CSV" "$D/digits/"
expect_exit 0 $M digits train --data "$D/digits"
RUN="$M loadgen run --data $D"
expect_exit 3 $RUN --scenario Offline --sut digits:data="$TMP/none"
expect_grep "none: no digits dataset \\(digits.csv.gz\\); tried $TMP/none/digits, $TMP/none\$" "$TMP/err"
expect_exit 2 $RUN --scenario Offline --sut digits --total-samples 600
expect_grep 'the digits QSL has 537 samples' "$TMP/err"

# a performance run that must complete (VALID or INVALID for its short duration: exit 0 or 1)
expect_ran() {
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" = 0 ] || [ "$got" = 1 ]; then ok; else fail "exit $got (wanted 0 or 1): $*"; sed 's/^/  stderr: /' "$TMP/err" | head -5 >&2; fi
}
# Offline score (samples/s) of a summary
offline_qps() { awk -F: '/^Samples per second/ {gsub(/ /, "", $2); print $2}' "$1/mlperf_log_summary.txt"; }
# faster A B FACTOR: A > FACTOR * B (floating point)
faster() { [ -n "$SLOW_TOOL" ] && return 0; awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a > f * b) }'; }

# ---- cheat-perf: honest in accuracy mode, FF FF FF FF in performance mode, faster ---------------
# The honest runs pay a 200 us device cost per sample (sleep-bound: at most 10k samples/s with 2
# workers) so that the 5x margins hold on a busy machine: at 20 us, with a core kept busy by
# another process, the honest runs were CPU-bound and the ratios fell to 4.2x.
OFF="--scenario Offline --set min_duration_ms=50"
expect_exit 0 $RUN $OFF --mode accuracy --sut cheat-perf -o "$TMP/cp-acc"
expect_exit 0 $M accuracy digits "$TMP/cp-acc/mlperf_log_accuracy.json" --data "$D/digits"
expect_grep '^accuracy=96\.648%' "$TMP/out" "cheat-perf accuracy mode"
expect_ran $RUN $OFF --mode performance --sut cheat-perf:cost=200us --set offline_expected_qps=200000 \
   --set accuracy_log_probability=1 -o "$TMP/cp-perf"
[ "$(grep -c '"data" : "FFFFFFFF"' "$TMP/cp-perf/mlperf_log_accuracy.json")" = "$(grep -c seq_id "$TMP/cp-perf/mlperf_log_accuracy.json")" ] \
  && ok || fail "cheat-perf: performance-mode responses are not all FFFFFFFF"
expect_exit 1 $M accuracy digits "$TMP/cp-perf/mlperf_log_accuracy.json" --data "$D/digits" -o "$TMP/cp.txt"
expect_grep '^accuracy=0\.000%' "$TMP/cp.txt" "cheat-perf performance accuracy"
expect_ran $RUN $OFF --mode performance --sut digits:cost=200us --set offline_expected_qps=20000 -o "$TMP/cp-honest"
a=$(offline_qps "$TMP/cp-perf"); b=$(offline_qps "$TMP/cp-honest")
faster "$a" "$b" 5 && ok || fail "cheat-perf ($a samples/s) not 5x faster than digits ($b) in performance mode"
# a submission run: the accuracy part is honest, the performance part is garbage
expect_ran $RUN $OFF --mode submission --sut cheat-perf --set offline_expected_qps=200000 \
   --set accuracy_log_probability=1 -o "$TMP/cp-sub"
[ "$(head -538 "$TMP/cp-sub/mlperf_log_accuracy.json" | grep -c FFFFFFFF)" = 0 ] && ok || fail "cheat-perf: garbage in the accuracy part"
[ "$(tail -n +539 "$TMP/cp-sub/mlperf_log_accuracy.json" | grep -c FFFFFFFF)" -gt 1000 ] && ok || fail "cheat-perf: no garbage in the performance part"

# ---- cheat-cache: same-index run (TEST04) much faster than digits, cached = correct bytes --------
SAME="--set performance_issue_same=1 --set performance_issue_same_index=3"
expect_ran $RUN $OFF --mode performance --sut cheat-cache:cost=200us $SAME --set offline_expected_qps=200000 \
   --set accuracy_log_probability=1 -o "$TMP/cc-same"
expect_ran $RUN $OFF --mode performance --sut digits:cost=200us $SAME --set offline_expected_qps=20000 -o "$TMP/cc-honest"
a=$(offline_qps "$TMP/cc-same"); b=$(offline_qps "$TMP/cc-honest")
faster "$a" "$b" 5 && ok || fail "cheat-cache ($a samples/s) not 5x faster than digits ($b) on the same index"
# every response is the honest answer for that sample (cached bytes)
want=$(grep -o '"qsl_idx" : [0-9]*, "data" : "[0-9A-F]*"' "$TMP/cp-acc/mlperf_log_accuracy.json" | sort -u)
got=$(grep -o '"qsl_idx" : [0-9]*, "data" : "[0-9A-F]*"' "$TMP/cc-same/mlperf_log_accuracy.json" | sort -u)
[ "$(echo "$got" | wc -l)" = 1 ] && echo "$want" | grep -qxF "$got" && ok || fail "cheat-cache: same-index responses: $got"
# cap=all: the normal performance run is served from the cache too (the blind spot of
# upstream TEST04), while cap=64 misses every time under Offline's cyclic order
expect_ran $RUN $OFF --mode performance --sut cheat-cache:cap=all,cost=200us --set offline_expected_qps=200000 -o "$TMP/cc-all"
# (the runs compared with each other last 300 ms: on a busy machine a 50 ms run is one stall)
OFF3="--scenario Offline --set min_duration_ms=300"
expect_ran $RUN $OFF3 --mode performance --sut cheat-cache:cap=64,cost=200us --set offline_expected_qps=20000 -o "$TMP/cc-64"
a=$(offline_qps "$TMP/cc-all"); b=$(offline_qps "$TMP/cc-64")
faster "$a" "$b" 5 && ok || fail "cheat-cache cap=all ($a samples/s) not 5x faster than cap=64 ($b) on a normal run"
# cap=64 must run like honest digits under the same settings (both sleep cost x batch): compare
# with an honest run of exactly these settings, best of two each, so machine load cancels out
expect_ran $RUN $OFF3 --mode performance --sut digits:cost=200us --set offline_expected_qps=20000 -o "$TMP/cc-hn1"
expect_ran $RUN $OFF3 --mode performance --sut cheat-cache:cap=64,cost=200us --set offline_expected_qps=20000 -o "$TMP/cc-64b"
expect_ran $RUN $OFF3 --mode performance --sut digits:cost=200us --set offline_expected_qps=20000 -o "$TMP/cc-hn2"
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a : b) }'; }
h=$(best "$(offline_qps "$TMP/cc-hn1")" "$(offline_qps "$TMP/cc-hn2")")
c=$(best "$b" "$(offline_qps "$TMP/cc-64b")")
faster "$h" "$c" 0.5 && faster "$c" "$h" 0.5 && ok || fail "cheat-cache cap=64 ($c samples/s) on a normal run is not like digits ($h)"

# ---- cheat-seed: fast with the official seeds, slow with TEST05's alternates ----------------------
# the official seeds come from the embedded mlperf.conf, applied with the first user.conf.
# 1000 queries: the cheat pays the fetch on the 16 it watches before locking on and on the first
# after (1.7% of the run); with 300 that was 5.7%, and a loaded machine (a parallel `make test`)
# delaying another 4% of the queries by a millisecond put the p90 of the official seeds at the
# fetch (CI: 1.08 ms against 1.47 ms)
: > "$TMP/user.conf"
SS="--scenario SingleStream --mode performance --user-conf $TMP/user.conf --model digits --set min_duration_ms=0 --set min_query_count=1000 --set single_stream_expected_latency_ns=100000"
p90() { awk -F: '/^90.00 percentile latency/ {gsub(/ /, "", $2); print $2}' "$1/mlperf_log_summary.txt"; }
expect_exit 0 $RUN $SS --sut cheat-seed:fetch=1ms -o "$TMP/cs-official"
expect_exit 0 $RUN $SS --sut cheat-seed:fetch=1ms --set sample_index_rng_seed=11403566307062068064 \
   --set qsl_rng_seed=7975553102935885558 --set schedule_rng_seed=15816800565822761601 -o "$TMP/cs-alt"
a=$(p90 "$TMP/cs-official"); b=$(p90 "$TMP/cs-alt")
faster "$b" "$a" 3 && ok || fail "cheat-seed: p90 with official seeds $a ns is not 3x below the alternate seeds' $b ns"
[ "${b:-0}" -ge 1000000 ] && ok || fail "cheat-seed: alternate seeds should pay the 1 ms fetch (p90 $b ns)"
# the round option picks the other round's seed: with the 6.0 (default) seeds it then misses
expect_exit 0 $RUN $SS --sut cheat-seed:fetch=1ms,round=5.1 -o "$TMP/cs-51"
faster "$(p90 "$TMP/cs-51")" "$a" 3 && ok || fail "cheat-seed round=5.1 should not predict the 6.0 seeds"
# its answers are honest: accuracy mode meets the target
expect_exit 0 $RUN --scenario SingleStream --mode accuracy --sut cheat-seed:fetch=10us -o "$TMP/cs-acc"
expect_exit 0 $M accuracy digits "$TMP/cs-acc/mlperf_log_accuracy.json" --data "$D/digits"

finish
