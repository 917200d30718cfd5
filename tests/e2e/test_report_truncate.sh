#!/usr/bin/env bash
# mlsubmit truncate and truncate --verify: upstream's truncation (head 4096 + marker + tail 4096,
# hash line appended), backups, records, idempotence, and verification catching each kind of
# tampering.
source tests/e2e/lib.sh
M() { "$MLSUBMIT" "$@"; }
bigacc() { # bigacc FILE N
  { printf '[\n'; for i in $(seq 1 "$2"); do printf '{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%08X" },\n' "$i" "$i" "$i"; done
    printf '{ "seq_id" : 0, "qsl_idx" : 0, "data" : "00" }\n]\n'; } > "$1"
}
bash tests/e2e/lib/mkround.sh "$TMP/r" --version v5.1 >/dev/null
A="$TMP/r/closed/Org1/results/edge1/resnet50/SingleStream/accuracy"
C="$TMP/r/closed/Org1/compliance/edge1/resnet50/SingleStream/TEST01/accuracy"
O="$TMP/r/open/Org1/results/opn1"
bigacc "$A/mlperf_log_accuracy.json" 3000
bigacc "$C/mlperf_log_accuracy.json" 2000
cp "$A/mlperf_log_accuracy.json" "$TMP/full.json"
full_sha=$(sha256sum "$TMP/full.json" | cut -d' ' -f1)
expect_exit 0 M truncate "$TMP/r" --backup "$TMP/bak" --version v5.1 --dry-run
cmp -s "$A/mlperf_log_accuracy.json" "$TMP/full.json" && ok || fail "dry run changed a log"
expect_exit 0 M truncate "$TMP/r" --backup "$TMP/bak" --version v5.1
expect_grep "^summary: 2 truncated" "$TMP/out"
# upstream's form: 4096 bytes, marker, last 4096 bytes
{ head -c 4096 "$TMP/full.json"; printf '\n\n...\n\n'; tail -c 4096 "$TMP/full.json"; } > "$TMP/expect.json"
cmp -s "$A/mlperf_log_accuracy.json" "$TMP/expect.json" && ok || fail "truncated log differs from head+marker+tail"
[ "$(stat -c %s "$A/mlperf_log_accuracy.json")" = 8199 ] && ok || fail "an ASCII log truncates to 8199 bytes"
[ "$(tail -n 1 "$A/accuracy.txt")" = "hash=$full_sha" ] && ok || fail "accuracy.txt must end with hash=<sha256 of the full log>"
cmp -s "$TMP/bak/closed/Org1/results/edge1/resnet50/SingleStream/accuracy/mlperf_log_accuracy.json" "$TMP/full.json" && ok ||
  fail "the backup must hold the full log"
