#!/usr/bin/env bash
# Mutation tests for `mlsubmit check`: generate a valid round (tests/e2e/lib/mkround.sh), copy
# it, break exactly one thing, and assert that exactly one finding (besides INFO notes) appears,
# with the expected check ID, severity and file (and, where given, message), and the matching exit
# status (1 for errors, 0 for warnings). Covers the legacy profile (v5.1) and the unified profile
# (v6.0). Mutations of a power result's logs re-record the power session's checksums
# (power_rehash) or pass --skip-power-check, so that only the intended check fires.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
. "$HERE/lib/power.sh"
bash "$HERE/lib/mkround.sh" "$TMP/base_v5.1" --version v5.1 || exit 1
bash "$HERE/lib/mkround.sh" "$TMP/base_v6.0" --version v6.0 || exit 1
bash "$HERE/lib/mkround.sh" "$TMP/base_v6.1" --version v6.1 || exit 1
# v6.1 power results need a nameplate (W6): the submission template's YAML for edge1
cat > "$TMP/base_v6.1/closed/Org1/systems/edge1_power.yaml" <<'EOF'
My System:
- My Rack 1:
  - My Server 1:
    - Description: 'Optional Description'
      Min PSUs Needed: 1
      PSUs:
      - Name: PSU 1
        PowerCapacityWatts: 1200
      - Name: PSU 2
        PowerCapacityWatts: 1200
  - My Switch 1:
    - Description: 'Optional Description'
      Min PSUs needed: 1
      PSUs:
      - Name: PSU 1
        PowerCapacityWatts: 1200
      - Name: PSU 2
        PowerCapacityWatts: 1200
EOF

declare -A covered=()
cases=0

# the unmodified trees are clean: no finding at all, exit 0
for v in v5.1 v6.0 v6.1; do
  if ! $TEST_WRAP "$MLSUBMIT" check "$TMP/base_$v" --version "$v" --no-csv --tsv "$TMP/base.tsv" >"$TMP/base.out" 2>&1; then
    echo "FAIL: the generated $v tree does not pass"; cat "$TMP/base.out"; exit 1
  fi
  if [ -s "$TMP/base.tsv" ]; then echo "FAIL: the generated $v tree has findings"; cat "$TMP/base.tsv"; exit 1; fi
done

# mutate NAME VERSION SEVERITY ID FILE SHELL-SNIPPET [OPTIONS] [MESSAGE-REGEX]
# (the snippet runs inside the copied tree; OPTIONS are extra `mlsubmit check` options)
mutate() {
  local name=$1 ver=$2 sev=$3 id=$4 file=$5 snippet=$6 opts=${7:-} msgre=${8:-}
  local t="$TMP/case"
  rm -rf "$t"
  cp -a "$TMP/base_$ver" "$t"
  if ! (cd "$t" && eval "$snippet"); then
    echo "FAIL $name: the mutation itself failed"; fail=1; return
  fi
  rm -f "$TMP/out.tsv"
  # shellcheck disable=SC2086
  $TEST_WRAP "$MLSUBMIT" check "$t" --version "$ver" --no-csv --tsv "$TMP/out.tsv" $opts >"$TMP/out.txt" 2>"$TMP/err.txt"
  local rc=$?
  cases=$((cases + 1))
  if [ ! -f "$TMP/out.tsv" ] || [ -s "$TMP/err.txt" ]; then
    echo "FAIL $name: exit $rc without a findings file, or with messages on stderr:"
    head -20 "$TMP/err.txt" | sed 's/^/    /'
    fail=1
    return
  fi
  local got n line
  got=$(grep -av '^INFO' "$TMP/out.tsv" || true)
  n=$(printf '%s' "$got" | grep -ac . || true)
  line=$(printf '%s' "$got" | head -1)
  local want_rc=1
  [ "$sev" = WARNING ] && want_rc=0
  if [ "$n" != 1 ] || [ "$(cut -f1 <<<"$line")" != "$sev" ] || [ "$(cut -f2 <<<"$line")" != "$id" ] ||
     [ "$(cut -f3 <<<"$line")" != "$file" ] || [ "$rc" != "$want_rc" ] ||
     { [ -n "$msgre" ] && ! cut -f6 <<<"$line" | grep -qE -- "$msgre"; }; then
    echo "FAIL $name: expected exactly '$sev $id $file${msgre:+ /$msgre/}' (exit $want_rc), got exit $rc and:"
    printf '%s\n' "$got" | sed 's/^/    /'
    [ "$rc" -gt 1 ] && sed 's/^/    /' "$TMP/out.txt" | tail -5
    fail=1
    return
  fi
  covered[$id]=1
}

