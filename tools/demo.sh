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
# The runs are sized from what the machine does now (see "sizing" below): on a busy machine the
# emulated device of each system is slower, so that the audits compare like with like.
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

# ---- sizing: the runs from what the machine does now ----------------------------------------
# The SUT emulates a device: a cost per sample it sleeps (cost=D of the digits SUT), plus the real
# model. TEST01 and TEST04 compare a 90th percentile latency (SingleStream) or a throughput
# (Offline) of separate runs within 10 % (20 % at or below 200 us). What moves between runs is
# the time a query spends outside the device: thread wake-ups, the model, and the share of the
# CPUs that other processes leave, which on a busy machine reaches milliseconds. A probe run of
# the SUT at the base cost measures that overhead (its 95th percentile latency minus the cost:
# above the 90th, so that a load which delays a few percent of the queries already counts);
# the device cost is NOISE_FACTOR times it (at least the base cost), so that the part of the
# latency the machine's load moves stays under a tenth of it. A thread that sleeps longer can
# wait longer for a CPU when it wakes up: when the cost grows, a second probe at that cost
# measures the overhead again, and the larger of the two sizes it. The LoadGen settings follow from
# the cost, so that no run can end short or out of generated queries:
#   SingleStream  expected latency = the cost, a lower bound of every query's latency (the
#                 LoadGen generates 2 x min_duration / expected latency queries);
#   Offline       expected QPS = 1.1 x workers / cost, an upper bound of the throughput (each
#                 worker sleeps the cost of every sample it infers), so the run lasts >= 1 s;
#                 at least the round's offline_min_samples_per_query per second.
# A second system (another SUT) reuses size_cost and settings with its own SUT spec.
# DEMO_COST=D skips the probe and uses D for every system.
BASE_COST_NS=100000
COST_STEP_NS=100000
COST_MAX_NS=${DEMO_COST_MAX_NS:-20000000}
NOISE_FACTOR=${DEMO_NOISE_FACTOR:-10}
WORKERS=2
sut_spec() { # sut_spec SUT COST_NS -> the --sut value with the device cost and the worker count
  local c="${2}ns"
  [ $(( $2 % 1000 )) != 0 ] || c="$(( $2 / 1000 ))us"
  case $1 in *:*) echo "$1,workers=$WORKERS,cost=$c" ;; *) echo "$1:workers=$WORKERS,cost=$c" ;; esac
}
PROBE_PERCENTILE=95.00
probe_overhead_ns() { # probe_overhead_ns SUT COST_NS -> 95th percentile latency minus the cost (ns)
  local probe="$OUT/probe" p c=$2
  rm -rf "$probe"
  "$BIN" loadgen run --quiet --scenario SingleStream --sut "$(sut_spec "$1" "$c")" --data "$DATA" \
     --set min_duration_ms=1000 --set min_query_count=64 --set single_stream_expected_latency_ns="$c" \
     -o "$probe" >/dev/null || true  # (a probe is sized, not audited: only its latencies count)
  p=$(awk -F': *' -v k="$PROBE_PERCENTILE percentile latency (ns)" 'index($0, k) == 1 {print $2; exit}' \
      "$probe/mlperf_log_summary.txt" 2>/dev/null)
  rm -rf "$probe"
  [ -n "$p" ] || { echo "demo: the probe run of $1 wrote no $PROBE_PERCENTILE percentile latency" >&2; return 1; }
  echo $(( p > c ? p - c : 0 ))
}
size_cost() { # size_cost SUT [FLOOR_NS] -> the device cost (ns) for the machine's current load
  local over cost floor=${2:-$BASE_COST_NS}
  if [ -n "${DEMO_COST:-}" ]; then
    cost=$(duration_ns "$DEMO_COST"); echo "   sizing: DEMO_COST=$DEMO_COST" >&2; echo "$cost"; return
  fi
  local at=$BASE_COST_NS probes=""
  cost=0
  while :; do
    over=$(probe_overhead_ns "$1" "$at") || return 1
    probes="$probes${probes:+, }$over ns at $at ns"
    local c=$(( (over * NOISE_FACTOR + COST_STEP_NS - 1) / COST_STEP_NS * COST_STEP_NS ))
    [ "$c" -ge "$cost" ] || c=$cost
    [ "$c" -ge "$floor" ] || c=$floor
    [ "$c" -le "$COST_MAX_NS" ] || c=$COST_MAX_NS
    cost=$c
    # a second probe at the chosen cost (once)
    [ "$at" = "$BASE_COST_NS" ] && [ "$cost" -gt "$BASE_COST_NS" ] || break
    at=$cost
  done
  echo "   sizing: $1 spends outside the device (p${PROBE_PERCENTILE%.00} of 1 s probes) $probes;" \
       "device cost $cost ns" >&2
  echo "$cost"
}
duration_ns() { # duration_ns 100us|2ms|1s|500ns -> ns
  local v=$1
  case $v in
    *ns) echo "${v%ns}" ;; *us) echo $(( ${v%us} * 1000 )) ;; *ms) echo $(( ${v%ms} * 1000000 )) ;;
    *s) echo $(( ${v%s} * 1000000000 )) ;; *) echo "demo: DEMO_COST=$v: expected e.g. 100us or 2ms" >&2; return 1 ;;
  esac
}
rule_number() { # rule_number KEY MODEL -> the model's number in an object of rules/ROUND.json
  awk -F: -v k="\"$1\"" -v m="\"$2\"" 'index($0, k) {f = 1; next} f && index($0, m) {gsub(/[^0-9]/, "", $2); print $2; exit}
    f && /^ *}/ {f = 0}' "rules/$ROUND.json"
}
OFFLINE_MIN_SPQ=$(rule_number offline_min_samples_per_query digits)
settings() { # settings SCENARIO COST_NS -> --set options
  local qps
  case $1 in
    SingleStream) echo "--set min_duration_ms=1000 --set min_query_count=1024 --set single_stream_expected_latency_ns=$2" ;;
    MultiStream)  echo "--set min_duration_ms=1000 --set min_query_count=256 --set multi_stream_expected_latency_ns=$(( 8 * $2 ))" ;;
    Offline)      qps=$(( (11 * WORKERS * 1000000000 / $2 + 9) / 10 ))
                  [ "$qps" -ge "${OFFLINE_MIN_SPQ:-0}" ] || qps=$OFFLINE_MIN_SPQ
                  echo "--set min_duration_ms=1000 --set offline_expected_qps=$qps" ;;
  esac
}
declare -A COST_OF=()
measure() { # measure SYSTEM SUT SCENARIO
  local sys=$1 sut=$2 scen=$3 dir="$D/results/$1/digits/$3" spec set
  mkdir -p "$dir"
  step "LoadGen: $sys digits $scen (reference runs + TEST01, then TEST04)"
  # One device cost per system, sized before its first scenario. The audits still compare runs
  # taken at different moments of a busy machine: a failed attempt is reported, and the scenario
  # is measured again from scratch (at most 3 attempts) at a device cost sized again from a new
  # probe, at least twice the last one.
  [ -n "${COST_OF[$sys]:-}" ] || COST_OF[$sys]=$(size_cost "$sut")
  local attempt ok=0
  for attempt in 1 2 3; do
    if [ "$attempt" -gt 1 ]; then COST_OF[$sys]=$(size_cost "$sut" $(( 2 * COST_OF[$sys] ))); fi
    spec=$(sut_spec "$sut" "${COST_OF[$sys]}")
    set=$(settings "$scen" "${COST_OF[$sys]}")
    rm -rf "$dir/accuracy" "$dir/performance" "$dir/TEST01" "$dir/TEST04"
    # shellcheck disable=SC2086
    if "$BIN" audit run TEST01 --quiet --sut "$spec" --model digits --scenario "$scen" --layout unified \
         --data "$DATA" $set --output "$dir" &&
       "$BIN" audit run TEST04 --quiet --reuse-results --sut "$spec" --model digits --scenario "$scen" \
         --layout unified --data "$DATA" $set --output "$dir"; then
      ok=1
      break
    fi
    echo "   attempt $attempt: an audit failed; measuring again"
    for v in "$dir"/TEST0*/verify_performance.txt; do
      [ -f "$v" ] || continue
      echo "   $(basename "$(dirname "$v")"): $(grep -E "TEST (PASS|FAIL)|score =" "$v" | tr '\n' ' ')"
    done
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

    mlsubmit audit run TEST01 --sut $spec --model digits --scenario $scen --layout unified $set --output .
    mlsubmit audit run TEST04 --reuse-results --sut $spec --model digits --scenario $scen --layout unified $set --output .
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
    "$BIN" audit run $t --quiet $run --layout unified $set --output "$dir" ||
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
    mlsubmit audit run TEST06 $run --layout unified $set --output .
    mlsubmit audit run TEST09 $run --layout unified $set --output .
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
