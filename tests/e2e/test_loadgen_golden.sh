#!/usr/bin/env bash
# Golden layout: our mlperf_log_summary.txt matches a real one line by line (values aside) for
# every scenario / token-mode / equal-issue combination found in ../shared/testdata.
. "$(dirname "$0")/lib.sh"
need_shared
norm() { # keep labels, drop values
  sed -E -e 's/^SUT name : .*/SUT name : X/' -e 's/[0-9]+(\.[0-9]+)?(e[+-][0-9]+)?/N/g' "$1"
}
pick() { # scenario token(0/1) concat(0/1): first real performance summary of that kind
  for f in $(find "$SHARED/testdata" -path '*performance*' -name mlperf_log_summary.txt | sort); do
    grep -q "^Scenario : $1\$" "$f" || continue
    [ "$(grep -c '^ttft_latency' "$f")" = "$2" ] || continue
    [ "$(grep -c '^WARNING: sample_concat' "$f")" = "$3" ] || continue
    grep -q '^Result is : VALID' "$f" || continue
    grep -q '^No errors encountered' "$f" || continue
    grep -q '^No warnings encountered' "$f" || continue
    echo "$f"; return
  done
}
golden() { # name scenario token concat sut settings...
  local name=$1 scen=$2 tok=$3 cat=$4 sut=$5; shift 5
  local real; real=$(pick "$scen" "$tok" "$cat")
  if [ -z "$real" ]; then echo "  (no real $scen tok=$tok concat=$cat summary; skipped)"; return; fi
  local sets="--set use_token_latencies=$tok --set sample_concatenate_permutation=$cat"
  for kv in "$@"; do sets="$sets --set $kv"; done
  "$MLSUBMIT" loadgen run --scenario "$scen" --sut "$sut" --total-samples 256 --performance-samples 64 \
     --loadgen-compat 5.1 $sets -o "$TMP/$name" >"$TMP/$name.out" 2>&1
  norm "$real" > "$TMP/$name.want"
  norm "$TMP/$name/mlperf_log_summary.txt" > "$TMP/$name.got"
  # Short runs may draw the reference's clock-ratio warning (the two clocks are compared in
  # whole milliseconds); when that is the only warning, it is not a layout difference.
  local w c
  w=$(grep -c '"is_warning": true' "$TMP/$name/mlperf_log_detail.txt")
  c=$(grep -c 'PerfClock and system_clock differ by more than 0.1%' "$TMP/$name/mlperf_log_detail.txt")
  if [ "$w" -gt 0 ] && [ "$w" = "$c" ]; then
    sed -i -E 's/^N warnings? encountered\. See detailed log\.$/No warnings encountered during test./' "$TMP/$name.got"
  fi
  if diff -u "$TMP/$name.want" "$TMP/$name.got" > "$TMP/$name.diff"; then ok; else
    fail "$name: summary layout differs from $real"; head -20 "$TMP/$name.diff" >&2; fi
}
golden ss SingleStream 0 0 latency:fixed=200us min_duration_ms=300 single_stream_expected_latency_ns=200000
golden ss_tok SingleStream 1 1 null:tokens=64 min_duration_ms=100 single_stream_expected_latency_ns=100
golden off Offline 0 0 latency:fixed=150ms min_duration_ms=100 offline_expected_qps=1000
golden off_tok Offline 1 1 latency:fixed=150ms,tokens=64 min_duration_ms=100 offline_expected_qps=1000
golden srv Server 0 0 null min_duration_ms=200 server_target_qps=5000
golden srv_tok Server 1 1 null:tokens=64 min_duration_ms=200 server_target_qps=5000
finish