C=closed/Org1
O=open/Org1
E=$C/results/edge1/resnet50
D=$C/results/dc1/llama3.1-8b
SSLOG=$E/SingleStream/performance/run_1/mlperf_log_detail.txt
OFFLOG=$E/Offline/performance/run_1/mlperf_log_detail.txt
setkey() { # setkey FILE KEY NEW-JSON-VALUE
  sed -i -E "s/(\"key\": \"$2\", \"value\": )(\"[^\"]*\"|[^,]*)/\1$3/" "$1"
  grep -q "\"key\": \"$2\", \"value\": $3," "$1"
}
delkey() { sed -i "/\"key\": \"$2\"/d" "$1"; }
addkey() { # addkey FILE KEY JSON-VALUE (appends a record)
  printf ':::MLLOG {"key": "%s", "value": %s, "time_ms": 1.0, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false}}\n' "$2" "$3" >>"$1"
}
add_error() { # add_error FILE: one LoadGen error record and num_errors = 1
  printf ':::MLLOG {"key": "error_invalid_config", "value": "synthetic failure", "time_ms": 1.0, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": true, "is_warning": false}}\n' >>"$1"
  setkey "$1" num_errors 1
}
export -f setkey delkey addkey add_error power_rehash
export POWER_RESULT_FILES

