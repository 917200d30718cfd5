#!/usr/bin/env bash
# Benchmark of `mlsubmit check` on a synthetic v5.1 round of at least 50,000 files and 2 GB
# (generated here with tests/e2e/lib/mkround.sh --big, never committed): 50 submitters x 10
# system sets, each with closed resnet50 SingleStream/MultiStream/Offline (TEST01, TEST04, power
# on Offline) and llama3.1-8b Offline/Server (TEST06), and an open mobilenet-v2 result; detail
# logs of ~95 KB (loadgen_file_sha1, loaded_qsl_set) and performance-mode accuracy logs of
# ~440 KB, like real submissions.
#
# Measures warm-cache wall time and peak RSS (/usr/bin/time -v) with all cores and with one,
# and prints them against the targets (< 2 s, < 100 MB on the 2-core reference machine).
# Exits non-zero only if the verdict on the valid round is wrong.
# Knobs: BENCH_SUBMITTERS, BENCH_SYSTEMS, BENCH_RUNS, TMPDIR.
set -euo pipefail
: "${MLSUBMIT:?set MLSUBMIT to the mlsubmit binary}"
HERE=$(cd "$(dirname "$0")" && pwd)
GEN=$HERE/../e2e/lib/mkround.sh
SUBS=${BENCH_SUBMITTERS:-50}
SYS=${BENCH_SYSTEMS:-10}
RUNS=${BENCH_RUNS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/mlsubmit-bench-XXXXXX")
[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT

t0=$(date +%s.%N)
bash "$GEN" "$T/tpl" --version v5.1 --big --systems "$SYS"
R=$T/round
mkdir -p "$R/closed" "$R/open"
cp "$T/tpl/README.md" "$R/"
for s in $(seq 1 "$SUBS"); do
  for div in closed open; do
    cp -a "$T/tpl/$div/Org1" "$R/$div/Org$s"
    sed -i "s/\"submitter\": \"Org1\"/\"submitter\": \"Org$s\"/" "$R/$div/Org$s"/systems/*.json
  done
done
rm -rf "$T/tpl"
files=$(find "$R" -type f | wc -l)
bytes=$(du -sb "$R" | cut -f1)
logs=$(find "$R" -name mlperf_log_detail.txt | wc -l)
logbytes=$(find "$R" -name mlperf_log_detail.txt -printf '%s\n' | awk '{s += $1} END {print s}')
t1=$(date +%s.%N)
calc() { awk "BEGIN { print $* }"; }
printf 'round: %d files, %.2f GB (%d detail logs, %.0f MB of them), generated in %.0f s\n' \
  "$files" "$(calc "$bytes / 1e9")" "$logs" "$(calc "$logbytes / 1e6")" "$(calc "$t1 - $t0")"
if [ "$files" -lt 50000 ] || [ "$bytes" -lt 2000000000 ]; then
  echo "bench_check: the round is smaller than 50,000 files / 2 GB; raise BENCH_SUBMITTERS" >&2
  exit 1
fi

# warm the page cache with one untimed run
"$MLSUBMIT" check "$R" --version v5.1 --no-csv >/dev/null || { echo "bench_check: the valid round does not pass" >&2; exit 1; }

measure() { # measure [JOBS] -> prints "wall_s rss_kb" of the best of RUNS runs (no JOBS: default)
  local best_w=999999 best_r=0 w r
  for _ in $(seq 1 "$RUNS"); do
    /usr/bin/time -v "$MLSUBMIT" check "$R" --version v5.1 ${1:+--jobs "$1"} --csv "$T/summary.csv" \
      >"$T/out.txt" 2>"$T/time.txt"
    w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$T/time.txt")
    r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$T/time.txt")
    if [ "$(calc "$w < $best_w")" = 1 ]; then best_w=$w; fi
    if [ "$r" -gt "$best_r" ]; then best_r=$r; fi
  done
  echo "$best_w $best_r"
}
cores=$(nproc)
read -r wall_all rss_all < <(measure)
read -r wall_one rss_one < <(measure 1)
grep -q '^SUMMARY: submission looks OK$' "$T/out.txt" || { echo "bench_check: wrong verdict" >&2; tail "$T/out.txt" >&2; exit 1; }
results=$(grep -o '^Results=[0-9]*' "$T/out.txt" | cut -d= -f2)
rows=$(($(wc -l <"$T/summary.csv") - 1))
printf 'verdict: looks OK, %s results, %d summary.csv rows\n' "$results" "$rows"
printf 'check, %d cores: wall %.2f s, peak RSS %.1f MB   (target < 2 s, < 100 MB: %s)\n' "$cores" \
  "$wall_all" "$(calc "$rss_all / 1024")" \
  "$([ "$(calc "($wall_all < 2) && ($rss_all < 102400)")" = 1 ] && echo met || echo MISSED)"
printf 'check, 1 job:   wall %.2f s, peak RSS %.1f MB   (parallel speed-up x%.2f)\n' "$wall_one" \
  "$(calc "$rss_one / 1024")" "$(calc "$wall_one / $wall_all")"
printf 'throughput, %d cores: %.0f files/s, %.0f MB/s of detail logs parsed\n' "$cores" \
  "$(calc "$files / $wall_all")" "$(calc "$logbytes / 1e6 / $wall_all")"
