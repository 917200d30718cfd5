#!/usr/bin/env bash
# Generates a synthetic, valid MLPerf Inference submission tree for the checker's tests and
# benchmark (nothing is committed: trees are made at test time).
#
#   mkround.sh OUT [--version v3.1|v4.0|v4.1|v5.0|v5.1|v6.0|v6.1] [--submitters N] [--systems N]
#              [--big] [--interactive]
#
# v3.1 to v5.1 give the split layout (legacy profile), v6.0 and v6.1 the unified layout. Each
# submitter gets:
#   closed: an edge system "edge<i>" with resnet50 SingleStream/MultiStream/Offline (TEST01,
#           TEST04, and TEST05 where the round's check_compliance_dir asks for it: v3.1-v4.1;
#           Offline with power measurements) and a datacenter system "dc<i>" with the round's LLM
#           Offline/Server: llama3.1-8b (v5.1 on, TEST06), llama2-70b-99 (v5.0, v4.0; TEST06),
#           mixtral-8x7b (v4.1, TEST06, equal-issue mode in user.conf), gptj-99 (v3.1, no test);
#   open:   an edge system "opn<i>" with "mobilenet-v2" (mapped to resnet) SingleStream; before
#           v5.1 also "synthnet-v1" SingleStream, mapped to resnet by the submitter's
#           model_mapping.json.
# The detail logs carry only keys the round's LoadGen release writes (no num_errors before v5.1,
# no effective_sample_concatenate_permutation before v4.1, no token latencies before v4.0), and
# the power session the PTD version and client/server source checksums of that round's
# power_checker.py.
# --interactive adds llama3.1-8b Interactive to "dc<i>" (a Server-scenario log within the
# Interactive latency limits: first token 400 ms, 25 ms per output token).
# --big writes realistic-size detail logs (loaded_qsl_set, loadgen_file_sha1: ~100 KB each) and
# performance-mode accuracy logs of a few hundred KB, for the benchmark.
set -euo pipefail

OUT=${1:?usage: mkround.sh OUT [--version v5.1|v6.0] [--submitters N] [--systems N] [--big]}
shift
VERSION=v5.1 NSUB=1 NSYS=1 BIG=0 INTERACTIVE=0
while [ $# -gt 0 ]; do
  case $1 in
    --version) VERSION=$2; shift 2 ;;
    --submitters) NSUB=$2; shift 2 ;;
    --systems) NSYS=$2; shift 2 ;;
    --big) BIG=1; shift ;;
    --interactive) INTERACTIVE=1; shift ;;
    *) echo "mkround.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
case $VERSION in
  v5.1) SEEDS=(1780908523862526354 14771362308971278857 18209322760996052031); LAYOUT=split; PTD_VERSION=1.11.1 ;;
  v6.0) SEEDS=(2465351861681999779 14276810075590677512 3936089224930324775); LAYOUT=unified; PTD_VERSION=1.11.1 ;;
  v6.1) SEEDS=(2085463073848966840 2747215439041700203 16159082839903944936); LAYOUT=unified; PTD_VERSION=1.11.1 ;;
  v5.0|v4.1|v4.0|v3.1) LAYOUT=split ;;
  *) echo "mkround.sh: version must be v3.1, v4.0, v4.1, v5.0, v5.1, v6.0 or v6.1" >&2; exit 2 ;;