V=v5.1
# --- structure (S) ---
mutate S1 $V WARNING S1 bogus 'mkdir bogus && touch bogus/x'
mutate S2 $V ERROR S2 "" 'echo notes > notes.txt'
mutate S3 $V ERROR S3 closed 'touch closed/stray.txt'
mutate S4 $V ERROR S4 $C/documentation/link.md "ln -s does-not-exist $C/documentation/link.md"
mutate S5 $V ERROR S5 $C/documentation/big.bin "truncate -s 60M $C/documentation/big.bin"
mutate S6 $V ERROR S6 $C/documentation/.hidden "touch $C/documentation/.hidden"
mutate S7 $V ERROR S7 "$C/documentation/with space.md" "touch '$C/documentation/with space.md'"
mutate S8 $V ERROR S8 $C/code/resnet50/__pycache__ "mkdir $C/code/resnet50/__pycache__ && touch $C/code/resnet50/__pycache__/x.pyc"
mutate S9 $V ERROR S9 $C/documentation/empty "mkdir $C/documentation/empty"
mutate S10 $V ERROR S10 $C/systems/ghost.json "cp $C/systems/edge1.json $C/systems/ghost.json"
mutate S11 $V ERROR S11 $C/documentation/calibration.md "mv $C/documentation/calibration.md $C/documentation/calib.md"
mutate S12 $V WARNING S12 $C/documentation/outside.md "ln -s /bin/sh $C/documentation/outside.md"
mutate S13 $V WARNING S13 $C/documentation/$'bad\xff.md' "touch $C/documentation/\$'bad\\xff.md'"
# --- system description (Y) ---
SYS=$C/systems/edge1.json
mutate Y1 $V ERROR Y1 $C/systems/dc1.json "rm $C/systems/dc1.json"
mutate Y2 $V ERROR Y2 $SYS "sed -i 's/\"status\": \"available\"/\"status\": \"bogus\"/' $SYS"
mutate Y3 $V ERROR Y3 $SYS "sed -i 's/\"system_type\": \"edge\"/\"system_type\": \"edge, datacenter\"/' $SYS"
NETF='"is_network": "true", "network_type": "Ethernet", "network_media": "copper", "network_rate": "100G", "nic_loadgen": "x", "number_nic_loadgen": "1", "net_software_stack_loadgen": "x", "network_protocol": "TCP", "number_connections": "1", "nic_sut": "x", "number_nic_sut": "1", "net_software_stack_sut": "x", "network_topology": "x",'
mutate Y4 $V ERROR Y4 $SYS "sed -i 's/^{\$/{ $NETF/' $SYS"
mutate Y5 $V ERROR Y5 $SYS "sed -i 's/\"cooling\": \"Air\"/\"cooling\": \"\"/' $SYS"
mutate Y6 $V ERROR Y6 $SYS "sed -i 's/\"submitter\": \"Org1\"/\"submitter\": \"Other\"/' $SYS"
mutate Y7 $V ERROR Y7 $SYS "sed -i 's/\"division\": \"closed\"/\"division\": \"Closed\"/' $SYS"
mutate Y8 $V WARNING Y8 $SYS "sed -i 's/^{\$/{ \"extra_field\": \"x\",/' $SYS"
mutate Y9 $V ERROR Y9 $SYS "sed -i 's/\"system_name\": \"[^\"]*\"/\"system_name\": 42/' $SYS"
mutate Y9-notes $V ERROR Y9 $SYS "sed -i -e 's/\"hw_notes\": \"[^\"]*\"/\"hw_notes\": 42/' -e 's/\"sw_notes\": \"\"/\"sw_notes\": \"x\"/' $SYS" "" "hw_notes/sw_notes must be strings"
mutate Y10 $V WARNING Y10 $SYS "sed -i 's/\"host_processors_per_node\": \"2\"/\"host_processors_per_node\": 2.5/' $SYS"
# --- models and scenario sets (M) ---
mutate M2 $V ERROR M2 $C/results/edge1/resnet51 "mv $E $C/results/edge1/resnet51"
mutate M3 $V ERROR M3 $E "sed -i 's/\"system_type\": \"edge\"/\"system_type\": \"datacenter\"/' $SYS"
mutate M4 $V ERROR M4 $E/Server "cp -a $E/SingleStream $E/Server"
mutate M5 $V ERROR M5 $E "rm -rf $E/MultiStream"
mutate M6 $V ERROR M6 $D "rm -rf $D/Server"
mutate M7 $V ERROR M7 $O/model_mapping.json "printf '{\"mobilenet-v2\": ' > $O/model_mapping.json"
# --- measurements (E) ---
M=$C/measurements/edge1/resnet50
mutate E1 $V ERROR E1 $M/SingleStream "rm -rf $M/SingleStream"
mutate E2 $V ERROR E2 $M/SingleStream/user.conf ": > $M/SingleStream/user.conf"
mutate E3 $V ERROR E3 $M/Offline "rm $M/Offline/analyzer_table.md"
mutate E4 $V ERROR E4 $M/SingleStream/edge1_SingleStream.json "sed -i '/retraining/d' $M/SingleStream/edge1_SingleStream.json"
mutate E5 $V ERROR E5 $O/code/mobilenet-v2 "mv $O/code/mobilenet-v2 $O/code/other"
mutate E6 $V WARNING E6 $M/SingleStream/edge1_SingleStream.json "sed -i 's/\"weight_data_types\": \"fp8\"/\"weight_data_types\": 8/' $M/SingleStream/edge1_SingleStream.json"
# --- accuracy (A) ---
A=$E/SingleStream/accuracy
mutate A1 $V ERROR A1 $A/accuracy.txt "rm $A/accuracy.txt"
mutate A2 $V ERROR A2 $A "touch $A/extra.log"
mutate A3 $V ERROR A3 $A/accuracy.txt "sed -i 's/accuracy=76.064%/accuracy=70.000%/' $A/accuracy.txt"
mutate A4 $V ERROR A4 $A/accuracy.txt "sed -i '/^hash=/d' $A/accuracy.txt"
mutate A5 $V ERROR A5 $A/mlperf_log_accuracy.json "head -c 20000 /dev/zero | tr '\\\\0' x > $A/mlperf_log_accuracy.json"
mutate A6 $V ERROR A6 $A/mlperf_log_detail.txt "add_error $A/mlperf_log_detail.txt"
# open division: a failed accuracy is taken (A9), but an unparsable accuracy detail log is not (the
# reference raises in MLPerfLog there)
OA=$O/results/opn1/mobilenet-v2/SingleStream/accuracy
mutate A6-open-L1 $V ERROR L1 $OA/mlperf_log_detail.txt "truncate -s -30 $OA/mlperf_log_detail.txt"
mutate A7 $V WARNING A7 $A/mlperf_log_detail.txt "setkey $A/mlperf_log_detail.txt qsl_reported_total_count 49999"
# --- performance (P) ---
mutate P0 $V ERROR P0 $E/SingleStream/performance/run_1 "mv $E/SingleStream/performance/run_1 $E/SingleStream/performance/run_2"
mutate P1 $V ERROR P1 $E/SingleStream/performance/run_1 "touch $E/SingleStream/performance/run_1/extra.txt"
mutate P2 $V ERROR P2 $SSLOG "setkey $SSLOG result_validity '\"INVALID\"'"
mutate P3 $V ERROR P3 $D/Server/performance/run_1/mlperf_log_detail.txt "setkey $D/Server/performance/run_1/mlperf_log_detail.txt result_first_token_99.00_percentile_latency_ns 2911170364"
mutate P4 $V ERROR P4 $D/Offline/performance/run_1/mlperf_log_detail.txt "setkey $D/Offline/performance/run_1/mlperf_log_detail.txt effective_sample_concatenate_permutation false"
mutate P5 $V ERROR P5 $SSLOG "add_error $SSLOG"
mutate P5-neg $V ERROR P5 $SSLOG "setkey $SSLOG num_errors -1"
mutate P6 $V ERROR P6 $SSLOG "setkey $SSLOG effective_performance_sample_count 100"
mutate P7 $V ERROR P7 $SSLOG "setkey $SSLOG effective_qsl_rng_seed 42"
mutate P8 $V ERROR P8 $SSLOG "delkey $SSLOG early_stopping_latency_ss"
mutate P9 $V WARNING P9 $SSLOG "setkey $SSLOG early_stopping_met false"
mutate P10 $V ERROR P10 $D/Server/performance/run_1/mlperf_log_detail.txt "setkey $D/Server/performance/run_1/mlperf_log_detail.txt effective_target_latency_ns 30000000000"
PW=$E/Offline/performance
mutate P12 $V ERROR P12 $OFFLOG "setkey $OFFLOG effective_min_query_count 0 && power_rehash $PW"
mutate P13 $V ERROR P13 $OFFLOG "setkey $OFFLOG effective_samples_per_query 100 && power_rehash $PW"
mutate P14 $V ERROR P14 $SSLOG "setkey $SSLOG effective_min_duration_ms 60000"
mutate P17 $V WARNING P17 $SSLOG "setkey $SSLOG effective_test_mode '\"AccuracyOnly\"'"
# P15: the closed division turned into a valid network one, then one run's SUT without "Network SUT"
TO_NET="mv closed network && for f in network/Org1/systems/*.json; do sed -i \"s/^{\\\$/{ \$NETF/; s/\\\"division\\\": \\\"closed\\\"/\\\"division\\\": \\\"network\\\"/\" \$f; done && grep -rl SynthSUT network | xargs sed -i 's/\"SynthSUT\"/\"Network SUT synth\"/'"
# (--skip N1: the synthetic network system is an edge one, which mlsubmit's stricter N1 warns
# about: the Network division is datacenter only; test_network_check.sh tests N1-N3)
mutate P15 $V ERROR P15 network/Org1/results/edge1/resnet50/Offline/performance/run_1/mlperf_log_detail.txt \
  "$TO_NET && sed -i 's/\"Network SUT synth\"/\"SynthSUT\"/' network/Org1/results/edge1/resnet50/Offline/performance/run_1/mlperf_log_detail.txt && power_rehash network/Org1/results/edge1/resnet50/Offline/performance" "--skip N1"
