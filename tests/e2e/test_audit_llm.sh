#!/usr/bin/env bash
# audit run / verify TEST06, TEST07, TEST08 and TEST09 end to end: the honest tokens, digits and
# recs SUTs pass every one of these tests that applies to them; each cheater is caught by its
# test and passes the others (cheat-eos: TEST06 only, cheat-len: TEST09 only, cheat-acc:
# TEST07 / TEST08); bad inputs get their error. Every audited run, honest and cheating, is also
# verified by upstream's compliance/TEST0x/run_verification.py (from ../shared, as an oracle)
# and the verdicts (and the verdict files, byte for byte where upstream's numbers allow) must
# agree. No timing is asserted: the verdicts depend on the bytes only.
. "$(dirname "$0")/lib.sh"
M=$MLSUBMIT
export MLSUBMIT_RULES="$REPO/rules"
have_sut() { $M loadgen suts | grep -q "^  $1 "; }
have_digits() { [ -f "$REPO/data/digits/digits.csv.gz" ] && [ -f "$REPO/data/digits/digits-fp32.bin" ]; }
exact_files() {
  local got; got=$(cd "$1" 2>/dev/null && ls -A | sort | tr '\n' ' ')
  [ "$got" = "$(echo $2 | tr ' ' '\n' | sort | tr '\n' ' ')" ] && ok || fail "$1 holds '$got', expected '$2'"
}
for s in tokens cheat-eos cheat-len recs cheat-acc; do
  have_sut $s || { echo "SKIP $(basename "$0"): SUT $s is not built"; finish; exit; }
done

# ---- the oracle: upstream's scripts (stdlib only for TEST07/TEST09, NumPy for TEST06/TEST08) ----
UP=""
[ -n "$SHARED" ] && [ -f "$SHARED/upstream/compliance/master/TEST06/run_verification.py" ] && UP="$SHARED/upstream/compliance/master"
PY=""; command -v python3 >/dev/null 2>&1 && PY=python3
PYNP=""
for p in python3 /usr/bin/python3; do
  command -v $p >/dev/null 2>&1 && $p -c 'import numpy' >/dev/null 2>&1 && { PYNP=$p; break; }
done
[ -z "$UP" ] && echo "SKIP oracle: ../shared/upstream/compliance/master is absent"
[ -n "$UP" ] && [ -z "$PY" ] && echo "SKIP oracle: no python3"
[ -n "$UP" ] && [ -n "$PY" ] && [ -z "$PYNP" ] && \
  echo "SKIP oracle for TEST06/TEST08: their scripts import numpy (make deps-oracle installs python3-numpy)"