esac
# What differs before v5.1 (the seeds from each round's submission_checker.py MODEL_CONFIG, the
# keys from the LoadGen release's sources, the power tooling from its power/power_checker.py):
#   LLM          the datacenter system's model       TEST05   resnet's TEST05 run (test05 seeds)
#   TOKEN_LAT    use_token_latencies and the TTFT/TPOT results (LoadGen v4.0 on)
#   CONCAT       effective_sample_concatenate_permutation (v4.1 on)
#   NUM_ERRORS   num_errors (v5.1 on)                 COMPLETED_TOKENS  Server tokens/s (v4.1 on)
#   OLD_LOGS     0: the v5.1 generator's logs, unchanged (token results in every Offline/Server log)
#   PTD_LIST     server.json's ptd_config a list of analysers (power_checker.py of v5.1.1 on)
#   PTD_OLD_SRC  the power-dev sources of v3.1-v4.1 (lib/server.py and lib/summary.py differ)
#   MAPPING      an open model mapped by model_mapping.json
#   LLM_OFFLINE_SPQ  the LLM's Offline samples per query (default: its dataset; v3.1 asks every
#                model for 24576, OFFLINE_MIN_SPQ)
#   MLPERF_CONF  an mlperf.conf beside user.conf (check_measurement_dir asks for it before v5.0)
MLPERF_CONF=0 LLM_OFFLINE_SPQ= LLM=llama3.1-8b TEST05=0 TOKEN_LAT=1 CONCAT=1 NUM_ERRORS=1 COMPLETED_TOKENS=1 OLD_LOGS=0
PTD_LIST=1 PTD_OLD_SRC=0 MAPPING=0 LGVER="5.1.0 @ 0123abcd" T05_SEEDS=()
case $VERSION in
  v5.0) SEEDS=(6023615788873153749 15036839855038426416 9933818062894767841); PTD_VERSION=1.11.1
        LLM=llama2-70b-99 NUM_ERRORS=0 OLD_LOGS=1 PTD_LIST=0 MAPPING=1 LGVER="5.0.1 @ e618c314" ;;
  v4.1) SEEDS=(3066443479025735752 10688027786191513374 14962580496156340209); PTD_VERSION=1.10.0
        T05_SEEDS=(16799458546791641818 5453809927556429288 5435552105434836064)
        LLM=mixtral-8x7b TEST05=1 MLPERF_CONF=1 NUM_ERRORS=0 OLD_LOGS=1 PTD_LIST=0 PTD_OLD_SRC=1 MAPPING=1 LGVER="4.1 @ 379ee534" ;;
  v4.0) SEEDS=(13281865557512327830 198141574272810017 7575108116881280410); PTD_VERSION=1.10.0
        T05_SEEDS=(2376919268182438552 11176391829184272374 3911940905271271337)
        LLM=llama2-70b-99 TEST05=1 MLPERF_CONF=1 CONCAT=0 COMPLETED_TOKENS=0 NUM_ERRORS=0 OLD_LOGS=1 PTD_LIST=0
        PTD_OLD_SRC=1 MAPPING=1 LGVER="4.0 @ e39003a9" ;;
  v3.1) SEEDS=(148687905518835231 520418551913322573 811580660758947900); PTD_VERSION=1.10.0
        T05_SEEDS=(793197339507417767 255610748586851044 352213341366340113)
        LLM=gptj-99 LLM_OFFLINE_SPQ=24576 TEST05=1 MLPERF_CONF=1 TOKEN_LAT=0 CONCAT=0 COMPLETED_TOKENS=0 NUM_ERRORS=0 OLD_LOGS=1 PTD_LIST=0
        PTD_OLD_SRC=1 MAPPING=1 LGVER="3.1 @ 5a3f1e2b" ;;
esac
mkdir -p "$OUT"
TPL=$(mktemp -d)
trap 'rm -rf "$TPL"' EXIT

rec() { # rec KEY JSON-VALUE [is_error]
  printf ':::MLLOG {"key": "%s", "value": %s, "time_ms": 0.012000, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": %s, "is_warning": false, "file": "loadgen.cc", "line_no": 1, "pid": 100, "tid": 100}}\n' "$1" "$2" "${3:-false}"
}

# Big values shared by every log in --big mode
if [ "$BIG" = 1 ]; then
  {
    printf '{'
    for i in $(seq 1 900); do
      [ "$i" -gt 1 ] && printf ','
      printf '"/loadgen/src/file_%04d.cc":"%040x"' "$i" "$((i * 2654435761))"
    done
    printf '}'
  } > "$TPL/sha1.json"
  { printf '['; seq -s, 1 5000 | tr -d '\n'; printf ']'; } > "$TPL/qsl.json"
else
  printf '{"/loadgen.cc":"0123456789abcdef0123456789abcdef01234567"}' > "$TPL/sha1.json"
  printf '[0,1,2,3]' > "$TPL/qsl.json"