MSLOG=$E/MultiStream/performance/run_1/mlperf_log_detail.txt
mutate I3 $V ERROR I3 $MSLOG "setkey $MSLOG effective_scenario '\"SingleStream\"' && setkey $MSLOG early_stopping_latency_ms 0 && addkey $MSLOG early_stopping_latency_ss 1341022"
mutate L1 $V ERROR L1 $SSLOG "sed -i 's/\"key\": \"sut_name\", \"value\": \"SynthSUT\"/\"key\": \"sut_name\", \"value\": SynthSUT/' $SSLOG"
mutate I4 $V ERROR I4 $D/Interactive/performance/run_1/mlperf_log_detail.txt \
  "mv $D/Server $D/Interactive && mv $C/measurements/dc1/llama3.1-8b/Server $C/measurements/dc1/llama3.1-8b/Interactive && mv $C/measurements/dc1/llama3.1-8b/Interactive/dc1_Server.json $C/measurements/dc1/llama3.1-8b/Interactive/dc1_Interactive.json && mv $C/compliance/dc1/llama3.1-8b/Server $C/compliance/dc1/llama3.1-8b/Interactive && I=$D/Interactive/performance/run_1/mlperf_log_detail.txt && setkey \$I effective_scenario '\"Offline\"' && setkey \$I effective_samples_per_query 13368 && setkey \$I effective_min_query_count 1 && setkey \$I result_first_token_99.00_percentile_latency_ns 400000000 && addkey \$I result_tokens_per_second 5103.99"
