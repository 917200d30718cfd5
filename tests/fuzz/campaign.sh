#!/usr/bin/env bash
# Runs every harness for up to FUZZ_SECONDS (default 600) or 10 million executions, whichever
# comes first, JOBS at a time, and prints executions, coverage and findings per harness.
# Usage: tests/fuzz/campaign.sh [harness...]   (after `make fuzz-build`)
#        REPORT_ONLY=1 tests/fuzz/campaign.sh     (the table of the last campaign)
set -u
SECS=${FUZZ_SECONDS:-600}
JOBS=${JOBS:-2}
cd "$(dirname "$0")/../.."
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls tests/fuzz/fuzz_*.c | sed 's,.*/fuzz_,,; s,\.c$,,'))
run_one() {
  local f=$1
  mkdir -p build-fuzz/corpus/$f build-fuzz/crashes/$f
  cp -n tests/fuzz/corpus/$f/* build-fuzz/corpus/$f/ 2>/dev/null
  build-fuzz/fuzz_$f -max_total_time=$SECS -runs=10000000 -print_final_stats=1 -max_len=1048576 \
    -artifact_prefix=build-fuzz/crashes/$f/ build-fuzz/corpus/$f > build-fuzz/campaign-$f.log 2>&1
  echo $? > build-fuzz/campaign-$f.rc
}
export -f run_one
export SECS
[ -n "${REPORT_ONLY:-}" ] || printf '%s\n' "${names[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
printf '%-14s %12s %8s %8s %10s %s\n' harness executions cov ft seconds result
for f in "${names[@]}"; do
  log=build-fuzz/campaign-$f.log
  execs=$(grep -m1 '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
  cov=$(echo "$done_line" | grep -o 'cov: [0-9]*' | awk '{print $2}')
  ft=$(echo "$done_line" | grep -o 'ft: [0-9]*' | awk '{print $2}')
  secs=$(grep -m1 'Done [0-9]* runs in' "$log" | grep -o 'in [0-9]* second' | awk '{print $2}')
  rc=$(cat build-fuzz/campaign-$f.rc)
  res=clean; [ "$rc" = 0 ] || res="FAILED (exit $rc, see $log)"
  grep -q 'ERROR: \(AddressSanitizer\|LeakSanitizer\|libFuzzer\)\|runtime error:' "$log" && res="FINDING (see $log)"
  printf '%-14s %12s %8s %8s %10s %s\n' "$f" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${secs:-?}" "$res"
done