fi

# detail_log FILE SCENARIO MODEL MODE [power] [test05]
detail_log() {
  local i
  local f=$1 scen=$2 model=$3 mode=$4 power=${5:-0}
  local psc=1024 total=50000 spq=1 mq=100 llm=0 ttft=1911170364 tpot=25128964
  local seeds=("${SEEDS[@]}")
  [ "${6:-0}" = 1 ] && seeds=("${T05_SEEDS[@]}")
  # an Interactive result is a Server-scenario run under tighter latency limits
  [ "$scen" = Interactive ] && { scen=Server; ttft=400123456; tpot=25000000; }
  case $model in
    resnet) psc=1024; total=50000 ;;
    llama3.1-8b|gptj-99) psc=13368; total=13368; llm=1 ;;
    llama2-70b-99) psc=24576; total=24576; llm=1 ;;
    mixtral-8x7b) psc=15000; total=15000; llm=1 ;;
  esac
  # token results: in every Offline/Server log of the v5.1 generator, in the LLM's logs before
  local tok=$TOKEN_LAT
  [ "$OLD_LOGS" = 1 ] && [ $llm = 0 ] && tok=0
  case $scen in
    Offline) if [ "$model" = resnet ]; then spq=24576; else spq=${LLM_OFFLINE_SPQ:-$total}; fi; mq=1 ;;
    MultiStream) spq=8 ;;
  esac
  {
    rec loadgen_version "\"$LGVER\""
    rec loadgen_git_status_message '""'
    rec loadgen_file_sha1 "$(cat "$TPL/sha1.json")"
    rec test_datetime '"2025-08-01T13:04:17Z"'
    rec sut_name '"SynthSUT"'
    rec qsl_reported_total_count "$total"
    rec qsl_reported_performance_count "$psc"
    rec requested_scenario "\"$scen\""
    rec requested_test_mode "\"$mode\""
    [ "$TOKEN_LAT" = 1 ] && rec requested_use_token_latencies "$([ $llm = 1 ] && echo true || echo false)"
    rec effective_scenario "\"$scen\""
    rec effective_test_mode "\"$mode\""
    rec effective_samples_per_query "$spq"
    rec effective_target_latency_ns 0
    rec effective_min_duration_ms 600000
    rec effective_min_query_count "$mq"
    rec effective_qsl_rng_seed "${seeds[0]}"
    rec effective_sample_index_rng_seed "${seeds[1]}"
    rec effective_schedule_rng_seed "${seeds[2]}"
    rec effective_performance_sample_count "$psc"
    [ "$CONCAT" = 1 ] && rec effective_sample_concatenate_permutation "$([ $llm = 1 ] && echo true || echo false)"
    rec loaded_qsl_set "$(cat "$TPL/qsl.json")"
    if [ "$power" = 1 ]; then      # testing run (run_1)
      rec power_begin '"08-01-2025 17:04:17.291"'
      rec power_end '"08-01-2025 17:14:17.500"'
    elif [ "$power" = 2 ]; then    # ranging run
      rec power_begin '"08-01-2025 16:50:10.100"'
      rec power_end '"08-01-2025 17:00:10.300"'
    fi
    rec result_validity '"VALID"'
    rec result_perf_constraints_met true
    rec early_stopping_met true
    rec result_query_count 453399
    case $scen in
      SingleStream)
        rec early_stopping_latency_ss 1341022
        rec early_stopping_latency_ms 1382514
        rec result_qps_without_loadgen_overhead 757.865
        rec result_90.00_percentile_latency_ns 1340856
        rec result_99.00_percentile_latency_ns 1381731
        rec result_mean_latency_ns 1319496 ;;
      MultiStream)
        rec early_stopping_latency_ms 11060112
        rec result_mean_query_latency_ns 10854321
        rec result_99.00_percentile_per_query_latency_ns 11012345
        rec result_99.00_percentile_latency_ns 11012345
        rec result_mean_latency_ns 10854321 ;;
      Offline)
        rec result_samples_per_second 757.865
        [ "$tok" = 1 ] && rec result_tokens_per_second 5777.08
        rec result_99.00_percentile_latency_ns 90000000
        rec result_mean_latency_ns 50000000 ;;
      Server)
        rec result_completed_samples_per_sec 39.5
        # the Server result field of the v3.1 and v4.0 checkers (RESULT_FIELD_NEW)
        [ "$OLD_LOGS" = 1 ] && rec result_scheduled_samples_per_sec 39.6
        [ "$tok" = 1 ] && [ "$COMPLETED_TOKENS" = 1 ] && rec result_completed_tokens_per_second 5103.99
        if [ "$tok" = 1 ]; then
          rec result_first_token_99.00_percentile_latency_ns "$ttft"
          rec result_time_per_output_token_99.00_percentile_ns "$tpot"
        fi
        rec result_99.00_percentile_latency_ns "$ttft"
        rec result_mean_latency_ns 1000000 ;;
    esac
    if [ "$NUM_ERRORS" = 1 ]; then rec num_errors 0; fi
  } > "$f"
}

