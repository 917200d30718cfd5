#!/usr/bin/env bash
# Bad input and SUT faults: a clear message and a non-zero exit, never a crash or a hang.
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
RUN="$M loadgen run --scenario SingleStream --total-samples 100 --set min_duration_ms=0 --set min_query_count=200"

expect_exit 0 $M --version
expect_grep '^mlsubmit [0-9]' "$TMP/out"
expect_exit 0 $M help
expect_grep 'loadgen' "$TMP/out"
expect_exit 0 $M help loadgen
expect_exit 2 $M no-such-command
expect_exit 0 $M loadgen run --help
expect_grep 'null' "$TMP/out" "run --help lists the SUTs"

# unknown --set key, with a suggestion
expect_exit 2 $RUN --sut null --set min_query_cont=5 -o "$TMP/a"
expect_grep "unknown setting 'min_query_cont'.*min_query_count" "$TMP/err"
# negative counts
expect_exit 2 $RUN --sut null --set max_query_count=-5 -o "$TMP/a"
expect_grep "max_query_count: '-5'" "$TMP/err"
expect_exit 2 $M loadgen run --scenario Offline --sut null --total-samples -3
expect_grep "total-samples" "$TMP/err"
expect_exit 2 $RUN --sut nosuchsut -o "$TMP/a"
expect_grep "unknown SUT 'nosuchsut'" "$TMP/err"
expect_exit 2 $RUN --sut latency:fixed=abc -o "$TMP/a"
expect_grep "fixed=abc" "$TMP/err"
expect_exit 2 $RUN --sut latency:fixed=1ms,bogus=1 -o "$TMP/a"
expect_grep "unknown option 'bogus'" "$TMP/err"
expect_exit 2 $M loadgen run --scenario Sideways --sut null --total-samples 10
# malformed user.conf line: the file is named with its line and nothing runs
printf '*.*.min_query_count = 5\nresnet50.Offline.target_qps = 100 # trailing\n' > "$TMP/user.conf"
expect_exit 3 $M loadgen run --scenario Offline --sut null --total-samples 10 --model resnet50 --user-conf "$TMP/user.conf" -o "$TMP/b"
expect_grep "user.conf:2: .*not a number" "$TMP/err"
[ ! -e "$TMP/b/mlperf_log_detail.txt" ] && ok || fail "a rejected config still produced logs"
expect_exit 1 $M loadgen check-conf "$TMP/user.conf" --model resnet50 --scenario Offline
expect_grep "user.conf:2: malformed" "$TMP/out"

# an SUT that completes an unknown id / the same id twice: errors in the log, exit 1, no hang
expect_exit 1 timeout 60 $RUN --sut faulty:mode=unknown -o "$TMP/c"
expect_grep '"key": "error_runtime", "value": "Received completion for an unknown sample id' "$TMP/c/mlperf_log_detail.txt"
expect_grep 'ERROR' "$TMP/c/mlperf_log_summary.txt"
expect_exit 1 timeout 60 $RUN --sut faulty:mode=twice -o "$TMP/d"
expect_grep '"value": "Attempted to complete a sample twice."' "$TMP/d/mlperf_log_detail.txt"
# an SUT that never answers: the timeout names the outstanding ids, logs are written
start=$(date +%s)
expect_exit 4 timeout 60 $RUN --sut faulty:mode=never --timeout 1s -o "$TMP/e"
[ $(( $(date +%s) - start )) -lt 20 ] && ok || fail "timeout took too long"
expect_grep 'did not complete any sample for 1.000 s.*outstanding ids: 1' "$TMP/err"
expect_grep '"is_error": true' "$TMP/e/mlperf_log_detail.txt"
expect_exit 4 timeout 60 $M loadgen run --scenario Server --total-samples 100 --set min_duration_ms=0 \
   --set min_query_count=200 --set server_target_qps=10000 --sut faulty:mode=drop,every=50 --timeout 1s -o "$TMP/f"
expect_grep 'outstanding ids: 50 100 150 200' "$TMP/err"
# answers from many threads at once: fine (a 1 s latency bound: with a core kept busy by another
# process, a thread per query at 3000 QPS exceeded the default 100 ms at the 99th percentile)
expect_exit 0 timeout 120 $M loadgen run --scenario Server --total-samples 100 --set min_duration_ms=300 \
   --set server_target_qps=3000 --set server_target_latency_ns=1000000000 --sut faulty:mode=threads -o "$TMP/g"
expect_grep '^Result is : VALID' "$TMP/g/mlperf_log_summary.txt"
# an SUT that crashes the process mid-run: the logs written so far are in place, the detail log
# ends with an error saying the test is incomplete, the accuracy log is valid JSON, no temp files
expect_exit 4 timeout 60 $M loadgen run --scenario Offline --mode accuracy --sut faulty:mode=crash,every=150 \
   --total-samples 200 --performance-samples 200 --set min_duration_ms=0 --dump-issued "$TMP/crash.trace" -o "$TMP/crash"
# (under AddressSanitizer the SEGV is reported and the child exits 1: the same handling applies)
expect_grep 'died with signal 11|exited with status 1 before the test ended' "$TMP/err"
expect_grep '"key": "loaded_qsl_set"' "$TMP/crash/mlperf_log_detail.txt"
tail -1 "$TMP/crash/mlperf_log_detail.txt" > "$TMP/last"
expect_grep '"key": "error_runtime", "value": "Test incomplete: the process running the SUT (died with signal 11|exited with status 1)' "$TMP/last"
expect_grep '^1 ERROR encountered' "$TMP/crash/mlperf_log_summary.txt"
n=$(grep -c '"seq_id"' "$TMP/crash/mlperf_log_accuracy.json")
[ "$n" -le 149 ] && tail -c 3 "$TMP/crash/mlperf_log_accuracy.json" | grep -q ']' && ok || fail "accuracy log after a crash ($n entries)"
{ ! have_python || python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$TMP/crash/mlperf_log_accuracy.json"; } && ok || fail "accuracy log after a crash is not JSON"
[ -z "$(ls -A "$TMP/crash" | grep '^\.')" ] && [ ! -e "$TMP/crash.trace" ] && ok || fail "temporary files left after a crash"

# performance_issue_same_index out of range: error_invalid_test_settings
expect_exit 1 $RUN --sut null --set performance_issue_same=1 --set performance_issue_same_index=500 --performance-samples 16 -o "$TMP/h"
expect_grep 'error_invalid_test_settings' "$TMP/h/mlperf_log_detail.txt"
# FindPeakPerformance outside Server
expect_exit 1 $RUN --sut null --mode findpeak -o "$TMP/i"
expect_grep 'Finding peak performance is only supported in Server scenarios' "$TMP/i/mlperf_log_detail.txt"
# unwritable output directory
expect_exit 4 $RUN --sut null -o /proc/nonexistent/x
finish