# --- power (W) ---
mutate W1 $V ERROR W1 $PW/run_1 "rm $PW/run_1/spl.txt"
mutate W2 $V ERROR W2 $PW/power "touch $PW/power/extra.txt"
mutate W3 $V ERROR W3 $PW/ranging/mlperf_log_detail.txt "delkey $PW/ranging/mlperf_log_detail.txt result_samples_per_second && power_rehash $PW"
mutate W5 $V ERROR W5 $PW/run_1/spl.txt "setkey $OFFLOG power_end '\"08-01-2025 17:04:18.000\"'" --skip-power-check
# W4: each check of the Power WG checker on realistic session files (lib/mkround.sh)
JC=$PW/power/client.json
JS=$PW/power/server.json
PL=$PW/power/ptd_logs.txt
T0=$(date -u -d '2025-08-01 00:00:00' +%s)
mutate W4-json $V ERROR W4 $JC "sed -i '/\"timezone\"/d' $JC" "" "session files.*lacks the required fields timezone"
mutate W4-src-c $V ERROR W4 $JC "sed -i 's/\"lib\\/common.py\": \"611d/\"lib\\/common.py\": \"711d/' $JC" "" "client sources checksum"
mutate W4-src-s $V ERROR W4 $JS "sed -i 's/\"server.py\": \"c3f9/\"server.py\": \"d3f9/' $JS" "" "server sources checksum"
mutate W4-ptdver $V ERROR W4 $JS "sed -i 's/version=1.11.1-/version=1.10.0-/' $JS" "" "PTD version '1.10.0' is not supported"
mutate W4-cfg $V ERROR W4 $JS "sed -i 's/\"ptd_config\": \[\(.*\)\]/\"ptd_config\": \1/' $JS" "" "ptd_config is not a list of analysers"
mutate W4-model $V ERROR W4 $JS "sed -i 's/\"YokogawaWT310,C2PH/\"FlukeNorma,C2PH/' $JS" "" "analyser 'FlukeNorma' is not supported"
mutate W4-reply $V ERROR W4 $JS "sed -i 's/\"SR,A,2.2\", \"reply\": \"Range A changed\"/\"SR,A,2.2\", \"reply\": \"Error: range\"/' $JS" "" "wrong reply to PTD command 'SR,A,2.2'"
mutate W4-range $V ERROR W4 $JS "sed -i 's/Ranges,1,-1.000000,1/Ranges,0,5.000000,1/' $JS" "" "Amps range was not set back.*SR,A,5.000000"
mutate W4-uuid $V ERROR W4 $JS "sed -i '/\"uuid\"/s/5f2a9e4b/5f2a9e4c/' $JS" "" "UUID.*server UUID differs"
mutate W4-session $V ERROR W4 $JS "sed -i '/\"session_name\"/s/synth\"/synth2\"/' $JC" "" "session name"
mutate W4-phase $V ERROR W4 $JS "sed -i -E '/\"ranging\": \\[\\[/s/\\[\\[([0-9]+)\\.5,/[[\\1.9,/' $JS" "" "phase 1 of ranging: client and server times differ by"
mutate W4-window $V ERROR W4 $OFFLOG "sed -i 's/$((T0 + 17 * 3600 + 4 * 60 + 10))\\./$((T0 + 17 * 3600 + 4 * 60 + 20))./' $JC $JS" "" "power_begin time .* is not within the testing phase"
# power_begin / power_end are found in any case (the Power WG checker lower-cases each line; W5,
# which reads the keys as JSON, is skipped): the upper-case key's time is the one out of the phase
mutate W4-case $V ERROR W4 $OFFLOG "sed -i 's/\"key\": \"power_begin\"/\"key\": \"POWER_Begin\"/' $OFFLOG && power_rehash $PW && sed -i 's/$((T0 + 17 * 3600 + 4 * 60 + 10))\\./$((T0 + 17 * 3600 + 4 * 60 + 20))./' $JC $JS" "--skip W5" "power_begin time .* is not within the testing phase"
mutate W4-short $V WARNING W4 $PW "setkey $OFFLOG power_end '\"08-01-2025 17:06:00.000\"' && power_rehash $PW" "" "testing run .* is shorter than the ranging run"
mutate W4-delta $V ERROR W4 $PW/run_1/spl.txt "sed -i 's/Watts,2\\([0-9]\\)/Watts,1\\1/' $PW/run_1/spl.txt && power_rehash $PW" "" "testing run .* is lower than that of the ranging run .* by more than 5 %"
mutate W4-msgs $V ERROR W4 $JS "sed -i 's/\"session,2025-08-01_16-49-50_synth,done\", \\(.*\\)\"reply\": \"OK\"/\"session,2025-08-01_16-49-50_synth,done\", \\1\"reply\": \"Error\"/' $JC" "" "client server messages.*replies to command"
mutate W4-proto $V ERROR W4 $JS "sed -i 's/mlcommons\\/power server v4/mlcommons\\/power server v5/' $JC $JS" "" "client \\(v4\\) and server \\(v5\\) versions differ"
mutate W4-sha1 $V ERROR W4 $PW/power/server.log "echo edited >> $PW/power/server.log" "" "results checksum.*SHA-1 of power/server.log differs"
mutate W4-unrec $V ERROR W4 $JS "sed -i '/\"power\\/client.log\": /d' $JC $JS" "" "results checksum.*power/client.log has no checksum"
mutate W4-ptderr $V ERROR W4 $PL "echo '08-01-2025 17:05:00.000: ERROR: Analyzer stopped responding' >> $PL && power_rehash $PW" "" "PTD log errors.*ERROR: Analyzer stopped responding"
mutate W4-ptdwarn $V WARNING W4 $PL "sed -i '3a 08-01-2025 16:55:00.000: ERROR: Unexpected range change' $PL && power_rehash $PW" "" "during ranging, treated as a warning"
mutate W4-usb $V WARNING W4 $PL "echo '08-01-2025 17:05:00.000: ERROR: USB.' >> $PL && power_rehash $PW" "" "accepted as a warning"
mutate W4-uncert $V ERROR W4 $PL "sed -i '/Uncertainty checking/d' $PL && power_rehash $PW" "" "Uncertainty checking for Yokogawa... is activated' is missing"
mutate W4-mark $V ERROR W4 $PL "sed -i 's/_ranging.$/_rangingX'\"'\"'/' $PL && power_rehash $PW" "" "cannot find the ranging measurement"
mutate W4-device $V ERROR W4 $JS "sed -i 's/\"device_type\": 49/\"device_type\": 50/' $JS" "" "PTD configuration.*device number 50 is not supported"
mutate W4-multich $V ERROR W4 $JS "sed -i 's/\"device_type\": 49/\"device_type\": 77/' $JS" "" "multichannel mode"
mutate W4-debug $V ERROR W4 $JS "sed -i 's/^    \"session_name\"/    \"debug\": true,\\n    \"session_name\"/' $JS" "" "debug mode"
# a common ranging-phase PTD error is accepted without a finding; so is a WARNING line (the
# reference's load window shrinks by 800 s at each end, so a 10-minute run never has one)
for v in v5.1; do
  t="$TMP/ok_ptd"; rm -rf "$t"; cp -a "$TMP/base_$v" "$t"
  sed -i "3a 08-01-2025 16:55:00.000: ERROR: Can't evaluate uncertainty of this sample!" "$t/$PL"
  echo '08-01-2025 17:09:00.000: WARNING: Uncertainty 2.10%, which is above 1.00% limit for the last sample!' >> "$t/$PL"
  power_rehash "$t/$PW"
  $TEST_WRAP "$MLSUBMIT" check "$t" --version $v --no-csv --tsv "$TMP/ok.tsv" >/dev/null 2>&1 || { echo "FAIL W4-accepted: exit $?"; fail=1; }
  [ -s "$TMP/ok.tsv" ] && { echo "FAIL W4-accepted: unexpected findings"; cat "$TMP/ok.tsv"; fail=1; }