ORC_AGREE=0; ORC_DISAGREE=0; ORC_SKIPPED=0
ORC="$TMP/oracle"; mkdir -p "$ORC"
# oracle_agree NAME OUR_EXIT UPSTREAM_PASS OURFILE UPFILE [filter]: verdicts equal, files equal
oracle_agree() {
  local name=$1 ours=$2 theirs=$3 f1=$4 f2=$5 filt=${6:-cat}
  local want=1; [ "$theirs" = 1 ] && want=0
  if [ "$ours" = "$want" ] && [ -f "$f2" ] && cmp -s <($filt "$f1") <($filt "$f2"); then
    ORC_AGREE=$((ORC_AGREE+1)); ok
  else
    ORC_DISAGREE=$((ORC_DISAGREE+1)); fail "oracle $name: mlsubmit exit $ours, upstream pass=$theirs"
    [ -f "$f2" ] && diff <($filt "$f1") <($filt "$f2") | head -5 >&2
  fi
}
# the scripts write into their working directory: run them in $ORC
oracle06() {  # DIR(scenario dir) SCENARIO OUR_EXIT
  [ -n "$UP" ] && [ -n "$PYNP" ] || { ORC_SKIPPED=$((ORC_SKIPPED+1)); return; }
  rm -rf "$ORC/o"
  (cd "$ORC" && $PYNP "$UP/TEST06/run_verification.py" -c "$1/TEST06/accuracy" -o "$ORC/o" -s "$2" >/dev/null 2>&1)
  local pass=0; grep -qx 'TEST06 verification complete' "$ORC/o/TEST06/verify_accuracy.txt" 2>/dev/null && pass=1
  oracle_agree "TEST06 $1" "$3" $pass "$1/TEST06/verify_accuracy.txt" "$ORC/o/TEST06/verify_accuracy.txt"
}
oracle07() {  # DIR AUDIT_CONFIG OUR_EXIT
  [ -n "$UP" ] && [ -n "$PY" ] || { ORC_SKIPPED=$((ORC_SKIPPED+1)); return; }
  rm -rf "$ORC/o" "$ORC/verify_accuracy.txt"
  (cd "$ORC" && $PY "$UP/TEST07/run_verification.py" -c "$1/TEST07/accuracy" -o "$ORC/o" --audit-config "$2" \
     --score-pattern 'accuracy=([\d.]+)%' \
     --accuracy-script "$M accuracy digits {accuracy_log} --data $REPO/data/digits --rules $REPO/rules/digits.json -o $ORC/acc.txt >/dev/null 2>&1; cat $ORC/acc.txt" \
     >/dev/null 2>&1)
  local pass=0; grep -qx 'TEST PASS' "$ORC/o/TEST07/verify_accuracy.txt" 2>/dev/null && pass=1
  oracle_agree "TEST07 $1" "$3" $pass "$1/TEST07/verify_accuracy.txt" "$ORC/o/TEST07/verify_accuracy.txt"
}
# TEST08 prints NE values computed with NumPy's float32 log, which may differ from the C
# library's in the last place: every line but the per-record mismatch details must agree
no_ne_lines() { grep -v '^  NE mismatch at' "$1"; }
no_scoring_line() { grep -v '^scoring ' "$1"; }
oracle08() {  # DIR OUR_EXIT
  [ -n "$UP" ] && [ -n "$PYNP" ] || { ORC_SKIPPED=$((ORC_SKIPPED+1)); return; }
  local pass=0
  (cd "$ORC" && $PYNP "$UP/TEST08/run_verification.py" -r "$1/accuracy/mlperf_log_accuracy.json" \
     -t "$1/TEST08/accuracy/mlperf_log_accuracy.json" > "$ORC/test08.txt" 2>&1) && pass=1
  oracle_agree "TEST08 $1" "$2" $pass "$1/TEST08/verify_accuracy.txt" "$ORC/test08.txt" no_ne_lines
  local n1 n2
  n1=$(grep -c '^  NE mismatch at' "$1/TEST08/verify_accuracy.txt"); n2=$(grep -c '^  NE mismatch at' "$ORC/test08.txt")
  [ "$n1" = "$n2" ] && ok || fail "TEST08 $1: $n1 mismatch lines, upstream $n2"
}
oracle09() {  # DIR AUDIT_CONFIG OUR_EXIT
  [ -n "$UP" ] && [ -n "$PY" ] || { ORC_SKIPPED=$((ORC_SKIPPED+1)); return; }
  rm -rf "$ORC/o" "$ORC/verify_output_len.txt"
  local pass=0
  (cd "$ORC" && $PY "$UP/TEST09/run_verification.py" -c "$1/TEST09/accuracy" -o "$ORC/o" --audit-config "$2" >/dev/null 2>&1) && pass=1
  oracle_agree "TEST09 $1" "$3" $pass "$1/TEST09/verify_output_len.txt" "$ORC/o/TEST09/verify_output_len.txt"
}
# run_audit TEST OUT_DIR ARGS...: audit run with --keep-work; sets RC and CFG (its audit.config)
run_audit() {
  local t=$1 out=$2; shift 2
  $M audit run $t --keep-work "$@" -o "$out" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  CFG=$(sed -n 's/^work directory kept: //p' "$TMP/out")/audit.config
  [ "$RC" -le 1 ] || { fail "audit run $t $*: exit $RC"; sed 's/^/  stderr: /' "$TMP/err" | head -3 >&2; }
}
expect_rc() { [ "$RC" = "$1" ] && ok || fail "$2: exit $RC, wanted $1"; }

TK="ttft=1ms,tpot=100us"
LLM="--model tokens --set use_token_latencies=1"
SRV="--scenario Server --set server_target_qps=500"

