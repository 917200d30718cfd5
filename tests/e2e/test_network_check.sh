#!/usr/bin/env bash
# The checker's Network division checks (src/checker/network.c, N1-N3: stricter than the official
# verdict, warnings unless --strict) on a real network-division submitter of v3.0
# (../shared/rounds/v3.0/tree/network/HPE): none fire on it as published; each fires on the
# mutation it exists for. The official network checks (Y4, Y5, P15) are test_check_mutations.sh's.
. "$(dirname "$0")/lib.sh"
need_shared
M=$MLSUBMIT
SRC=$SHARED/rounds/v3.0/tree/network/HPE
[ -d "$SRC" ] || { echo "SKIP: $SRC is absent"; exit 0; }
fresh() { rm -rf "$TMP/t"; mkdir -p "$TMP/t/network"; cp -r "$SRC" "$TMP/t/network/"; SYS=$(ls "$TMP"/t/network/HPE/systems/*.json); }

# as published: no N finding, looks OK even with --strict
fresh
expect_exit 0 $M check "$TMP/t" --version v3.0 --no-csv --strict
grep -qE ' N[123] ' "$TMP/out" && fail "N findings on the published submitter: $(grep -E ' N[123] ' "$TMP/out")" || ok

# N2: a network field left empty, a count that is not one: warnings (exit 0), errors with --strict
sed -i 's/"network_rate": "10Gb"/"network_rate": " "/; s/"number_connections": "1"/"number_connections": "many"/' "$SYS"
expect_exit 0 $M check "$TMP/t" --version v3.0 --no-csv
expect_grep 'WARNING N2 .*field network_rate: the network division needs it described' "$TMP/out"
expect_grep 'WARNING N2 .*field number_connections: expected a positive count of connections' "$TMP/out"
expect_exit 1 $M check "$TMP/t" --version v3.0 --no-csv --strict

# N1: the Network division is datacenter only
fresh
sed -i 's/"system_type": "datacenter"/"system_type": "edge"/' "$SYS"
$M check "$TMP/t" --version v3.0 --no-csv >"$TMP/out" 2>&1
expect_grep "WARNING N1 .*system_type 'edge': the Network division is for datacenter systems only" "$TMP/out"

# N3: no QDL code published
fresh
rm -rf "$TMP/t/network/HPE/code"
$M check "$TMP/t" --version v3.0 --no-csv >"$TMP/out" 2>&1
expect_grep "WARNING N3 +network/HPE/code: .*Query Dispatch Library's code" "$TMP/out"

# a round whose rules lack network_division gets none of them (rules are data)
fresh
mkdir -p "$TMP/data" && cp -r "$REPO/rules" "$REPO/schemas" "$TMP/data/"
python3 - "$TMP/data/rules/v3.0.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); del d["network_division"]; json.dump(d, open(sys.argv[1], "w"))
PY
sed -i 's/"system_type": "datacenter"/"system_type": "edge"/' "$SYS"
MLSUBMIT_DATA_DIR=$TMP/data $M check "$TMP/t" --version v3.0 --no-csv >"$TMP/out" 2>&1
expect_grep " M3 " "$TMP/out" "the edge system checked"
grep -qE " N1 " "$TMP/out" && fail "N1 without network_division in the rules" || ok
finish
