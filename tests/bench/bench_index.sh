#!/usr/bin/env bash
# Benchmark of `mlsubmit index`: a full index of a synthetic v5.1 round (tests/e2e/lib/mkround.sh
# --big, BENCH_INDEX_SUBMITTERS x BENCH_INDEX_SYSTEMS system sets; default 10 x 5: ~5,000 files,
# ~230 MB) against a re-index of the unchanged tree (only re-stat'ed, nothing hashed or written),
# and a re-index after one file changed (one file hashed, derived tables rebuilt; a document, so
# that the check still passes: index refuses a tree whose check fails).
# Prints the three wall times (best of BENCH_RUNS, warm cache) and the full/incremental ratio.
# Exits non-zero only if the incremental runs hash more than they should.
set -euo pipefail
: "${MLSUBMIT:?set MLSUBMIT to the mlsubmit binary}"
HERE=$(cd "$(dirname "$0")" && pwd)
GEN=$HERE/../e2e/lib/mkround.sh
SUBS=${BENCH_INDEX_SUBMITTERS:-10}
SYS=${BENCH_INDEX_SYSTEMS:-5}
RUNS=${BENCH_RUNS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/mlsubmit-bench-XXXXXX")
trap 'rm -rf "$T"' EXIT
bash "$GEN" "$T/tpl" --version v5.1 --big --systems "$SYS" >/dev/null
R=$T/round
mkdir -p "$R/closed" "$R/open"
for s in $(seq 1 "$SUBS"); do
  for div in closed open; do
    cp -a "$T/tpl/$div/Org1" "$R/$div/Org$s"
    sed -i "s/\"submitter\": \"Org1\"/\"submitter\": \"Org$s\"/" "$R/$div/Org$s"/systems/*.json
  done
done
rm -rf "$T/tpl"
files=$(find "$R" -type f | wc -l)
bytes=$(du -sb "$R" | cut -f1)
export MLSUBMIT_NO_PROGRESS=1
now() { date +%s%N; }
best() { # best CMD...: best wall time in ms over RUNS runs; output of the last run in $T/o
  local b=0 i s e
  for i in $(seq 1 "$RUNS"); do
    s=$(now); "$@" > "$T/o" 2>&1 || { cat "$T/o" >&2; exit 1; }; e=$(now)
    local ms=$(( (e - s) / 1000000 ))
    if [ "$b" = 0 ] || [ "$ms" -lt "$b" ]; then b=$ms; fi
  done
  echo "$b"
}
cat "$R"/closed/Org1/systems/*.json > /dev/null
full=$(best bash -c "rm -f '$T/i.db'; '$MLSUBMIT' index '$R' --db '$T/i.db' --version v5.1")
grep -q "($files hashed" "$T/o" || { echo "full index: expected $files files hashed: $(cat "$T/o")" >&2; exit 1; }
inc=$(best "$MLSUBMIT" index "$R" --db "$T/i.db" --version v5.1)
grep -q "unchanged: $files files re-stat'ed, nothing hashed or written" "$T/o" ||
  { echo "unchanged re-index hashed or wrote: $(cat "$T/o")" >&2; exit 1; }
one=$(best bash -c "echo x >> '$R/closed/Org1/documentation/calibration.md'; '$MLSUBMIT' index '$R' --db '$T/i.db' --version v5.1")
grep -q "(1 hashed" "$T/o" || { echo "one changed file: expected 1 hashed: $(cat "$T/o")" >&2; exit 1; }
awk -v f="$full" -v i="$inc" -v o="$one" -v n="$files" -v b="$bytes" 'BEGIN {
  printf "index: %d files, %.1f MB (synthetic v5.1 round)\n", n, b / 1e6;
  printf "  full index (hash everything, run the checker, write) : %7d ms\n", f;
  printf "  re-index, unchanged tree (re-stat only)              : %7d ms   full/incremental = %.1fx\n", i, (i > 0 ? f / i : 0);
  printf "  re-index, one file changed (1 hashed, tables rebuilt): %7d ms\n", o }'
