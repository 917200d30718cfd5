#!/usr/bin/env bash
# `mlsubmit rules lint|list`: the committed rounds are clean; broken copies are reported with
# the JSON pointer of the problem and exit 1; usage errors exit 2.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
M() { $TEST_WRAP "$MLSUBMIT" "$@"; }

M rules lint rules/v3.0.json rules/v3.1.json rules/v4.0.json rules/v4.1.json rules/v5.0.json rules/v5.1.json rules/v6.0.json rules/v6.1.json >"$TMP/o" 2>&1 ||
  { echo "FAIL: committed rules do not lint clean"; cat "$TMP/o"; fail=1; }
[ "$(M rules list | tr '\n' ' ')" = "v0.5 v0.7 v1.0 v1.1 v2.0 v2.1 v3.0 v3.1 v4.0 v4.1 v5.0 v5.1 v6.0 v6.1 " ] || { echo "FAIL: rules list"; fail=1; }

lint_fails() { # lint_fails NAME REGEX SED-EXPRESSION
  sed "$3" rules/v6.1.json >"$TMP/$1.json"
  M rules lint "$TMP/$1.json" >"$TMP/o" 2>&1
  local rc=$?
  if [ $rc != 1 ] || ! grep -Eq "$2" "$TMP/o"; then
    echo "FAIL lint $1: exit $rc, expected 1 and /$2/"; cat "$TMP/o"; fail=1
  fi
}
lint_fails bad-profile '/profile: value is not one of' 's/"profile": "unified"/"profile": "fancy"/'
lint_fails bad-seed '/seeds/qsl_rng_seed' 's/"qsl_rng_seed": "2085463073848966840"/"qsl_rng_seed": "18446744073709551616000"/'
lint_fails missing-key "required property 'models'" 's/"models": \[/"modelz": [/'
lint_fails bad-scenario '/required_scenarios/datacenter/[^ ]*: value is not one of' '0,/"Offline"/s//"Offlien"/'
lint_fails unknown-key "property 'typo_key' is not allowed" 's/^{$/{ "typo_key": 1,/'
lint_fails missing-pattern "metric 'mAP' has no entry in accuracy_patterns" 's/"mAP": ".*(?:mAP=|.Total.:)\\\\s\*(\[\\\\d.\]+)",//'
# rules/compliance.json (the audit data): clean, and its TEST06-TEST09 values checked
M rules lint rules/compliance.json >"$TMP/o" 2>&1 ||
  { echo "FAIL: rules/compliance.json does not lint clean"; cat "$TMP/o"; fail=1; }
compliance_fails() { # compliance_fails NAME REGEX SED-EXPRESSION
  sed "$3" rules/compliance.json >"$TMP/$1.json"
  M rules lint "$TMP/$1.json" >"$TMP/o" 2>&1
  local rc=$?
  if [ $rc != 1 ] || ! grep -Eq "$2" "$TMP/o"; then
    echo "FAIL lint compliance $1: exit $rc, expected 1 and /$2/"; cat "$TMP/o"; fail=1
  fi
}
compliance_fails bounds 'tokens: min_output_tokens 300 > max_output_tokens 158.4' 's/"min_output_tokens": 129.6/"min_output_tokens": 300/'
compliance_fails threshold-type '/tests/TEST07/benchmarks/gpt-oss-120b/accuracy_threshold' 's/"accuracy_threshold": 60.698/"accuracy_threshold": "high"/'
compliance_fails scorer '/tests/TEST07/benchmarks/digits/scorer: value is not one of' 's/"scorer": "digits"/"scorer": "magic"/'
compliance_fails no-tolerance "required property 'tolerance' is missing" '0,/"tolerance": 0.001,/s///'
compliance_fails mode '/settings/mode: value must be 2' '0,/"mode": 2,/s//"mode": 1,/'
compliance_fails unknown-benchmark 'benchmarks/tokenz: no model of /models maps' '/"TEST09": {/,$ s/^        "tokens": {$/        "tokenz": {/'
compliance_fails required-without-values "model 'recs' \\(benchmark recs\\) has no /tests/TEST09" '/"required": {/,$ s/"e2e-rag-qna",$/"e2e-rag-qna", "recs",/'
printf '{ not json' >"$TMP/broken.json"
M rules lint "$TMP/broken.json" >"$TMP/o" 2>&1
[ $? = 1 ] && grep -q "not valid JSON" "$TMP/o" || { echo "FAIL: invalid JSON not reported"; cat "$TMP/o"; fail=1; }
M rules lint >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: lint without a file is not a usage error"; fail=1; }
M rules frobnicate >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: unknown subcommand is not a usage error"; fail=1; }
exit $fail