summary_log() { local s=$2; [ "$s" = Interactive ] && s=Server; printf '================================================\nMLPerf Results Summary\n================================================\nSUT name : SynthSUT\nScenario : %s\nMode     : PerformanceOnly\nResult is : VALID\n' "$s" > "$1"; }

acc_txt() { # acc_txt FILE MODEL
  case $2 in
    resnet) printf 'accuracy=76.064%%, good=38032, total=50000\n' > "$1" ;;
    llama3.1-8b) printf "{'rouge1': 38.9, 'rouge2': 16.0, 'rougeL': 24.6, 'rougeLsum': 35.9, 'gen_len': 8167644, 'gen_num': 13368}\n" > "$1" ;;
    gptj-99) printf "{'rouge1': 43.0, 'rouge2': 20.1, 'rougeL': 30.0, 'rougeLsum': 40.1, 'gen_len': 4016878, 'gen_num': 13368}\n" > "$1" ;;
    llama2-70b-99) printf "{'rouge1': 44.4, 'rouge2': 22.0, 'rougeL': 28.6, 'rougeLsum': 42.0, 'gen_len': 28124112, 'gen_num': 24576, 'gen_tok_len': 7236158, 'tokens_per_sample': 294.4}\n" > "$1" ;;
    mixtral-8x7b) printf "{'rouge1': 45.5, 'rouge2': 23.6, 'rougeL': 30.5, 'rougeLsum': 42.7, 'gsm8k': 73.7, 'mbxp': 60.2, 'gen_len': 2124552, 'gen_num': 15000, 'gen_tok_len': 2176770, 'tokens_per_sample': 145.1}\n" > "$1" ;;
  esac
  printf 'hash=%064x\n' 12345 >> "$1"
}

acc_json() { # small truncated accuracy log; --big: a few hundred KB for perf-mode logs
  if [ "${2:-0}" = 1 ] && [ "$BIG" = 1 ]; then
    { printf '[\n'; for i in $(seq 1 2500); do printf '{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%0128x" },\n' "$i" "$i" "$i"; done; printf ']\n'; } > "$1"
  else
    printf '[\n{ "seq_id" : 0, "qsl_idx" : 5, "data" : "0A0B" }\n]\n' > "$1"
  fi
}

system_json() { # system_json FILE DIVISION SUBMITTER TYPE NAME
  cat > "$1" <<EOF
{
    "division": "$2",
    "submitter": "$3",
    "status": "available",
    "system_type": "$4",
    "system_type_detail": "N/A",
    "system_name": "$5",
    "number_of_nodes": "1",
    "host_processor_model_name": "Synthetic CPU 64-core",
    "host_processors_per_node": "2",
    "host_processor_core_count": "64",
    "host_processor_frequency": "N/A",
    "host_processor_caches": "N/A",
    "host_memory_configuration": "16 x 32 GB DDR5",
    "host_memory_capacity": "512GB",
    "host_storage_capacity": "2TB",
    "host_storage_type": "NVMe SSD",
    "host_processor_interconnect": "N/A",
    "host_networking": "Ethernet",
    "host_networking_topology": "N/A",
    "host_network_card_count": "1",
    "accelerators_per_node": "8",
    "accelerator_model_name": "Synthetic Accelerator 80GB",
    "accelerator_frequency": "N/A",
    "accelerator_host_interconnect": "PCIe 5.0",
    "accelerator_interconnect": "N/A",
    "accelerator_interconnect_topology": "N/A",
    "accelerator_memory_capacity": "80GB",
    "accelerator_memory_configuration": "HBM3",
    "accelerator_on-chip_memories": "N/A",
    "cooling": "Air",
    "hw_notes": "synthetic",
    "framework": "SynthRT 1.0",
    "operating_system": "Linux",
    "other_software_stack": "none",
    "sw_notes": ""
}
EOF
}