# ---- TEST06: LLM output consistency ------------------------------------------------------------
# honest tokens SUT: Server (first token reported) and Offline (first-token check skipped), STRICT
for sc in Server Offline; do
  set_sc="--scenario $sc"; [ $sc = Server ] && set_sc="$SRV"
  run_audit TEST06 "$TMP/t06/tokens/$sc" --mode strict --sut tokens:$TK $LLM $set_sc
  expect_rc 0 "tokens TEST06 $sc"
  expect_grep '^TEST06: PASS \(strict\)' "$TMP/out"
  expect_grep '^PASS  records in the accuracy log: 100, expected 100' "$TMP/out"
  oracle06 "$TMP/t06/tokens/$sc" $sc $RC
done
expect_grep '^First token check pass: True$' "$TMP/t06/tokens/Server/TEST06/verify_accuracy.txt"
expect_grep '^First token check pass: Skipped$' "$TMP/t06/tokens/Offline/TEST06/verify_accuracy.txt"
# the folder as upstream writes it: no performance directory
exact_files "$TMP/t06/tokens/Server/TEST06" "accuracy verify_accuracy.txt"
exact_files "$TMP/t06/tokens/Server/TEST06/accuracy" "mlperf_log_accuracy.json"
# the audit.config: upstream's TEST06 values
for l in '*.*.mode = 2' '*.*.accuracy_log_sampling_target = 100' '*.*.min_query_count = 100' '*.*.min_duration = 0' \
         '*.*.sample_concatenate_permutation = 0' '*.*.accuracy_log_rng_seed = 720381539243781796'; do
  grep -qxF -- "$l" "$CFG" && ok || fail "TEST06 audit.config lacks '$l'"
done
# cheat-eos, each mode caught by its own check only
for mode in extra-eos first-token count; do
  run_audit TEST06 "$TMP/t06/eos-$mode/Server" --sut cheat-eos:mode=$mode,$TK $LLM $SRV
  expect_rc 1 "cheat-eos $mode TEST06"
  V="$TMP/t06/eos-$mode/Server/TEST06/verify_accuracy.txt"
  expect_grep '^TEST06 verification failed$' "$V"
  case $mode in
    extra-eos)   expect_grep '^EOS check pass: False$' "$V"; expect_grep '^First token check pass: True$' "$V"
                 expect_grep '^Sample length check pass: True$' "$V" ;;
    first-token) expect_grep '^First token check pass: False$' "$V"; expect_grep '^EOS check pass: True$' "$V"
                 expect_grep '^Sample length check pass: True$' "$V" ;;
    count)       expect_grep '^Sample length check pass: False$' "$V"; expect_grep '^EOS check pass: True$' "$V"
                 expect_grep '^First token check pass: True$' "$V" ;;
  esac
  oracle06 "$TMP/t06/eos-$mode/Server" Server $RC
done
# the TEST09 cheater passes TEST06 (its token accounting is consistent); under valgrind (SLOW_TOOL)
# these cross checks are left out: they add runs, not code paths
for mode in $([ -z "$SLOW_TOOL" ] && echo truncate pad); do
  run_audit TEST06 "$TMP/t06/len-$mode/Server" --sut cheat-len:mode=$mode,$TK $LLM $SRV
  expect_rc 0 "cheat-len $mode TEST06"
  oracle06 "$TMP/t06/len-$mode/Server" Server $RC
done

# v5.1 layout (of these tests only TEST06 is in v5.1): the folder under compliance/, a real
# LLM benchmark's values (llama2-70b: its dataset size sizes the counting QSL)
V51="$TMP/sub/closed/Org/compliance/sys1/llama2-70b-99/Server"
run_audit TEST06 "$V51" --layout v5.1 --loadgen-compat 5.1 --sut tokens:$TK --model llama2-70b-99 \
  --set use_token_latencies=1 $SRV
expect_rc 0 "TEST06 llama2-70b-99, v5.1 layout"
exact_files "$V51/TEST06" "accuracy verify_accuracy.txt"
expect_grep '"key": "qsl_reported_total_count", "value": 24576,' "$(dirname "$CFG")/run/mlperf_log_detail.txt"
oracle06 "$V51" Server $RC

