#!/usr/bin/env bash
# Acceptance: for every trace of ../shared/testdata/traces, `loadgen run --dump-issued` writes a
# byte-identical trace, and the Server runs log the listed generated_query_duration.
. "$(dirname "$0")/lib.sh"
need_shared
T=$SHARED/testdata/traces
S1="--set qsl_rng_seed=2085463073848966840 --set sample_index_rng_seed=2747215439041700203 --set schedule_rng_seed=16159082839903944936"
run_trace() { # name scenario mode total perf settings...
  local name=$1 scen=$2 mode=$3 total=$4 perf=$5; shift 5
  local sets=""
  for kv in "$@"; do sets="$sets --set $kv"; done
  "$MLSUBMIT" loadgen run --scenario "$scen" --mode "$mode" --sut null --total-samples "$total" \
     --performance-samples "$perf" $S1 $sets -o "$TMP/$name" --dump-issued "$TMP/$name.trace" \
     >"$TMP/$name.out" 2>&1
  if cmp -s "$TMP/$name.trace" "$T/$name.trace"; then ok; else
    fail "$name.trace differs: $("$MLSUBMIT" loadgen diff-trace "$TMP/$name.trace" "$T/$name.trace")"; fi
}
run_trace offline_S1 Offline performance 5000 1024 min_duration_ms=2000 min_query_count=1 offline_expected_qps=2000
run_trace ss_S1 SingleStream performance 5000 1024 min_duration_ms=0 min_query_count=3000 max_query_count=3000 single_stream_expected_latency_ns=1000000
run_trace ms_S1 MultiStream performance 3000 256 min_duration_ms=0 min_query_count=700 max_query_count=700 multi_stream_samples_per_query=8 multi_stream_expected_latency_ns=1000000
run_trace server_S1 Server performance 5000 1024 min_duration_ms=0 min_query_count=2000 max_query_count=2000 server_target_qps=2000 server_target_latency_ns=100000000
run_trace offacc_S1 Offline accuracy 3000 700 min_duration_ms=0 min_query_count=1 offline_expected_qps=3000
run_trace ssunique_S1 SingleStream performance 5000 1024 min_duration_ms=0 min_query_count=1024 max_query_count=1024 performance_issue_unique=1 single_stream_expected_latency_ns=1000000
run_trace sssame_S1 SingleStream performance 5000 1024 min_duration_ms=0 min_query_count=1024 max_query_count=1024 performance_issue_same=1 performance_issue_same_index=3 single_stream_expected_latency_ns=1000000

# Server schedules: generated_query_duration for exactly 2000 queries
while read -r tag qps queries dur; do
  qps=${qps#qps=}; queries=${queries#queries=}; want=${dur#generated_query_duration_ns=}
  "$MLSUBMIT" loadgen run --scenario Server --sut null --total-samples 5000 --performance-samples 1024 \
     $S1 --set min_duration_ms=0 --set min_query_count=$queries --set max_query_count=$queries \
     --set server_target_qps=$qps -o "$TMP/dur" >/dev/null 2>&1
  got=$(grep '"key": "generated_query_duration"' "$TMP/dur/mlperf_log_detail.txt" | sed 's/.*"value": \([0-9]*\).*/\1/')
  if [ "$got" = "$want" ]; then ok; else fail "Server qps=$qps: generated_query_duration $got, want $want"; fi
done < "$T/server_durations_S1.txt"
# diff-trace itself: identical, first difference, malformed input named with its line
expect_exit 0 "$MLSUBMIT" loadgen diff-trace "$T/ss_S1.trace" "$T/ss_S1.trace"
expect_grep '^identical: 3001 records \(3000 queries\)' "$TMP/out"
expect_exit 1 "$MLSUBMIT" loadgen diff-trace "$T/ss_S1.trace" "$T/sssame_S1.trace"
expect_grep '^record 2 \(lines 2 / 2, query 1\): position 1 is 179 against 906' "$TMP/out"
printf 'L 1 2 3\nQ 1\nQ x\n' > "$TMP/bad.trace"
expect_exit 3 "$MLSUBMIT" loadgen diff-trace "$TMP/bad.trace" "$T/ss_S1.trace"
expect_grep 'bad.trace:3: .x. is not a sample index' "$TMP/err"
finish
