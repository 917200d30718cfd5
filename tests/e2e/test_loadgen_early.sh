#!/usr/bin/env bash
# The LoadGen of the early rules (--loadgen-compat 0.5 to 1.1): the fixed-interval MultiStream
# (a query of N samples every 1/multi_stream_target_qps; an interval the SUT overruns is skipped
# and counted against the query), FindPeakPerformance of the stream count with its stability runs,
# and the text detail log of 0.5/0.7. The SUT is `batch` with one worker: a query of N samples
# takes N x per_sample (a sleep, so machine load only adds wake-up delays). Timing margins are
# wide: the interval is 200 ms and a passing query leaves >= 20 ms of it unused.
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
QPS=5
[ -n "$SLOW_TOOL" ] && QPS=2   # under valgrind: 500 ms intervals
EARLY="--scenario MultiStream --total-samples 256 --set multi_stream_target_qps=$QPS --set min_duration_ms=0 \
  --set min_query_count=5 --set multi_stream_target_latency_percentile=0.9"
SUT="batch:workers=1,max=64,per_sample=20ms"

# ---- an SUT that keeps up: 4 streams take 80 ms of each 200 ms interval ------------------------
expect_exit 0 $M loadgen run $EARLY --loadgen-compat 0.5 --sut "$SUT" --set multi_stream_samples_per_query=4 -o "$TMP/keep"
expect_grep '^Samples per query : 4$' "$TMP/keep/mlperf_log_summary.txt"
expect_grep '^Result is : VALID$' "$TMP/keep/mlperf_log_summary.txt"
expect_grep '^  Performance constraints satisfied : Yes$' "$TMP/keep/mlperf_log_summary.txt"
expect_grep '^Skipped intervals : 0$' "$TMP/keep/mlperf_log_summary.txt"
expect_grep "^Intervals between each IssueQuery:  \"qps\" : $QPS, " "$TMP/keep/mlperf_log_summary.txt"
expect_no_grep 'Early stopping' "$TMP/keep/mlperf_log_summary.txt"
expect_grep 'samples per query 4, 5 queries' "$TMP/out" "result line"

# ---- an SUT that does not: 12 streams take 240 ms, every interval is overrun --------------------
SLOWN=$(( 1000 / QPS / 20 + 2 ))   # 12 (27 under valgrind)
expect_exit 1 $M loadgen run $EARLY --loadgen-compat 0.7 --sut "$SUT" --set multi_stream_samples_per_query=$SLOWN -o "$TMP/slow"
expect_grep '^Result is : INVALID$' "$TMP/slow/mlperf_log_summary.txt"
expect_grep '^  Performance constraints satisfied : NO$' "$TMP/slow/mlperf_log_summary.txt"
expect_grep '^ \* Reduce samples per query to improve latency\.$' "$TMP/slow/mlperf_log_summary.txt"
skipped=$(awk -F' : ' '/^Skipped intervals : / {print $2}' "$TMP/slow/mlperf_log_summary.txt")
overtime=$(awk -F' : ' '/^Overtime queries : / {print $2}' "$TMP/slow/mlperf_log_summary.txt")
[ "${skipped:-0}" -ge 4 ] && ok || fail "12 streams: expected skipped intervals, got '$skipped'"
[ "${overtime:-0}" -ge 4 ] && ok || fail "12 streams: expected overtime queries, got '$overtime'"

# ---- the text detail log of 0.5/0.7: the reference r0.5 LoadGen's entries ('"pid": P, "tid": T,
# "ts": Nns : message', the version block's values on the lines after their entry; no keys, no
# results: those are in the summary)
for d in keep slow; do
  n=$(grep -cE '^"pid": [0-9]+, "tid": [0-9]+, "ts": [0-9]+ns : ' "$TMP/$d/mlperf_log_detail.txt")
  [ "$n" -ge 60 ] && ok || fail "$d: only $n text detail-log entries"
  expect_no_grep ':::MLLOG' "$TMP/$d/mlperf_log_detail.txt"
  expect_no_grep ' : (requested|effective|result)_[a-z_]+ : ' "$TMP/$d/mlperf_log_detail.txt"