# ---- TEST09: mean output length -----------------------------------------------------------------
run_audit TEST09 "$TMP/t09/tokens/Offline" --mode strict --sut tokens:$TK $LLM --scenario Offline
expect_rc 0 "tokens TEST09"
expect_grep '^PASS  records 1024 = dataset size 1024' "$TMP/out"
T09CFG=$CFG
oracle09 "$TMP/t09/tokens/Offline" "$CFG" $RC
exact_files "$TMP/t09/tokens/Offline/TEST09" "accuracy performance verify_output_len.txt"
exact_files "$TMP/t09/tokens/Offline/TEST09/performance/run_1" "mlperf_log_detail.txt mlperf_log_summary.txt"
grep -qxF '*.*.test09_min_output_tokens = 129.6' "$CFG" && grep -qxF '*.*.test09_max_output_tokens = 158.4' "$CFG" \
  && ok || fail "TEST09 audit.config lacks the thresholds"
for mode in truncate pad; do
  run_audit TEST09 "$TMP/t09/len-$mode/Offline" --sut cheat-len:mode=$mode,$TK $LLM --scenario Offline
  expect_rc 1 "cheat-len $mode TEST09"
  V="$TMP/t09/len-$mode/Offline/TEST09/verify_output_len.txt"
  expect_grep '^TEST FAIL$' "$V"
  [ $mode = truncate ] && expect_grep '^Min check pass: False$' "$V" || expect_grep '^Max check pass: False$' "$V"
  oracle09 "$TMP/t09/len-$mode/Offline" "$CFG" $RC
done
# the tokens benchmark's accuracy script: every record the SUT's exact token sequence
expect_exit 0 $M accuracy tokens "$TMP/t09/tokens/Offline/TEST09/accuracy/mlperf_log_accuracy.json" -o "$TMP/acc-tokens.txt"
expect_grep '^accuracy=100\.000%, good=1024, total=1024$' "$TMP/acc-tokens.txt"
expect_exit 1 $M accuracy tokens "$TMP/t09/len-truncate/Offline/TEST09/accuracy/mlperf_log_accuracy.json" -o "$TMP/acc-trunc.txt"
expect_grep '^accuracy=0\.000%, good=0, total=1024$' "$TMP/acc-trunc.txt"
expect_exit 2 $M accuracy tokens "$TMP/acc-tokens.txt" --len 5..3
# the TEST06 cheater passes TEST09
for mode in $([ -z "$SLOW_TOOL" ] && echo extra-eos first-token count); do
  run_audit TEST09 "$TMP/t09/eos-$mode/Offline" --sut cheat-eos:mode=$mode,$TK $LLM --scenario Offline
  expect_rc 0 "cheat-eos $mode TEST09"
  oracle09 "$TMP/t09/eos-$mode/Offline" "$CFG" $RC
done
# the real benchmarks' bounds are in the audit.config a user gets (--keep-work)
run_audit TEST09 "$TMP/t09/gpt/Offline" --sut cheat-len:mode=truncate,ttft=1ms,tpot=1us,len=1000..1500 \
  --model gpt-oss-120b --set use_token_latencies=1 --scenario Offline
expect_rc 1 "gpt-oss-120b-like truncation TEST09"
for l in '*.*.test09_min_output_tokens = 1150.38' '*.*.test09_max_output_tokens = 1406.02' '*.*.min_query_count = 6396' \
         '*.*.performance_issue_unique = 1' '*.*.accuracy_log_sampling_target = 10000'; do
  grep -qxF -- "$l" "$CFG" && ok || fail "gpt-oss-120b TEST09 audit.config lacks '$l'"
done
oracle09 "$TMP/t09/gpt/Offline" "$CFG" $RC

