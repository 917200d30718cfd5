# Power-session helpers shared by mkround.sh and the checker's mutation tests (sourced).
# The result files whose SHA-1 client.json and server.json record (the Power WG checker's list,
# without the two session files themselves).
POWER_RESULT_FILES="power/client.log power/ptd_logs.txt power/server.log ranging/mlperf_log_detail.txt ranging/mlperf_log_summary.txt ranging/spl.txt run_1/mlperf_log_detail.txt run_1/mlperf_log_summary.txt run_1/spl.txt"

power_rehash() { # power_rehash PERF_DIR: re-record the SHA-1 of every result file (after an edit)
  local p=$1 f h
  for f in $POWER_RESULT_FILES; do
    h=$(sha1sum "$p/$f" | cut -c1-40)
    sed -i "s|\"$f\": \"[0-9a-f]*\"|\"$f\": \"$h\"|" "$p/power/client.json" "$p/power/server.json"
  done
}