done
# round trip (a small reader here; the checker's reader of old text logs, common/textlog.c, reads
# a 0.5 log of the LoadGen in tests/unit/test_api.c text_detail_log_round_trips_through_the_reader):
# the values read back agree with the requested settings
kv() { sed -nE "s/^\"pid\": [0-9]+, \"tid\": [0-9]+, \"ts\": [0-9]+ns : ((ERROR|WARNING) : )?$2 ?: (.*)\$/\\3/p" "$1" | tail -1; }
D="$TMP/slow/mlperf_log_detail.txt"
[ "$(kv "$D" version)" = "0.5a0 @ NA" ] && ok || fail "text log: version '$(kv "$D" version)'"
[ "$(kv "$D" Scenario)" = "Multi Stream" ] && ok || fail "text log: Scenario '$(kv "$D" Scenario)'"
[ "$(kv "$D" multi_stream_target_qps)" = "$QPS" ] && ok || fail "text log: multi_stream_target_qps '$(kv "$D" multi_stream_target_qps)'"
[ "$(kv "$D" multi_stream_samples_per_query)" = "$SLOWN" ] && ok || fail "text log: samples per query"
[ "$(kv "$D" multi_stream_max_async_queries)" = 1 ] && ok || fail "text log: max async queries"
[ "$(kv "$D" "target_latency \\(ns\\)")" = "$((1000000000 / QPS))" ] && ok || fail "text log: target_latency (ns) '$(kv "$D" "target_latency \\(ns\\)")'"
expect_grep ' : Starting performance mode:$' "$D"
expect_grep ' : GeneratedQueries: "queries" : [0-9]+, "samples per query" : '"$SLOWN"', "duration" : [0-9]+$' "$D"
q() { sed -nE 's/.* : GeneratedQueries: "queries" : ([0-9]+),.*/\1/p' "$1"; }
[ "$(q "$D")" = "$(q "$TMP/keep/mlperf_log_detail.txt")" ] && ok ||
  fail "text log: both runs generate the same queries"
# a test whose SUT process dies: the text detail log ends with a text error line
expect_exit 4 timeout 60 $M loadgen run --scenario Offline --mode accuracy --loadgen-compat 0.7 \
  --sut faulty:mode=crash,every=150 --total-samples 200 --performance-samples 200 --set min_duration_ms=0 -o "$TMP/crash"
tail -1 "$TMP/crash/mlperf_log_detail.txt" > "$TMP/last"
expect_grep '^"pid": [0-9]+, "tid": [0-9]+, "ts": [0-9]+ns : ERROR : Test incomplete: ' "$TMP/last"
# LoadGen 1.0 and 1.1 keep the early MultiStream with the :::MLLOG detail log
expect_exit 0 $M loadgen run $EARLY --loadgen-compat 1.1 --sut "$SUT" --set multi_stream_samples_per_query=2 -o "$TMP/v11"
expect_grep '^:::MLLOG \{"key": "requested_multi_stream_target_qps", "value": ' "$TMP/v11/mlperf_log_detail.txt"
expect_grep '^:::MLLOG \{"key": "loadgen_version", "value": "1\.1 @ NA"' "$TMP/v11/mlperf_log_detail.txt"
expect_grep '^Samples per query : 2$' "$TMP/v11/mlperf_log_summary.txt"
# from 2.0 on, MultiStream is SingleStream's successor again (early stopping, latency metric)
expect_exit 1 $M loadgen run $EARLY --loadgen-compat 2.0 --sut "$SUT" --set multi_stream_samples_per_query=2 -o "$TMP/v20"
expect_grep 'Early [Ss]topping' "$TMP/v20/mlperf_log_summary.txt"
expect_no_grep '^Samples per query' "$TMP/v20/mlperf_log_summary.txt"

# before 2.0 there is no early stopping: SingleStream's metric is its target-percentile latency
expect_exit 0 $M loadgen run --scenario SingleStream --loadgen-compat 1.0 --sut latency:fixed=1ms --total-samples 64 \
  --set min_duration_ms=0 --set min_query_count=20 -o "$TMP/ss10"
expect_grep '^90th percentile latency \(ns\) : [0-9]+$' "$TMP/ss10/mlperf_log_summary.txt"
expect_no_grep 'Early stopping' "$TMP/ss10/mlperf_log_summary.txt"
expect_no_grep '"key": "early_stopping' "$TMP/ss10/mlperf_log_detail.txt"
expect_exit 1 $M loadgen run --scenario SingleStream --loadgen-compat 2.0 --sut latency:fixed=1ms --total-samples 64 \
  --set min_duration_ms=0 --set min_query_count=20 -o "$TMP/ss20"
