#!/usr/bin/env bash
# make demo: the whole job end to end on the digits benchmark, for an example submitter.
#
#   dataset (checksum) -> LoadGen runs in every scenario an edge closed submission needs, with
#   TEST01 and TEST04 -> a complete submission tree (round "demo" = rules/demo.json: the v6.1 rules
#   plus digits, 1 s minimum duration) -> infer (the INT8 system measures SingleStream only) ->
#   truncate -> check (no errors) -> package -> verify the package -> index -> reports.
#
# Two systems of the example submitter "MLSubmitDemo" (an edge closed submission needs
# SingleStream, MultiStream and Offline; MultiStream and Offline may be inferred):
#   demo-cpu-fp32: digits FP32 measured in SingleStream and Offline; MultiStream inferred;
#   demo-cpu-int8: digits INT8 measured in SingleStream; MultiStream and Offline inferred;
#   demo-cpu-tokens: the LLM-style tokens SUT in Offline, with TEST06 and TEST09.
# (A measured MultiStream run is a 99th percentile of ~1000 queries of a few hundred us: on a
# busy 2-core machine its run-to-run noise exceeds the TEST01/TEST04 tolerances.)
# Every step prints where its output is. DEMO_OUT (default demo-out) holds everything.
set -euo pipefail
BIN=${1:?usage: demo.sh path/to/mlsubmit}
OUT=${DEMO_OUT:-demo-out}
DATA=${DEMO_DATA:-data}
ROUND=demo
SUB=MLSubmitDemo
export MLSUBMIT_NO_PROGRESS=${MLSUBMIT_NO_PROGRESS:-1}
start=$(date +%s)
step() { printf '\n== %s\n' "$*"; }
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ROOT="$OUT/submission"
D="$ROOT/closed/$SUB"
echo "mlsubmit demo ($("$BIN" --version)) -> $OUT/"

step "dataset: checksum of the digits data"
"$BIN" dataset verify rules/datasets/digits.sha256 --root "$DATA/digits" --ignore-extra

# ---- the tree -----------------------------------------------------------------------------
mkdir -p "$D/systems" "$D/src/digits" "$D/documentation"
system_json() { # system_json SYSTEM NAME NOTES
  cat > "$D/systems/$1.json" <<JSON
{
    "division": "closed",
    "submitter": "$SUB",
    "status": "available",
    "system_type": "edge",
    "system_type_detail": "N/A",
    "system_name": "$2",
    "number_of_nodes": "1",
    "host_processor_model_name": "$(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo 2>/dev/null | tr -d '"' || echo CPU)",
    "host_processors_per_node": "1",
    "host_processor_core_count": "$(nproc)",
    "host_processor_frequency": "N/A",
    "host_processor_caches": "N/A",
    "host_memory_configuration": "N/A",
    "host_memory_capacity": "$(awk '/MemTotal/{printf "%d GB", $2/1048576}' /proc/meminfo)",
    "host_storage_capacity": "N/A (dataset in memory)",
    "host_storage_type": "N/A",
    "host_processor_interconnect": "N/A",
    "host_networking": "N/A",
    "host_networking_topology": "N/A",
    "host_network_card_count": "0",
    "accelerators_per_node": "0",
    "accelerator_model_name": "N/A",
    "accelerator_frequency": "N/A",
    "accelerator_host_interconnect": "N/A",
    "accelerator_interconnect": "N/A",
    "accelerator_interconnect_topology": "N/A",
    "accelerator_memory_capacity": "N/A",
    "accelerator_memory_configuration": "N/A",
    "accelerator_on-chip_memories": "N/A",
    "cooling": "Air",
    "hw_notes": "$3",
    "framework": "mlsubmit digits SUT $("$BIN" --version | awk '{print $2}')",
    "operating_system": "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME" || uname -s)",
    "other_software_stack": "mlsubmit embedded LoadGen",
    "sw_notes": ""
}
JSON
}
system_json demo-cpu-fp32 "mlsubmit demo CPU (FP32)" "digits MLP, FP32 inference on the host CPU"
system_json demo-cpu-int8 "mlsubmit demo CPU (INT8)" "digits MLP, INT8 inference on the host CPU"
cat > "$D/src/digits/README.md" <<MD
# Code: the digits benchmark