# ---- TEST08: DLRMv3 accuracy in performance mode --------------------------------------------------
R8="--model recs --scenario Offline --total-samples 1024 --set min_duration_ms=0 --set min_query_count=1024"
run_audit TEST08 "$TMP/t08/recs/Offline" --mode strict --sut recs $R8
expect_rc 0 "recs TEST08"
expect_grep '^num_unmatched = 0$' "$TMP/t08/recs/Offline/TEST08/verify_accuracy.txt"
expect_grep '^TEST PASS$' "$TMP/t08/recs/Offline/TEST08/verify_accuracy.txt"
oracle08 "$TMP/t08/recs/Offline" $RC
run_audit TEST08 "$TMP/t08/cheat/Offline" --sut cheat-acc:recs $R8
expect_rc 1 "cheat-acc:recs TEST08"
n=$(sed -n 's/^num_ne_mismatch = //p' "$TMP/t08/cheat/Offline/TEST08/verify_accuracy.txt")
[ "${n:-0}" -gt 0 ] && ok || fail "cheat-acc:recs: $n NE mismatches"
oracle08 "$TMP/t08/cheat/Offline" $RC

# ---- TEST07: full-dataset accuracy in performance mode ------------------------------------------
if have_digits; then
  for sut in digits $([ -z "$SLOW_TOOL" ] && echo digits:int8); do
    run_audit TEST07 "$TMP/t07/$sut/Offline" --mode strict --sut $sut --model digits --data "$REPO/data" --scenario Offline
    expect_rc 0 "$sut TEST07"
    expect_grep '^PASS  records 537 = distinct samples 537 = dataset size 537' "$TMP/out"
    oracle07 "$TMP/t07/$sut/Offline" "$CFG" $RC
  done
  exact_files "$TMP/t07/digits/Offline/TEST07" "accuracy performance verify_accuracy.txt"
  grep -qxF '*.*.test07_accuracy_threshold = 95.68' "$CFG" && ok || fail "TEST07 audit.config lacks the threshold"
  run_audit TEST07 "$TMP/t07/cheat/Offline" --sut cheat-acc --model digits --data "$REPO/data" --scenario Offline
  expect_rc 1 "cheat-acc TEST07"
  expect_grep '^Accuracy check pass: False$' "$TMP/t07/cheat/Offline/TEST07/verify_accuracy.txt"
  oracle07 "$TMP/t07/cheat/Offline" "$CFG" $RC
  # cheat-acc's accuracy-mode answers are honest: the submission's own accuracy run passes
  expect_exit 0 $M loadgen run --quiet --mode accuracy --sut cheat-acc --data "$REPO/data" --scenario Offline -o "$TMP/ca-acc"
  expect_exit 0 $M accuracy digits "$TMP/ca-acc/mlperf_log_accuracy.json" --data "$REPO/data/digits" --rules "$REPO/rules/digits.json"
else
  echo "SKIP TEST07 runs: data/digits missing (make data)"
fi

# gpt-oss-120b: scored by its own accuracy script (--accuracy-script, 'exact_match': N); the
# script here stands in for the benchmark's evaluation and prints a fixed score
# (the compliance dataset of 990 samples is the run's QSL: P = 990, as the TEST07 README requires)
G7="--sut tokens:ttft=1ms,tpot=1us --model gpt-oss-120b --set use_token_latencies=1 --set performance_sample_count_override=990 --scenario Offline"
for score in 62.15 59.5; do
  run_audit TEST07 "$TMP/t07/gpt-$score/Offline" $G7 --accuracy-script "echo 'scoring {accuracy_log}' >&2; echo \"{{'exact_match': $score}}\""
  [ $score = 62.15 ] && expect_rc 0 "gpt-oss-120b TEST07 score $score" || expect_rc 1 "gpt-oss-120b TEST07 score $score"
  V="$TMP/t07/gpt-$score/Offline/TEST07/verify_accuracy.txt"
  expect_grep "^Accuracy score: $score\$" "$V"
  expect_grep '^Accuracy threshold: 60.698$' "$V"
  expect_grep '^scoring .*mlperf_log_accuracy.json$' "$V" "the script's stderr captured"
  if [ -n "$UP" ] && [ -n "$PY" ]; then
    rm -rf "$ORC/o" "$ORC/verify_accuracy.txt"
    (cd "$ORC" && $PY "$UP/TEST07/run_verification.py" -c "$TMP/t07/gpt-$score/Offline/TEST07/accuracy" -o "$ORC/o" \
       --audit-config "$CFG" --accuracy-script "echo 'scoring {accuracy_log}' >&2; echo \"{{'exact_match': $score}}\"" >/dev/null 2>&1)
    pass=0; grep -qx 'TEST PASS' "$ORC/o/TEST07/verify_accuracy.txt" 2>/dev/null && pass=1
    # the scripts name the log where each reads it: compare all but that line
    oracle_agree "TEST07 gpt-oss-120b $score" $RC $pass "$V" "$ORC/o/TEST07/verify_accuracy.txt" no_scoring_line
  else
    ORC_SKIPPED=$((ORC_SKIPPED+1))
  fi