expect_grep '^  Early stopping satisfied: NO$' "$TMP/ss20/mlperf_log_summary.txt"

# ---- FindPeakPerformance: 9 streams take 180 ms, 10 take 200 ms (no room for the LoadGen) ------
expect_exit 0 $M loadgen run $EARLY --loadgen-compat 0.5 --mode findpeak --sut "$SUT" \
  --set multi_stream_samples_per_query=8 -o "$TMP/peak"
cp "$TMP/out" "$TMP/peak.out"
peak=$(sed -nE 's/.*peak ([0-9]+) streams.*/\1/p' "$TMP/peak.out")
limit=$(( 1000 / QPS / 20 - 1 ))   # the largest N with N x 20 ms < the interval
[ -n "$peak" ] && [ "$peak" -ge $((limit - 1)) ] && [ "$peak" -le $((limit + 1)) ] && ok ||
  fail "findpeak: peak '$peak' streams is not within one stream of $limit"
expect_grep '^  1   base +8  pass' "$TMP/peak.out" "findpeak report: the base run"
expect_grep ' boundary +[0-9]+  FAIL' "$TMP/peak.out" "findpeak report: the boundary run"
confirms=$(grep -cE "^  [0-9]+ +confirm +$peak  pass" "$TMP/peak.out")
[ "$confirms" = 5 ] && ok || fail "findpeak: expected 5 passing stability runs at $peak streams, got $confirms"
expect_grep "FindPeakPerformance: Found peak performance field: $peak\$" "$TMP/peak/mlperf_log_detail.txt"
expect_grep '^Mode     : Find Peak Performance$' "$TMP/peak/mlperf_log_summary.txt"
expect_grep "^Samples per query : $peak\$" "$TMP/peak/mlperf_log_summary.txt"
if have_python; then
  python3 - "$TMP/peak/mlperf_log_findpeak.json" "$peak" <<'EOF' && ok || fail "findpeak JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
peak = int(sys.argv[2])
assert d["loadgen_compat"] == "0.5" and d["found"] and d["peak_streams"] == peak, d
t = d["trials"]
assert t[0]["phase"] == "base" and t[0]["streams"] == 8 and t[0]["passed"]
assert [x["streams"] for x in t if x["phase"] == "confirm"][-5:] == [peak] * 5
assert all(x["passed"] == (x["intervals_at_target"] < 2) for x in t)
assert all(x["skipped_intervals"] > 0 for x in t if not x["passed"])
# the search brackets the peak: every count above it that was tried failed at least once (in
# the search, or in a confirmation run: "if one run fails, reduce by one", so a count the
# search passed on a lucky run can sit above the peak with a failed confirmation)
assert all(any(not y["passed"] for y in t if y["streams"] == x["streams"]) for x in t if x["streams"] > peak), t
EOF
fi
# the confirmation rule ("if one run fails, reduce by one and try again") reaches 0 when even one
# stream overruns: 1 x 250 ms > 200 ms (the interval)
expect_exit 1 $M loadgen run $EARLY --loadgen-compat 0.5 --mode findpeak --sut "batch:workers=1,per_sample=$((1250 / QPS))ms" \
  --set multi_stream_samples_per_query=1 -o "$TMP/none"
expect_grep 'peak 0 streams' "$TMP/out"
expect_grep 'no stream count meets the performance constraints' "$TMP/none/mlperf_log_detail.txt"

# ---- usage ------------------------------------------------------------------------------------
expect_exit 2 $M loadgen run --scenario MultiStream --sut null --loadgen-compat 0.6
expect_grep 'expected one of 0\.5, 0\.7, 1\.0, 1\.1, 2\.0, 2\.1, 3\.0, 3\.1, 4\.0, 4\.1, 5\.0, 5\.1, 6\.0' "$TMP/err"
expect_exit 1 $M loadgen run $EARLY --loadgen-compat 0.5 --sut null --set multi_stream_target_qps=0 -o "$TMP/mst0"
expect_grep 'needs multi_stream_target_qps > 0' "$TMP/err"
# each era's mlperf.conf is embedded: 0.5's MultiStream is 4 streams at 20 queries/s
: > "$TMP/user.conf"
expect_exit 0 $M loadgen check-conf "$TMP/user.conf" --model resnet50 --scenario MultiStream --loadgen-compat 0.5 --effective
expect_grep 'multi_stream_target_qps.*20' "$TMP/out"
expect_grep 'multi_stream_samples_per_query.*4' "$TMP/out"
finish