impl_json() { printf '{\n  "input_data_types": "fp16",\n  "retraining": "No",\n  "starting_weights_filename": "weights.bin",\n  "weight_data_types": "fp8",\n  "weight_transformations": "quantization"\n}\n' > "$1"; }

# The files of a PTD client/server power session (mlcommons/power-dev) in PERF_DIR/power, with
# realistic client.json/server.json (sources checksums of the official release, PTD messages,
# phases around the LoadGen power_begin/power_end, SHA-1 of the result files), ptd_logs.txt and
# the spl.txt sample logs of the ranging and testing runs. The ranging run's logs are written
# here. power_rehash (lib/power.sh) re-records the checksums after a file changed.
POWER_SOURCES='{
        "__init__.py": "da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "client.py": "33ca4f26368777ac06e01f9567b714a4b8063886",
        "lib/__init__.py": "da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "lib/client.py": "ac2aa093c8e8bbc9569b9e2a3471bc64e58a2258",
        "lib/common.py": "611d8b29633d331eb19c9455ea3b5fa3284ed6df",
        "lib/external/__init__.py": "da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "lib/external/ntplib.py": "4da8f970656505a40483206ef2b5d3dd5e81711d",
        "lib/server.py": "9bc9a3b6b9b716520658ac175913bcbbdb354336",
        "lib/source_hashes.py": "60a2e02193209e8d392803326208d5466342da18",
        "lib/summary.py": "602a9fedfa503e5544d27ab3b0067f235047efc3",
        "lib/time_sync.py": "80894ef2389e540781ff78de94db16aa4203a14e",
        "server.py": "c3f90f2f7eeb4db30727556d0c815ebc89b3d28b",
        "tests/unit/__init__.py": "da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "tests/unit/test_server.py": "948c1995d4008bc2aa6c4046a34ffa3858d6d671",
        "tests/unit/test_source_hashes.py": "00468a2907583c593e6574a1f6b404e4651c221a"
    }'
if [ "$PTD_OLD_SRC" = 1 ]; then
  POWER_SOURCES=${POWER_SOURCES/9bc9a3b6b9b716520658ac175913bcbbdb354336/99303c836c683aa9017ec565104e636161d02acb}
  POWER_SOURCES=${POWER_SOURCES/602a9fedfa503e5544d27ab3b0067f235047efc3/aa92f0a3f975eecd44d3c0cd0236342ccc9f941d}
fi
. "$(dirname "${BASH_SOURCE[0]}")/power.sh"   # POWER_RESULT_FILES, power_rehash
SID=2025-08-01_16-49-50_synth
T0=$(date -u -d '2025-08-01 00:00:00' +%s)   # the power session's day, UTC
at() { echo "$((T0 + $1 * 3600 + $2 * 60 + $3))"; }   # at H M S -> epoch seconds

power_results() { # power_results PERF_DIR: the "results" table of client.json/server.json
  local p=$1 f sep=""
  printf '{'
  for f in $POWER_RESULT_FILES; do
    printf '%s\n        "%s": "%s"' "$sep" "$f" "$(sha1sum "$p/$f" | cut -c1-40)"
    sep=,
  done
  printf '\n    }'
}

