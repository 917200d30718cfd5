#!/usr/bin/env bash
# Durability: writing commands are killed (SIGKILL) at random points, many times; afterwards every
# output file present must be complete (byte-identical to an uninterrupted run where the output
# is deterministic, well-formed otherwise). Outputs are unnamed until complete, so a kill leaves
# nothing -- except in the microseconds between naming a complete replacement and renaming it
# over the old file: such a temporary must be complete too, and the next run removes it.
#   DURABILITY_ROUNDS (default 12) kills per command.
. "$(dirname "$0")/lib.sh"
ROUNDS=${DURABILITY_ROUNDS:-12}
M=$MLSUBMIT
W=$TMP/w
mkdir -p "$W/data"
for i in $(seq 1 40); do head -c $((i * 20000)) /dev/urandom > "$W/data/f$i.bin"; done
bash "$REPO/tests/e2e/lib/mkround.sh" "$W/round" --version v5.1 >/dev/null

# kill_loop NAME OUTDIR MAXMS cmd...: runs cmd ROUNDS times, each killed after a random delay
kill_loop() {
  local name=$1 out=$2 maxms=$3; shift 3
  local k
  for k in $(seq 1 "$ROUNDS"); do
    "$@" >/dev/null 2>&1 &
    local pid=$!
    sleep "$(awk -v m="$maxms" -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % (m + 1)) / 1000 }')"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    "$CHECK" "$name" "$out" || return
  done
  ok
  # an uninterrupted run afterwards leaves no temporary of the killed ones
  "$@" >/dev/null 2>&1
  if find "$out" -name '*.tmp.*' 2>/dev/null | grep -q .; then
    fail "$name: temporaries remain after a complete run: $(find "$out" -name '*.tmp.*' | head -2)"
  else ok; fi
}
# the output a temporary stands for: .NAME.tmp.PID.XXXXXX or NAME.tmp.PID
final_of() { local b; b=$(basename "$1"); b=${b#.}; echo "${b%%.tmp.*}"; }

# deterministic outputs: present means identical to the uninterrupted run's
same_as_reference() { # name out: each file in out (temporaries included) equals its reference
  local f
  for f in $(cd "$2" && find . -type f); do
    cmp -s "$2/$f" "$REF/$(final_of "$f")" || { fail "$1: $f present but incomplete or different"; return 1; }
  done
  return 0
}

# dataset manifest -o (hashing 16 MB takes long enough to be killed mid-way)
REF=$TMP/ref-manifest; mkdir -p "$REF"
"$M" dataset manifest "$W/data" -o "$REF/m.sha256" >/dev/null 2>&1 || fail "manifest reference run"
CHECK=same_as_reference
mkdir -p "$TMP/o1"
kill_loop manifest "$TMP/o1" 40 "$M" dataset manifest "$W/data" -o "$TMP/o1/m.sha256"

# check --csv --json (the JSON holds no clock, so both are deterministic)
REF=$TMP/ref-check; mkdir -p "$REF"
"$M" check "$W/round" --version v5.1 --csv "$REF/s.csv" --json "$REF/f.json" >/dev/null 2>&1
mkdir -p "$TMP/o2"
kill_loop check "$TMP/o2" 30 "$M" check "$W/round" --version v5.1 --csv "$TMP/o2/s.csv" --json "$TMP/o2/f.json"

# index (SQLite) and package (tarball + .sha256): every file present is a complete output
db_ok() { # name out: every database present (temporaries included) opens and holds the files table
  local f
  for f in $(cd "$2" && find . -type f -name '*.db*' ! -name '*-journal'); do
    "$M" query "$2/$f" "SELECT count(*) FROM files" >/dev/null 2>&1 || { fail "$1: $f is not a complete index"; return 1; }
  done
  return 0
}
CHECK=db_ok
mkdir -p "$TMP/o4"
kill_loop index "$TMP/o4" 150 "$M" index "$W/round" --db "$TMP/o4/i.db" --full --no-check
REF=$TMP/ref-package; mkdir -p "$REF"
"$M" package "$W/round" -o "$REF/p.tar.gz" --force >/dev/null 2>&1 || fail "package reference run"
CHECK=same_as_reference
mkdir -p "$TMP/o5"
kill_loop package "$TMP/o5" 150 "$M" package "$W/round" -o "$TMP/o5/p.tar.gz" --force

# loadgen run: logs are complete files or absent (the run is killed with its supervisor)
logs_complete() { # name out
  local d=$2
  [ -e "$d/mlperf_log_detail.txt" ] || return 0
  tail -1 "$d/mlperf_log_detail.txt" | grep -q '"key": "num_errors"' || { fail "$1: detail log incomplete"; return 1; }
  tail -1 "$d/mlperf_log_summary.txt" | grep -qE 'encountered' || { fail "$1: summary incomplete"; return 1; }
  tail -c 2 "$d/mlperf_log_accuracy.json" | grep -q ']' || { fail "$1: accuracy log incomplete"; return 1; }
  return 0
}
CHECK=logs_complete
mkdir -p "$TMP/o3"
kill_loop loadgen "$TMP/o3" 400 "$M" loadgen run --scenario Server --sut latency:fixed=1ms --total-samples 100 \
   --set min_duration_ms=250 --set server_target_qps=2000 --set accuracy_log_probability=0.5 -o "$TMP/o3" \
   --dump-issued "$TMP/o3/issued.trace"
# the test process dies with its killed supervisor: nothing keeps running
sleep 0.3
pgrep -f -- "-o $TMP/o3" >/dev/null && fail "loadgen: a test process outlived its killed supervisor" || ok
# the logs are named one by one, the detail log last: a kill between two renames leaves no detail
# log, or every log complete (the random kills above only sometimes land between two renames)
if command -v strace >/dev/null 2>&1; then
  mkdir -p "$TMP/o6"
  strace -f -qq -e trace=rename,renameat,renameat2 -o "$TMP/o6.strace" "$MLSUBMIT_REAL" loadgen run \
     --scenario Offline --sut null --total-samples 10 --set accuracy_log_probability=0.5 \
     --trace -o "$TMP/o6" >/dev/null 2>&1
  named=$(grep -o 'mlperf_log_[a-z]*\.[a-z]*"' "$TMP/o6.strace" | tr -d '"' | tr '\n' ' ')
  case "$named" in
    *mlperf_log_accuracy.json*mlperf_log_detail.txt\ ) ok ;;
    *) fail "loadgen: logs named in the order '$named' (the detail log must come last)" ;;
  esac
else
  echo "SKIP loadgen rename order: no strace"
fi
# a run that completes leaves all four logs and the trace
"$M" loadgen run --scenario Server --sut latency:fixed=1ms --total-samples 100 --set min_duration_ms=250 \
   --set server_target_qps=2000 -o "$TMP/o3" --dump-issued "$TMP/o3/issued.trace" >/dev/null 2>&1
logs_complete loadgen-final "$TMP/o3" && [ -s "$TMP/o3/issued.trace" ] && ok || fail "loadgen: final run"
finish