done
expect_exit 2 $M audit run TEST07 $G7 -o "$TMP/t07/gpt-noscript/Offline"
expect_grep 'give --accuracy-script' "$TMP/err"
expect_exit 2 $M audit run TEST07 $G7 -o "$TMP/t07/gpt-brace/Offline" --accuracy-script "echo {'exact_match': 1}"
expect_grep "write literal braces as \{\{ and \}\}" "$TMP/err"

# ---- audit verify on any LoadGen's output -------------------------------------------------------
# a run made with the audit.config mlsubmit wrote (kept with --keep-work) verifies like the audit
expect_exit 0 $M loadgen run --quiet --scenario Offline --sut tokens:$TK --total-samples 1024 \
  --set use_token_latencies=1 --audit-config "$T09CFG" -o "$TMP/raw09"
expect_exit 0 $M audit verify TEST09 --audit "$TMP/raw09" --model tokens --output "$TMP/v09/Offline"
cmp -s "$TMP/v09/Offline/TEST09/verify_output_len.txt" "$TMP/t09/tokens/Offline/TEST09/verify_output_len.txt" \
  && ok || fail "verify TEST09 of the same outputs differs from audit run's"
expect_exit 0 $M audit verify TEST08 --reference "$TMP/t08/recs/Offline" --audit "$TMP/t08/recs/Offline/TEST08" --model recs --output "$TMP/v08"

# ---- bad input ----------------------------------------------------------------------------------
# the audit.config missing: the detail log has no 'Found Audit Config file' and default values
mkdir -p "$TMP/noaudit"
(cd "$TMP/noaudit" && $M loadgen run --quiet --scenario Offline --sut tokens:$TK --total-samples 1024 \
  --set use_token_latencies=1 --set min_duration_ms=0 >/dev/null 2>&1)
for t in TEST06 TEST09; do
  expect_exit 3 $M audit verify $t --audit "$TMP/noaudit" --model tokens --output "$TMP/bad/$t"
  expect_grep "was not applied; no 'Found Audit Config file" "$TMP/err" "$t without audit.config"
  expect_grep 'effective_accuracy_log_sampling_target is 0, expected' "$TMP/err"
  [ ! -e "$TMP/bad/$t/$t" ] && ok || fail "$t: a verdict was written for an unaudited run"
done
# the audit.config rejected by the LoadGen (an inline comment): nothing of it applied
sed 's/^\*\.\*\.mode = 2$/*.*.mode = 2 # performance/' "$T09CFG" > "$TMP/rejected.config"
$M loadgen run --quiet --scenario Offline --sut tokens:$TK --total-samples 1024 --set use_token_latencies=1 \
  --audit-config "$TMP/rejected.config" -o "$TMP/rejected" >/dev/null 2>&1