power_session_json() { # power_session_json PERF_DIR client|server OFFSET
  local p=$1 who=$2 off=$3 m t sep=""
  local cu=0b6e1c1e-7a4d-4f1a-9c2e-3d1f5a6b7c8d su=5f2a9e4b-1c3d-4e5f-8a6b-7c8d9e0f1a2b
  t=$(at 16 49 45)
  printf '{\n    "version": "1.0",\n    "timezone": 0,\n'
  printf '    "modules": {"__main__": "%s.py", "lib": "lib/__init__.py", "lib.common": "lib/common.py"},\n' "$who"
  printf '    "sources": %s,\n    "messages": [\n' "$POWER_SOURCES"
  local msgs=("mlcommons/power client v4|mlcommons/power server v4"
              "time|$t.$((off == 0 ? 25 : 31))"
              "new,synth,$cu|OK $SID,$su"
              "session,$SID,start,ranging|OK" "session,$SID,stop,ranging|OK"
              "session,$SID,start,testing|OK" "session,$SID,stop,testing|OK" "session,$SID,done|OK")
  for m in "${msgs[@]}"; do
    printf '%s        {"cmd": "%s", "cmd_time": %s.1, "reply": "%s", "reply_time": %s.2}' "$sep" "${m%%|*}" "$t" "${m#*|}" "$t"
    sep=$',\n'
  done
  printf '\n    ],\n    "uuid": {"client": "%s", "server": "%s"},\n    "session_name": "%s",\n' "$cu" "$su" "$SID"
  printf '    "results": %s,\n' "$(power_results "$p")"
  printf '    "phases": {\n        "ranging": [[%s.%s, 101.0], [%s.%s, 111.0], [%s.%s, 721.0], [%s.%s, 736.0]],\n' \
    "$(at 16 49 55)" "$off" "$(at 16 50 5)" "$off" "$(at 17 0 15)" "$off" "$(at 17 0 30)" "$off"
  printf '        "testing": [[%s.%s, 941.0], [%s.%s, 951.0], [%s.%s, 1566.0], [%s.%s, 1581.0]]\n    }' \
    "$(at 17 4 0)" "$off" "$(at 17 4 10)" "$off" "$(at 17 14 25)" "$off" "$(at 17 14 40)" "$off"
  if [ "$who" = server ]; then
    local go="Starting untimed measurement, maximum 500000 samples at 1000ms with 0 rampup samples"
    local ptd=("Hello|Hello, PTDaemon here!" "Identify|YokogawaWT310,C2PH13047V,version=$PTD_VERSION-2024-03-11"
               "RR|Ranges,1,-1.000000,1,-1.000000" "SR,V,Auto|Range V changed" "SR,A,Auto|Range A changed"
               "Go,1000,0,${SID}_ranging|$go" "Stop|Stopping untimed measurement"
               "SR,V,264.5|Range V changed" "SR,A,2.2|Range A changed"
               "Go,1000,0,${SID}_testing|$go" "Stop|Stopping untimed measurement"
               "Stop|Error: no measurement to stop" "SR,V,Auto|Range V changed" "SR,A,Auto|Range A changed")
    # power_checker.py of v5.1.1 on takes the initial Amps range from the 3rd or the 4th SR,A command
    # and needs both to exist
    ptd+=("SR,A,Auto|Range A changed")
    printf ',\n    "ptd_messages": [\n'
    sep=""
    for m in "${ptd[@]}"; do printf '%s        {"cmd": "%s", "reply": "%s"}' "$sep" "${m%%|*}" "${m#*|}"; sep=$',\n'; done
    local cfg='{"command": ["ptd-linux-x86", "-l", "ptd_logs.txt", "-p", "8888", "49", "/dev/usbtmc0"], "device_type": 49, "channel": null, "port": 8888}'
    [ "$PTD_LIST" = 1 ] && cfg="[$cfg]"  # a list of analysers (check_ptd_config of power_checker.py, v5.1.1 on)
    printf '\n    ],\n    "ptd_config": %s' "$cfg"
  fi
  printf '\n}\n'
}