The implementation is the \`digits\` reference SUT of mlsubmit (\`src/loadgen/suts/digits.c\`,
\`src/loadgen/suts/digits_engine.c\`, model training in \`src/loadgen/digits.c\`), version
$("$BIN" --version | awk '{print $2}'). Runs: \`mlsubmit audit run TEST01|TEST04 --sut digits[:int8]
--model digits\`, see the README.md of each scenario directory.
MD
cat > "$D/documentation/calibration.md" <<'MD'
# Calibration

INT8: per-channel symmetric int8 weights of layer 1, per-tensor int8 weights of layer 2, uint8
hidden activations scaled by their maximum over the calibration split (row % 10 == 6) only.
MD

# scenario settings: a 100 us device cost per sample keeps the latencies steady
COST=${DEMO_COST:-100us}
settings() { # settings SCENARIO -> --set options
  case $1 in
    SingleStream) echo "--set min_duration_ms=1000 --set min_query_count=1024 --set single_stream_expected_latency_ns=100000" ;;
    MultiStream)  echo "--set min_duration_ms=1000 --set min_query_count=256 --set multi_stream_expected_latency_ns=800000" ;;
    Offline)      echo "--set min_duration_ms=1000 --set offline_expected_qps=40000" ;;
  esac
}
measure() { # measure SYSTEM SUT SCENARIO
  local sys=$1 sut=$2 scen=$3 dir="$D/results/$1/digits/$3" spec
  case $2 in *:*) spec="$2,cost=$COST" ;; *) spec="$2:cost=$COST" ;; esac
  mkdir -p "$dir"
  local set; set=$(settings "$scen")
  step "LoadGen: $sys digits $scen (reference runs + TEST01, then TEST04)"
  # The compliance audits compare latencies of separate runs: on a busy machine a scheduling
  # hiccup in one run can push its 99th percentile past the tolerance. Such a failed attempt is
  # reported and the scenario is measured again from scratch (at most 3 attempts).
  local attempt ok=0
  for attempt in 1 2 3; do
    rm -rf "$dir/accuracy" "$dir/performance" "$dir/TEST01" "$dir/TEST04"
    # shellcheck disable=SC2086
    if "$BIN" audit run TEST01 --quiet --sut "$spec" --model digits --scenario "$scen" --layout v6 \
         --data "$DATA" $set --output "$dir" &&
       "$BIN" audit run TEST04 --quiet --reuse-results --sut "$spec" --model digits --scenario "$scen" \
         --layout v6 --data "$DATA" $set --output "$dir"; then
      ok=1
      break
    fi
    echo "   attempt $attempt: an audit failed; measuring again"
    cat "$dir"/TEST0*/verify_performance.txt 2>/dev/null | grep -E "TEST (PASS|FAIL)" | sed 's/^/   /' || true
  done
  [ $ok = 1 ] || { echo "demo: $sys $scen: the audits failed 3 times" >&2; exit 1; }
  "$BIN" accuracy digits "$dir/accuracy/mlperf_log_accuracy.json" --data "$DATA/digits" -o "$dir/accuracy/accuracy.txt"
  printf '{\n  "input_data_types": "%s",\n  "retraining": "No",\n  "starting_weights_filename": "digits-fp32.bin",\n  "weight_data_types": "%s",\n  "weight_transformations": "%s"\n}\n' \
    "$([ "$sut" = digits:int8 ] && echo int8 || echo fp32)" "$([ "$sut" = digits:int8 ] && echo int8 || echo fp32)" \
    "$([ "$sut" = digits:int8 ] && echo "post-training quantization (calibration split)" || echo none)" > "$dir/measurements.json"
  # shellcheck disable=SC2001
  echo "$set" | sed 's/--set \([a-z_]*\)=\([0-9]*\)/digits.'"$scen"'.\1 = \2\n/g' | sed 's/^ *//;/^$/d' > "$dir/user.conf"
  cat > "$dir/README.md" <<MD
# $sys, digits, $scen

    mlsubmit audit run TEST01 --sut $spec --model digits --scenario $scen --layout v6 $set --output .
    mlsubmit audit run TEST04 --reuse-results --sut $spec --model digits --scenario $scen --layout v6 $set --output .
    mlsubmit accuracy digits accuracy/mlperf_log_accuracy.json -o accuracy/accuracy.txt
MD
}
for scen in SingleStream Offline; do measure demo-cpu-fp32 digits "$scen"; done
measure demo-cpu-int8 digits:int8 SingleStream
# ---- an LLM-style system: the tokens SUT, whose benchmark requires TEST06 and TEST09 ----------
# (self-contained: the system description, code README, the accuracy and performance runs, both
# audits, accuracy.txt; the default tokens timings, 50 ms to the first token and 5 ms per token,
# make an Offline run last more than the 1 s minimum duration)
llm_system() { # llm_system SYSTEM
  local sys=$1 dir="$D/results/$1/tokens/Offline" spec=tokens
  local set="--set use_token_latencies=1 --set min_duration_ms=1000 --set offline_expected_qps=2000"
  local run="--sut $spec --model tokens --scenario Offline --total-samples 1024"
  system_json "$sys" "mlsubmit demo CPU (LLM-style tokens)" "tokens SUT: LLM-style streaming generation emulated on the host CPU"
  sed -i "s/\"framework\": \"mlsubmit digits SUT/\"framework\": \"mlsubmit tokens SUT/" "$D/systems/$sys.json"
  mkdir -p "$D/src/tokens" "$dir"
  cat > "$D/src/tokens/README.md" <<MD
# Code: the tokens benchmark

The implementation is the \`tokens\` reference SUT of mlsubmit (\`src/loadgen/suts/tokens.c\`),
version $("$BIN" --version | awk '{print $2}'); its accuracy script is \`mlsubmit accuracy tokens\`.
MD
  step "LoadGen: $sys tokens Offline (accuracy and performance runs, TEST06, TEST09)"
  # shellcheck disable=SC2086
  "$BIN" loadgen run --quiet --mode accuracy $run $set -o "$dir/accuracy"
  # shellcheck disable=SC2086
  "$BIN" loadgen run --quiet $run $set -o "$dir/performance/run_1"
  rm -f "$dir/accuracy/mlperf_log_trace.json" "$dir/performance/run_1/mlperf_log_trace.json"
  local t
  for t in TEST06 TEST09; do
    # shellcheck disable=SC2086
    "$BIN" audit run $t --quiet $run --layout v6 $set --output "$dir" ||
      { echo "demo: $sys: $t failed" >&2; exit 1; }
  done
  "$BIN" accuracy tokens "$dir/accuracy/mlperf_log_accuracy.json" -o "$dir/accuracy/accuracy.txt"
  printf '{\n  "input_data_types": "int32",\n  "retraining": "No",\n  "starting_weights_filename": "N/A",\n  "weight_data_types": "N/A",\n  "weight_transformations": "none"\n}\n' \
    > "$dir/measurements.json"
  printf 'tokens.Offline.use_token_latencies = 1\ntokens.Offline.min_duration = 1000\ntokens.Offline.offline_expected_qps = 2000\n' > "$dir/user.conf"
  cat > "$dir/README.md" <<MD
# $sys, tokens, Offline

    mlsubmit loadgen run --mode accuracy $run $set -o accuracy
    mlsubmit loadgen run $run $set -o performance/run_1
    mlsubmit audit run TEST06 $run --layout v6 $set --output .
    mlsubmit audit run TEST09 $run --layout v6 $set --output .
    mlsubmit accuracy tokens accuracy/mlperf_log_accuracy.json -o accuracy/accuracy.txt
MD
}
llm_system demo-cpu-tokens
echo "-> submission tree: $ROOT"

step "infer: MultiStream of both systems, Offline of demo-cpu-int8, from SingleStream"
"$BIN" infer "$ROOT" --version $ROUND

step "truncate: accuracy logs (full logs kept in $OUT/backup)"
"$BIN" truncate "$ROOT" --backup "$OUT/backup" --version $ROUND
"$BIN" truncate --verify "$ROOT" --backup "$OUT/backup" --version $ROUND | tail -1

step "check (round $ROUND): must find no errors"
"$BIN" check "$ROOT" --version $ROUND --quiet --csv "$OUT/summary.csv" --json "$OUT/check.json" \
   --skip-extra-files-in-root-check

step "package"
"$BIN" package "$ROOT" -o "$OUT/$SUB.tar.gz" --version $ROUND --backup "$OUT/backup" --skip-extra-files-in-root-check
"$BIN" package --verify "$OUT/$SUB.tar.gz" | tail -1

step "index and reports"
"$BIN" index "$ROOT" --db "$OUT/index.sqlite" --version $ROUND --backup "$OUT/backup" --skip-extra-files-in-root-check
"$BIN" query "$OUT/index.sqlite" "SELECT Platform, Scenario, Result, Units, inferred FROM results ORDER BY Platform, Scenario"
"$BIN" report --db "$OUT/index.sqlite" --format html -o "$OUT/report.html" --title "mlsubmit demo results"
"$BIN" report --db "$OUT/index.sqlite" --format md -o "$OUT/report.md"
"$BIN" report --db "$OUT/index.sqlite" --format json -o "$OUT/summary_results.json"

end=$(date +%s)
cat <<TXT

== outputs ($((end - start)) s)
  submission tree      $ROOT
  full accuracy logs   $OUT/backup (records: $OUT/backup/mlsubmit-truncation.json)
  checker              $OUT/summary.csv, $OUT/check.json
  package              $OUT/$SUB.tar.gz (+ .sha256)
  index                $OUT/index.sqlite   (mlsubmit query $OUT/index.sqlite "SELECT ...")
  reports              $OUT/report.html, $OUT/report.md, $OUT/summary_results.json
TXT