expect_exit 3 $M audit verify TEST09 --audit "$TMP/rejected" --model tokens
expect_grep 'the LoadGen rejected the file \(detail log line [0-9]+: value needs to be integer or double' "$TMP/err"
# no detail log beside the accuracy log (a published TEST06 folder): COMPAT verifies with a note,
# as upstream (which never looks); STRICT fails
mkdir -p "$TMP/onlyacc" && cp "$TMP/raw09/mlperf_log_accuracy.json" "$TMP/onlyacc/"
expect_exit 0 $M audit verify TEST09 --audit "$TMP/onlyacc" --model tokens --output "$TMP/v-onlyacc"
expect_grep 'cannot confirm that the TEST09 audit.config was applied: no mlperf_log_detail.txt' "$TMP/err"
expect_exit 1 $M audit verify TEST09 --mode strict --audit "$TMP/onlyacc" --model tokens --output "$TMP/v-onlyacc"
expect_grep '^FAIL  audit.config applied: no detail log to show it' "$TMP/out"
expect_exit 0 $M audit verify TEST06 --audit "$TMP/t06/tokens/Server/TEST06" --model tokens --scenario Server --output "$TMP/v06"
cmp -s "$TMP/v06/TEST06/verify_accuracy.txt" "$TMP/t06/tokens/Server/TEST06/verify_accuracy.txt" && ok \
  || fail "verify of the placed TEST06 folder differs"
# an accuracy log without the samples the test needs
expect_exit 4 $M audit run TEST06 --sut tokens:$TK --model tokens --scenario Offline -o "$TMP/notok/Offline"
expect_grep 'has no token_count: TEST06 needs a run with token latencies' "$TMP/err"
head -c 2000 "$TMP/raw09/mlperf_log_accuracy.json" | sed '$d' > "$TMP/short.json"; echo '{"seq_id":0,"qsl_idx":0,"data":"01000000"}]' >> "$TMP/short.json"
cp "$TMP/raw09/mlperf_log_detail.txt" "$TMP/raw09/mlperf_log_summary.txt" "$TMP/onlyacc/" && cp "$TMP/short.json" "$TMP/onlyacc/mlperf_log_accuracy.json"
expect_exit 3 $M audit verify TEST09 --audit "$TMP/onlyacc" --model tokens
expect_grep 'records; TEST09 averages the output length over the whole dataset of tokens \(1024 samples\)' "$TMP/err"
echo '[]' > "$TMP/onlyacc/mlperf_log_accuracy.json"
expect_exit 3 $M audit verify TEST09 --audit "$TMP/onlyacc" --model tokens
if have_digits; then
  # TEST07 over a log that covers only part of the dataset (the first 100 records kept)
  mkdir -p "$TMP/partial07"
  cp "$TMP/t07/digits/Offline/TEST07/performance/run_1/"* "$TMP/partial07/"
  { head -n 101 "$TMP/t07/digits/Offline/TEST07/accuracy/mlperf_log_accuracy.json" | sed '$ s/,$//'; echo ']'; } \
    > "$TMP/partial07/mlperf_log_accuracy.json"
  expect_exit 3 $M audit verify TEST07 --audit "$TMP/partial07" --model digits --data "$REPO/data/digits"
  expect_grep 'covering 100 of the 537 samples' "$TMP/err"
fi
# TEST08 against a reference log that is not DLRMv3-shaped (the tokens run's)
mkdir -p "$TMP/badref/accuracy" && cp "$TMP/raw09/mlperf_log_accuracy.json" "$TMP/badref/accuracy/"
expect_exit 3 $M audit verify TEST08 --reference "$TMP/badref" --audit "$TMP/t08/recs/Offline/TEST08" --model recs
expect_grep 'not a DLRMv3 accuracy-mode payload' "$TMP/err"
expect_exit 2 $M audit verify TEST08 --audit "$TMP/t08/recs/Offline/TEST08" --model recs
# a model a test does not apply to
for t in TEST06 TEST07 TEST08 TEST09; do
  expect_exit 2 $M audit run $t --sut null --total-samples 100 --model resnet50 --scenario Offline -o "$TMP/x"
  expect_grep "$t does not apply to model 'resnet50': .*compliance.json has its audit values for" "$TMP/err"
done
expect_exit 2 $M audit verify TEST06 --audit "$TMP/raw09" --model digits
expect_grep "TEST06 does not apply to model 'digits'" "$TMP/err"
expect_exit 2 $M loadgen run --sut cheat-eos:mode=bogus --scenario Offline --total-samples 10
expect_grep 'option mode: expected extra-eos, first-token or count' "$TMP/err"

echo "oracle (upstream run_verification.py): $ORC_AGREE agreed, $ORC_DISAGREE disagreed, $ORC_SKIPPED skipped"
finish