done
# --- compliance (C) ---
CP=$C/compliance/edge1/resnet50/SingleStream
mutate C1 $V ERROR C1 $CP "rm -rf $CP"
mutate C2 $V ERROR C2 $CP/TEST04 "rm -rf $CP/TEST04"
mutate C3 $V ERROR C3 $CP/TEST04/performance/run_1/mlperf_log_detail.txt "setkey $CP/TEST04/performance/run_1/mlperf_log_detail.txt effective_schedule_rng_seed 7"
mutate C4 $V ERROR C4 $CP/TEST04/verify_performance.txt "sed -i 's/TEST PASS/TEST FAIL/' $CP/TEST04/verify_performance.txt"
mutate C5 $V ERROR C5 $CP/TEST01/accuracy "sed -i 's/TEST PASS/TEST FAIL/' $CP/TEST01/verify_accuracy.txt"
mutate C6 $V ERROR C6 $C/compliance/dc1/llama3.1-8b/Offline/TEST06/verify_accuracy.txt "sed -i 's/EOS check pass: True/EOS check pass: False/' $C/compliance/dc1/llama3.1-8b/Offline/TEST06/verify_accuracy.txt"

# --- unified profile (v6.0): what differs from the legacy profile ---
V=v6.0
SSLOG6=$E/SingleStream/performance/run_1/mlperf_log_detail.txt
mutate u-P9 $V ERROR P9 $SSLOG6 "setkey $SSLOG6 early_stopping_met false"
mutate u-A7 $V ERROR A7 $E/SingleStream/accuracy/mlperf_log_detail.txt "setkey $E/SingleStream/accuracy/mlperf_log_detail.txt qsl_reported_total_count 49999"
mutate u-E1 $V ERROR E1 $E/SingleStream/measurements.json "rm $E/SingleStream/measurements.json"
mutate u-E2 $V ERROR E2 $E/SingleStream/README.md "rm $E/SingleStream/README.md"
mutate u-M5 $V ERROR M5 $E "rm -rf $E/MultiStream"
mutate u-P2 $V WARNING P2 $SSLOG6 "setkey $SSLOG6 result_validity '\"INVALID\"'"
mutate u-P16 $V ERROR P16 $D/Offline/performance/run_1/mlperf_log_detail.txt "setkey $D/Offline/performance/run_1/mlperf_log_detail.txt effective_scenario '\"SingleStream\"' && addkey $D/Offline/performance/run_1/mlperf_log_detail.txt early_stopping_latency_ss 1000000"
mutate u-C2 $V ERROR C2 $E/SingleStream/TEST01 "rm -rf $E/SingleStream/TEST01"
mutate u-S9 $V WARNING S9 $C/documentation/empty "mkdir $C/documentation/empty"
PW6=$E/Offline/performance
mutate u-W1 $V ERROR W1 $PW6/run_1 "touch $PW6/run_1/extra.txt"
mutate u-W4-sr4 $V ERROR W4 $PW6/power/server.json "tac $PW6/power/server.json | sed '0,/\"SR,A,Auto\"/s//\"RR\"/' | tac > x.json && mv x.json $PW6/power/server.json" "" "cannot find command number 4 starting with 'SR,A'"
mutate u-W4-cfg $V ERROR W4 $PW6/power/server.json "sed -i 's/\"ptd_config\": \[\(.*\)\]/\"ptd_config\": \1/' $PW6/power/server.json" "" "ptd_config is not a list of analysers"
mutate u-W4-ptdver $V ERROR W4 $PW6/power/server.json "sed -i 's/version=1.11.1-/version=1.10.0-/' $PW6/power/server.json" "" "PTD version '1.10.0' is not supported"

