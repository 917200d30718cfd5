#!/usr/bin/env bash
# Robustness of `mlsubmit check` on hostile trees (all generated here): truncated JSON, garbage
# and NUL bytes in detail logs, non-UTF-8 names, a 60 MB file, symbolic-link loops, deep
# nesting, empty and binary files. Every case must end in findings and exit status 0/1 -- never
# a crash, a hang or a sanitizer report (run under `make asan`).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
bash "$HERE/lib/mkround.sh" "$TMP/b51" --version v5.1 || exit 1
bash "$HERE/lib/mkround.sh" "$TMP/b60" --version v6.0 || exit 1
C=closed/Org1
E=$C/results/edge1/resnet50
SSLOG=$E/SingleStream/performance/run_1/mlperf_log_detail.txt

# case NAME VERSION EXPECT-REGEX(tsv) SNIPPET
case_() {
  local name=$1 ver=$2 want=$3 snippet=$4 t="$TMP/case"
  rm -rf "$t"
  cp -a "$TMP/b${ver//[v.]/}" "$t"
  (cd "$t" && eval "$snippet") || { echo "FAIL $name: mutation failed"; fail=1; return; }
  timeout 120 $TEST_WRAP "$MLSUBMIT" check "$t" --version "$ver" --csv "$TMP/s.csv" --json "$TMP/s.json" --tsv "$TMP/s.tsv" >"$TMP/out.txt" 2>"$TMP/err.txt"
  local rc=$?
  if [ $rc -gt 1 ]; then
    echo "FAIL $name: exit $rc"; tail -20 "$TMP/err.txt" "$TMP/out.txt"; fail=1; return
  fi
  if [ -s "$TMP/err.txt" ]; then echo "FAIL $name: unexpected stderr"; head "$TMP/err.txt"; fail=1; return; fi
  if ! grep -aEq "$want" "$TMP/s.tsv"; then
    echo "FAIL $name: no finding matching /$want/"; cat "$TMP/s.tsv"; fail=1; return
  fi
  # the JSON report stays valid JSON (UTF-8) whatever the input bytes
  if command -v python3 >/dev/null && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/s.json" 2>/dev/null; then
    echo "FAIL $name: the JSON report is not valid JSON"; fail=1; return
  fi
  echo "ok $name"
}

for V in v5.1 v6.0; do
  case_ "$V truncated system JSON" $V '^ERROR	Y9	closed/Org1/systems/edge1.json' \
    "head -c 300 $C/systems/edge1.json > x && mv x $C/systems/edge1.json"
  case_ "$V empty system JSON" $V '^ERROR	Y9	' ": > $C/systems/dc1.json"
  case_ "$V truncated implementation JSON" $V '^ERROR	E4	' \
    "f=\$(ls $C/measurements/edge1/resnet50/Offline/*.json 2>/dev/null || echo $E/Offline/measurements.json); head -c 20 \$f > x && mv x \$f"
  case_ "$V garbage lines in a detail log" $V '^ERROR	L1	'"$SSLOG" \
    "head -c 3000 /dev/urandom | base64 >> $SSLOG && printf ':::MLLOG {\"key\": garbage\\n' >> $SSLOG"
  case_ "$V NUL bytes in a detail log" $V '^ERROR	L1	'"$SSLOG" \
    "printf ':::MLLOG {\"key\": \"x\\0y\", \"value\": 1}\\n\\0\\0\\0 binary \\0\\n' >> $SSLOG"
  case_ "$V binary detail log" $V '^ERROR	(L1|P8)	' "head -c 200000 /dev/urandom > $SSLOG"
  case_ "$V empty detail log" $V '^ERROR	(P8|L1)	' ": > $SSLOG"
  case_ "$V invalid UTF-8 in accuracy.txt" $V '^ERROR	A3	' \
    "printf 'accuracy=\\xff\\xfe%%\\n' > $E/SingleStream/accuracy/accuracy.txt"
  case_ "$V non-UTF-8 file name" $V '^WARNING	S13	' "touch $C/documentation/\$'n\\xe9ame.md'"
  case_ "$V self-referencing symlink" $V '	S4	' "ln -s self.md $C/documentation/self.md"
  case_ "$V directory loop through symlinks" $V '^WARNING	S12	' "ln -s .. $C/documentation/loop && ln -s ../../.. $E/SingleStream/accuracy/up"
  case_ "$V deep nesting" $V '	S9	' "p=$C/documentation; for i in \$(seq 1 400); do p=\$p/d; done; mkdir -p \$p"
done
# an accuracy value printed another way: the finding names the round's pattern, so that the
# submitter sees what the line must look like
case_ "v5.1 accuracy printed another way" v5.1 '^ERROR	A3	.*accuracy metric acc not found' \
  "printf 'top1: 76.5\\nhash=%064d\\n' 0 > $E/SingleStream/accuracy/accuracy.txt"
if ! grep -q "acc: a line the round's pattern \^(?:" "$TMP/s.json"; then
  echo "FAIL v5.1 accuracy printed another way: the A3 finding does not name the pattern"
  grep -o '"expected": "[^"]*' "$TMP/s.json" | head -5
  fail=1
fi
# a 60 MB detail log: one garbage line longer than the streaming reader's line limit followed
# by the records (unified profile: no S5 rejection, so the log really is read)
case_ "v6.0 60 MB detail log" v6.0 '^ERROR	L1	'"$SSLOG" \
  "{ printf ':::MLLOG '; head -c 62914560 /dev/zero | tr '\\\\0' a; printf '\\n'; cat $SSLOG; } > x && mv x $SSLOG"
case_ "v5.1 60 MB file" v5.1 '^ERROR	S5	'"$SSLOG" "truncate -s 60M $SSLOG"
case_ "v6.0 60 MB file" v6.0 '^WARNING	S5	'"$SSLOG" "truncate -s 60M $SSLOG"
exit $fail
