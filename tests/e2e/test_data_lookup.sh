#!/usr/bin/env bash
# Where the digits dataset and model are found (rules/rules.h ru_dataset_dir): --data
# DIR (a data folder holding digits/, or the digits folder itself) in every command, else
# MLSUBMIT_DATA, else the data folder beside the rules (./data, the build tree's data/,
# PREFIX/share/mlsubmit/data). Run from another working directory; the error lists every place
# tried. (The installed copy: test_install.sh.)
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
DATA=${MLSUBMIT_DATA:-$REPO/data}
case $DATA in /*) ;; *) DATA=$REPO/$DATA ;; esac
if [ ! -f "$DATA/digits/digits.csv.gz" ] || [ ! -f "$DATA/digits/digits-fp32.bin" ]; then
  echo "SKIP $(basename "$0"): $DATA/digits is incomplete (run make data)"; exit 0
fi
unset MLSUBMIT_RULES
W="$TMP/elsewhere"; mkdir -p "$W"
OFF="--scenario Offline --mode performance --set min_duration_ms=0 --set min_query_count=1 --set offline_expected_qps=2000"
# Server at 2,000 QPS: the digits SUT keeps up (and the run stays VALID) on a loaded machine too
SRV="--scenario Server --set min_duration_ms=300 --set server_target_qps=2000 --set server_target_latency_ns=100000000"
ref=$(cd "$REPO" && "$M" digits eval --data "$DATA" 2>&1)

# --data: the data folder, or the digits folder itself; the same output either way
cd "$W" || exit 1
expect_exit 0 "$M" digits eval --data "$DATA"
[ "$(cat "$TMP/out")" = "$ref" ] && ok || fail "digits eval --data DATA from elsewhere"
expect_exit 0 "$M" digits eval --data "$DATA/digits"
[ "$(cat "$TMP/out")" = "$ref" ] && ok || fail "digits eval --data DATA/digits"
expect_exit 0 "$M" loadgen run --sut digits --data "$DATA" $OFF -o "$TMP/lg1"
expect_exit 0 "$M" loadgen run --sut digits --data "$DATA/digits" $OFF -o "$TMP/lg2"

# the build tree's data/ when nothing is given (only when the tree has its own data)
if [ -f "$REPO/data/digits/digits-fp32.bin" ] && [ "$M" -ef "$REPO/build/mlsubmit" ]; then
  ( unset MLSUBMIT_DATA; cd "$W" && "$M" digits eval ) > "$TMP/bt" 2>&1
  [ "$(cat "$TMP/bt")" = "$ref" ] && ok || { fail "digits eval from elsewhere (build tree data)"; head -3 "$TMP/bt" >&2; }
  ( unset MLSUBMIT_DATA; cd "$W" && "$M" loadgen run --sut digits $OFF -o "$TMP/lg3" ) > "$TMP/bt" 2>&1 && ok ||
    { fail "loadgen run --sut digits from elsewhere"; head -3 "$TMP/bt" >&2; }
  ( unset MLSUBMIT_DATA; cd "$W" && "$M" audit run TEST04 --sut digits --model digits $SRV -o "$TMP/aud/Server" ) \
    > "$TMP/bt" 2>&1 && ok || { fail "audit run --sut digits from elsewhere"; tail -3 "$TMP/bt" >&2; }
  grep -q '^TEST04: PASS' "$TMP/bt" && ok || fail "audit run from elsewhere: TEST04 did not pass"
fi
# audit run --data means the same: the data folder (or the digits folder)
expect_exit 0 "$M" audit run TEST04 --sut digits --model digits --data "$DATA/digits" $SRV -o "$TMP/aud2/Server"
expect_grep '^TEST04: PASS' "$TMP/out"

# MLSUBMIT_DATA comes before the build tree: a data folder without the model is the one used
mkdir -p "$TMP/envdata/digits"; cp "$DATA/digits/digits.csv.gz" "$TMP/envdata/digits/"
expect_exit 3 env MLSUBMIT_DATA="$TMP/envdata" "$M" digits eval
expect_grep "$TMP/envdata/digits/digits-fp32.bin: missing" "$TMP/err"
# an explicit --data is the only place looked at
expect_exit 3 "$M" digits eval --data "$TMP/nothing"
expect_grep "$TMP/nothing: no digits dataset \\(digits.csv.gz\\); tried $TMP/nothing/digits, $TMP/nothing\$" "$TMP/err"

# nothing anywhere: the error names every place tried, in order
mkdir -p "$TMP/bin" "$TMP/empty"; cp "$M" "$TMP/bin/mlsubmit"
( cd "$TMP/empty" && MLSUBMIT_DATA="$TMP/nodata" "$TMP/bin/mlsubmit" loadgen run --sut digits $OFF -o "$TMP/lg4" ) > "$TMP/out" 2> "$TMP/err"
[ $? = 3 ] && ok || fail "no dataset anywhere: exit 3 expected"
expect_grep "no digits dataset \\(digits.csv.gz\\); tried $TMP/nodata/digits \\(MLSUBMIT_DATA\\), data/digits \\(working directory\\), $TMP/bin/../data/digits \\(build tree\\), $TMP/bin/../share/mlsubmit/data/digits \\(installation\\)" "$TMP/err"
( cd "$TMP/empty" && env -u MLSUBMIT_DATA "$TMP/bin/mlsubmit" accuracy digits "$TMP/lg1/mlperf_log_accuracy.json" --rules "$REPO/rules/digits.json" -o "$TMP/a.txt" ) > "$TMP/out" 2> "$TMP/err"
expect_grep "tried data/digits \\(working directory\\), $TMP/bin/../data/digits \\(build tree\\), $TMP/bin/../share/mlsubmit/data/digits \\(installation\\)" "$TMP/err"

# The data folder of rules/ and schemas/ (rules/rules.h ru_data_dir): MLSUBMIT_DATA_DIR (the only
# place when set; MLSUBMIT_RULES, the rules/ folder itself, a deprecated alias), the working
# directory, the build tree, the installation; the error names every place tried.
mkdir -p "$TMP/wd/rules"; cp "$REPO/rules/v6.1.json" "$TMP/wd/rules/v9.9.json"
( cd "$TMP/wd" && env -u MLSUBMIT_DATA_DIR -u MLSUBMIT_RULES "$M" rules list ) > "$TMP/out" 2>&1
[ "$(cat "$TMP/out")" = "v9.9" ] && ok || fail "rules list: the working directory's rules/ first (got: $(head -c 200 "$TMP/out"))"
# rules list: rounds in version order, newest last (v10.0 after v9.9), however many there are
mkdir -p "$TMP/many/rules"
for v in v10.0 v9.9 v1.10 v1.2 $(seq -f 'v0.%g' 100 399); do : > "$TMP/many/rules/$v.json"; done
MLSUBMIT_DATA_DIR="$TMP/many" "$M" rules list > "$TMP/out" 2>&1
[ "$(wc -l < "$TMP/out")" = 304 ] && [ "$(tail -4 "$TMP/out" | tr '\n' ' ')" = "v1.2 v1.10 v9.9 v10.0 " ] && ok ||
  fail "rules list: every round in version order (got $(wc -l < "$TMP/out") lines ending $(tail -4 "$TMP/out" | tr '\n' ' '))"
( cd "$TMP/wd" && MLSUBMIT_DATA_DIR="$REPO" "$M" rules list ) > "$TMP/out" 2>&1
grep -qx v6.1 "$TMP/out" && ! grep -q v9.9 "$TMP/out" && ok || fail "MLSUBMIT_DATA_DIR before the working directory"
( cd "$TMP/wd" && env -u MLSUBMIT_DATA_DIR MLSUBMIT_RULES="$REPO/rules" "$M" rules list ) > "$TMP/out" 2>&1
grep -qx v6.1 "$TMP/out" && ok || fail "MLSUBMIT_RULES (deprecated) names the rules folder"
( cd "$TMP/empty" && env -u MLSUBMIT_DATA_DIR -u MLSUBMIT_RULES "$TMP/bin/mlsubmit" rules list ) > "$TMP/out" 2> "$TMP/err"
[ $? = 3 ] && ok || fail "no data folder anywhere: exit 3 expected"
expect_grep "tried \. \(working directory\), $TMP/bin/\.\. \(build tree\), $TMP/bin/\.\./share/mlsubmit \(installation\)" "$TMP/err"
( cd "$TMP/empty" && MLSUBMIT_DATA_DIR="$TMP/nowhere" "$TMP/bin/mlsubmit" rules list ) > "$TMP/out" 2> "$TMP/err"
[ $? = 3 ] && ok || fail "a MLSUBMIT_DATA_DIR without rules/: exit 3 expected"
expect_grep "tried $TMP/nowhere \(MLSUBMIT_DATA_DIR\)\." "$TMP/err"
cd "$REPO" || exit 1
finish
