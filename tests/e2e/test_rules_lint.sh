#!/usr/bin/env bash
# `mlsubmit rules lint|list`: the committed rounds are clean; broken copies are reported with
# the JSON pointer of the problem and exit 1; usage errors exit 2.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib/common.sh"
M() { $TEST_WRAP "$MLSUBMIT" "$@"; }

M rules lint rules/v5.0.json rules/v5.1.json rules/v6.0.json rules/v6.1.json >"$TMP/o" 2>&1 ||
  { echo "FAIL: committed rules do not lint clean"; cat "$TMP/o"; fail=1; }
[ "$(M rules list | tr '\n' ' ')" = "v5.0 v5.1 v6.0 v6.1 " ] || { echo "FAIL: rules list"; fail=1; }

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
printf '{ not json' >"$TMP/broken.json"
M rules lint "$TMP/broken.json" >"$TMP/o" 2>&1
[ $? = 1 ] && grep -q "not valid JSON" "$TMP/o" || { echo "FAIL: invalid JSON not reported"; cat "$TMP/o"; fail=1; }
M rules lint >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: lint without a file is not a usage error"; fail=1; }
M rules frobnicate >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: unknown subcommand is not a usage error"; fail=1; }
exit $fail