# --- v6.1: nameplate power (W6) ---
V=v6.1
NP=$C/systems/edge1_power.yaml
mutate u-W6-absent $V WARNING W6 $NP "rm $NP" "" "no nameplate power YAML"
mutate u-W6-syntax $V ERROR W6 $NP "printf 'My System:\\n  - [unclosed\\n' > $NP" "" "cannot be read: line"
mutate u-W6-empty $V ERROR W6 $NP ": > $NP" "" "no YAML document|empty"
mutate u-W6-two $V ERROR W6 $NP "printf 'a: 1\\n---\\nb: 2\\n' > $NP" "" "more than one YAML document"
mutate u-W6-min $V ERROR W6 $NP "sed -i 's/Min PSUs Needed: 1/Min PSUs Needed: one/' $NP" "" "'Min PSUs Needed' is not an integer"

# --- M6 picks the scenario directory os.listdir visits last (check_results_dir of v5.1.1) ---
# A failed Server result of a model that needs Server or Interactive: the reference nulls its loop
# variable, the last scenario listed in the file system's order (not sorted). The directories are
# recreated so that Offline comes after Server in that order where the file system allows it.
t="$TMP/m6order"; rm -rf "$t"; cp -a "$TMP/base_v5.1" "$t"
listing() { python3 -c 'import os, sys; print(" ".join(d for d in os.listdir(sys.argv[1]) if d in ("Offline", "Server")))' "$1"; }
for s in Offline Server Offline; do
  [ "$(listing "$t/$D")" = "Server Offline" ] && break
  mv "$t/$D/$s" "$t/$D/$s.tmp" && mv "$t/$D/$s.tmp" "$t/$D/$s"