expect_grep "\"full_sha256\": \"$full_sha\", \"full_size\": $(stat -c %s "$TMP/full.json")" "$TMP/bak/mlsubmit-truncation.json"
# compliance TEST01: accuracy.txt holds only the hash line
grep -q '^hash=' "$C/accuracy.txt" && ok || fail "TEST01 accuracy.txt lacks the hash"
# the checker accepts the result (A4 hash, A5 size)
expect_exit 0 M check "$TMP/r" --version v5.1 --no-csv --quiet
# idempotent
expect_exit 0 M truncate "$TMP/r" --backup "$TMP/bak" --version v5.1
expect_grep "^summary: 0 truncated" "$TMP/out"
grep -c "^hash=$full_sha\$" "$A/accuracy.txt" | grep -qx 1 && ok || fail "a second run appended another hash line"
# verify
expect_exit 0 M truncate --verify "$TMP/r" --backup "$TMP/bak" --version v5.1
expect_grep "^verify: 2 verified, 0 mismatches" "$TMP/out"
# records from an index
expect_exit 0 M index "$TMP/r" --db "$TMP/i.db" --version v5.1 --backup "$TMP/bak"
expect_exit 0 M truncate --verify "$TMP/r" --backup "$TMP/bak" --version v5.1 --db "$TMP/i.db"
expect_grep "^verify: 2 verified" "$TMP/out"
# tampering: each is caught and named
cp -r "$TMP/r" "$TMP/r2"; cp -r "$TMP/bak" "$TMP/bak2"
printf 'x' >> "$TMP/bak2/closed/Org1/results/edge1/resnet50/SingleStream/accuracy/mlperf_log_accuracy.json"
expect_exit 1 M truncate --verify "$TMP/r2" --backup "$TMP/bak2" --version v5.1
expect_grep "MISMATCH closed/Org1/results/edge1/resnet50/SingleStream/accuracy/mlperf_log_accuracy.json: the backup is" "$TMP/out"
rm -rf "$TMP/r2" "$TMP/bak2"; cp -r "$TMP/r" "$TMP/r2"
sed -i 's/"data" : "00000005"/"data" : "000000FF"/' "$TMP/r2/closed/Org1/results/edge1/resnet50/SingleStream/accuracy/mlperf_log_accuracy.json"
expect_exit 1 M truncate --verify "$TMP/r2" --backup "$TMP/bak" --version v5.1
expect_grep "MISMATCH .*SingleStream/accuracy/mlperf_log_accuracy.json: the log in the tree .* is not the truncation" "$TMP/out"
rm -rf "$TMP/r2"; cp -r "$TMP/r" "$TMP/r2"
sed -i "s/^hash=$full_sha/hash=0000/" "$TMP/r2/closed/Org1/results/edge1/resnet50/SingleStream/accuracy/accuracy.txt"
expect_exit 1 M truncate --verify "$TMP/r2" --backup "$TMP/bak" --version v5.1
expect_grep "MISMATCH .*accuracy.txt has hash=0000" "$TMP/out"
rm -rf "$TMP/r2"; cp -r "$TMP/r" "$TMP/r2"
bigacc "$TMP/r2/closed/Org1/results/edge1/resnet50/Offline/accuracy/mlperf_log_accuracy.json" 2000
expect_exit 1 M truncate --verify "$TMP/r2" --backup "$TMP/bak" --version v5.1
expect_grep "MISMATCH .*Offline/accuracy/mlperf_log_accuracy.json: .* no truncation record" "$TMP/out"
# a backup that exists and differs is never overwritten
rm -rf "$TMP/r3"; cp -r "$TMP/r2" "$TMP/r3"
mkdir -p "$TMP/bak3/closed/Org1/results/edge1/resnet50/Offline/accuracy"
echo other > "$TMP/bak3/closed/Org1/results/edge1/resnet50/Offline/accuracy/mlperf_log_accuracy.json"
expect_exit 1 M truncate "$TMP/r3" --backup "$TMP/bak3" --version v5.1
expect_grep "already exists and differs" "$TMP/out"
# unified layout (v6.1): TEST01 inside the scenario directory
bash tests/e2e/lib/mkround.sh "$TMP/u" --version v6.1 >/dev/null
U="$TMP/u/closed/Org1/results/edge1/resnet50/SingleStream"
bigacc "$U/accuracy/mlperf_log_accuracy.json" 3000
bigacc "$U/TEST01/accuracy/mlperf_log_accuracy.json" 3000
expect_exit 0 M truncate "$TMP/u" --backup "$TMP/ubak" --version v6.1
expect_grep "truncated closed/Org1/results/edge1/resnet50/SingleStream/TEST01/accuracy/mlperf_log_accuracy.json" "$TMP/out"
expect_exit 0 M truncate --verify "$TMP/u" --backup "$TMP/ubak" --version v6.1
# an index of two rounds (v5.1 above, v6.1 here): --db verifies the records of the tree's round only
expect_exit 0 M index "$TMP/u" --db "$TMP/i.db" --version v6.1 --backup "$TMP/ubak"
expect_exit 0 M truncate --verify "$TMP/u" --backup "$TMP/ubak" --version v6.1 --db "$TMP/i.db"
expect_grep "^verify: 2 verified, 0 mismatches" "$TMP/out"
expect_exit 0 M truncate --verify "$TMP/r" --backup "$TMP/bak" --version v5.1 --db "$TMP/i.db"
expect_grep "^verify: 2 verified, 0 mismatches" "$TMP/out"
expect_exit 0 M check "$TMP/u" --version v6.1 --no-csv --quiet
# usage and input errors
expect_exit 2 M truncate "$TMP/r"
expect_exit 2 M truncate --backup "$TMP/b"
expect_exit 3 M truncate "$TMP/nope" --backup "$TMP/b" --version v5.1
expect_exit 3 M truncate --verify "$TMP/r" --backup "$TMP/empty" --version v5.1
finish