power_files() { # power_files PERF_DIR SCENARIO MODEL (run_1 exists)
  local p=$1 scen=$2 model=$3 d s
  mkdir -p "$p/power" "$p/ranging"
  detail_log "$p/ranging/mlperf_log_detail.txt" "$scen" "$model" PerformanceOnly 2
  summary_log "$p/ranging/mlperf_log_summary.txt" "$scen"
  for s in 18 19 20 21 22 23 24 25; do
    printf 'Time,08-01-2025 17:%02d:%02d.000,Watts,%s,Volts,230.0,Amps,1.1,PF,0.99,Mark,%s_testing\n' $((4 + s / 10)) $((s % 10 * 6)) "$((200 + s)).5" "$SID"
  done > "$p/run_1/spl.txt"
  for s in 18 19 20 21 22 23 24 25; do
    printf 'Time,08-01-2025 16:%02d:%02d.000,Watts,%s,Volts,230.0,Amps,1.1,PF,0.99,Mark,%s_ranging\n' $((50 + s / 10)) $((s % 10 * 6)) "$((200 + s)).5" "$SID"
  done > "$p/ranging/spl.txt"
  {
    printf '08-01-2025 16:49:51.120: Connected to the power analyzer YokogawaWT310\n'
    printf '08-01-2025 16:49:51.250: Uncertainty checking for YokogawaWT310 is activated\n'
    printf "08-01-2025 16:50:00.500: Go with mark '%s_ranging'\n" "$SID"
    printf '08-01-2025 17:00:20.000: Completed test\n'
    printf "08-01-2025 17:04:05.500: Go with mark '%s_testing'\n" "$SID"
    printf '08-01-2025 17:14:30.000: Completed test\n'
  } > "$p/power/ptd_logs.txt"
  printf '2025-08-01 16:49:45 INFO client: connected to the server\n' > "$p/power/client.log"
  printf '2025-08-01 16:49:45 INFO server: new session %s\n' "$SID" > "$p/power/server.log"
  power_session_json "$p" client 0 > "$p/power/client.json"
  power_session_json "$p" server 5 > "$p/power/server.json"
}

# scenario SUBDIR(relative to submitter) SYSTEM MODEL_DIR MODEL SCEN DIVISION [power]
scenario() {
  local sub=$1 sys=$2 mdir=$3 model=$4 scen=$5 div=$6 power=${7:-0}
  local res="$sub/results/$sys/$mdir/$scen"
  mkdir -p "$res/accuracy" "$res/performance/run_1"
  detail_log "$res/accuracy/mlperf_log_detail.txt" "$scen" "$model" AccuracyOnly
  summary_log "$res/accuracy/mlperf_log_summary.txt" "$scen"
  acc_txt "$res/accuracy/accuracy.txt" "$model"
  acc_json "$res/accuracy/mlperf_log_accuracy.json"
  detail_log "$res/performance/run_1/mlperf_log_detail.txt" "$scen" "$model" PerformanceOnly "$power"
  summary_log "$res/performance/run_1/mlperf_log_summary.txt" "$scen"
  acc_json "$res/performance/run_1/mlperf_log_accuracy.json" 1
  local meas comp
  if [ "$LAYOUT" = split ]; then
    meas="$sub/measurements/$sys/$mdir/$scen"
    comp="$sub/compliance/$sys/$mdir/$scen"
    mkdir -p "$meas"
    impl_json "$meas/${sys}_$scen.json"
  else
    meas=$res
    comp=$res
    impl_json "$meas/measurements.json"
  fi
  printf '*.%s.target_qps = 100\n' "$scen" > "$meas/user.conf"
  # equal-issue mode, which the v4.1 checker reads from user.conf (check_measurement_dir)
  [ "$model" = mixtral-8x7b ] && printf '%s.%s.sample_concatenate_permutation = 1\n' "$model" "$scen" >> "$meas/user.conf"
  printf '# %s %s\nSteps to reproduce.\n' "$mdir" "$scen" > "$meas/README.md"
  if [ "$MLPERF_CONF" = 1 ]; then # a short synthetic one: model.scenario.key = value lines
    printf '# synthetic\n*.SingleStream.target_latency_percentile = 90\n*.MultiStream.target_latency_percentile = 99\n*.Server.target_latency_percentile = 99\n*.Offline.min_query_count = 1\n' > "$meas/mlperf.conf"
  fi
  if [ "$power" = 1 ]; then
    power_files "$res/performance" "$scen" "$model"
    printf 'analyzer: Yokogawa WT310\n' > "$meas/analyzer_table.md"
    printf 'power settings: default\n' > "$meas/power_settings.md"
  fi
  [ "$div" = open ] && return 0
  case $model in
    resnet)
      local tests="TEST01 TEST04"
      [ "$TEST05" = 1 ] && tests="TEST01 TEST04 TEST05"
      for t in $tests; do
        mkdir -p "$comp/$t/performance/run_1"
        detail_log "$comp/$t/performance/run_1/mlperf_log_detail.txt" "$scen" "$model" PerformanceOnly 0 \
          "$([ $t = TEST05 ] && echo 1 || echo 0)"
        summary_log "$comp/$t/performance/run_1/mlperf_log_summary.txt" "$scen"
        printf 'Verifying performance.\nreference score = 745.7\ntest score = 751.6\nTEST PASS\n' > "$comp/$t/verify_performance.txt"
      done
      printf 'Verifying accuracy. This might take a while...\nnum_perf_log_data_mismatch = 0\nTEST PASS\n' > "$comp/TEST01/verify_accuracy.txt"
      mkdir -p "$comp/TEST01/accuracy"
      acc_json "$comp/TEST01/accuracy/mlperf_log_accuracy.json"
      printf 'hash=%064x\n' 999 > "$comp/TEST01/accuracy/accuracy.txt" ;;
    llama3.1-8b|llama2-70b-99|mixtral-8x7b)
      mkdir -p "$comp/TEST06"
      printf 'First token check pass: True\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n' > "$comp/TEST06/verify_accuracy.txt" ;;
  esac
}