done
last=$(listing "$t/$D" | awk '{print $NF}')
rm "$t/$D/Server/accuracy/mlperf_log_accuracy.json"
$TEST_WRAP "$MLSUBMIT" check "$t" --version v5.1 --no-csv --json "$TMP/m6.json" >"$TMP/m6.out" 2>&1
rc=$?
cases=$((cases + 1))
nulled=$(python3 -c 'import json, sys; print(" ".join(sorted(r["key"].rsplit("/", 1)[1] for r in json.load(open(sys.argv[1]))["results"] if not r["valid"])))' "$TMP/m6.json" 2>/dev/null)
if [ "$last" = Offline ]; then want="Offline Server"; wantc="Results=4, NoResults=2"; else want="Server"; wantc="Results=5, NoResults=1"; fi
if [ $rc != 1 ] || [ "$nulled" != "$want" ] || ! grep -q "^$wantc," "$TMP/m6.out"; then
  echo "FAIL M6-order: listing '$(listing "$t/$D")', expected NoResults {$want} ($wantc), exit 1; got {$nulled}, exit $rc:"
  grep -E '^Results=' "$TMP/m6.out" | sed 's/^/    /'; fail=1
fi
[ "$last" = Offline ] || echo "note: M6-order: this file system lists Offline before Server; the case does not tell the orders apart here"

n=${#covered[@]}
echo "mutation cases: $cases, distinct check IDs asserted: $n"
echo "IDs: $(printf '%s\n' "${!covered[@]}" | sort -V | tr '\n' ' ')"
if [ "$n" -lt 40 ]; then echo "FAIL: fewer than 40 check IDs covered"; fail=1; fi
exit $fail