submitter() { # submitter INDEX
  local i=$1 name="Org$1"
  local c="$OUT/closed/$name" o="$OUT/open/$name"
  mkdir -p "$c/systems" "$c/documentation" "$o/systems" "$o/documentation"
  printf '# calibration\nNo calibration.\n' > "$c/documentation/calibration.md"
  printf '# calibration\nNo calibration.\n' > "$o/documentation/calibration.md"
  local code=code
  [ "$LAYOUT" = unified ] && code=src
  mkdir -p "$c/$code/resnet50" "$c/$code/$LLM" "$o/$code/mobilenet-v2"
  printf '# code\n' | tee "$c/$code/resnet50/README.md" "$c/$code/$LLM/README.md" "$o/$code/mobilenet-v2/README.md" >/dev/null
  if [ "$MAPPING" = 1 ]; then
    mkdir -p "$o/$code/synthnet-v1"
    printf '# code\n' > "$o/$code/synthnet-v1/README.md"
    printf '{\n    "synthnet-v1": "resnet"\n}\n' > "$o/model_mapping.json"
  fi
  local k
  for k in $(seq 1 "$NSYS"); do
    local e="edge$k" d="dc$k" p="opn$k"
    system_json "$c/systems/$e.json" closed "$name" edge "Synthetic edge box $k"
    system_json "$c/systems/$d.json" closed "$name" datacenter "Synthetic server $k"
    system_json "$o/systems/$p.json" open "$name" edge "Synthetic open box $k"
    scenario "$c" "$e" resnet50 resnet SingleStream closed
    scenario "$c" "$e" resnet50 resnet MultiStream closed
    scenario "$c" "$e" resnet50 resnet Offline closed 1
    scenario "$c" "$d" "$LLM" "$LLM" Offline closed
    scenario "$c" "$d" "$LLM" "$LLM" Server closed
    [ "$INTERACTIVE" = 1 ] && scenario "$c" "$d" "$LLM" "$LLM" Interactive closed
    scenario "$o" "$p" mobilenet-v2 resnet SingleStream open
    if [ "$MAPPING" = 1 ]; then scenario "$o" "$p" synthnet-v1 resnet SingleStream open; fi
  done
}

printf '# Synthetic MLPerf Inference %s round\n' "$VERSION" > "$OUT/README.md"
for i in $(seq 1 "$NSUB"); do submitter "$i"; done
