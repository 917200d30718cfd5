#!/usr/bin/env bash
# Builds hostile inputs at test time (nothing is committed). Usage: mkhostile.sh OUT
#
# OUT/tree       a synthetic v5.1 submission (tests/e2e/lib/mkround.sh) with hostile structure:
#                symlinks out of the tree and in loops, names with a newline, non-UTF-8 bytes and
#                255 bytes, a 0-byte and a 60 MB file
# OUT/content    system JSONs nested 10,000 deep and with an integer beyond 64 bits
# OUT/logs       a detail log of a million garbage lines, one with a seed beyond 64 bits, an
#                accuracy log that is not JSON, an empty accuracy.txt, a summary that cannot be
#                read (mode 000; effective when the suite runs unprivileged)
# OUT/files/     the same hostile inputs as single files, for commands that take a file
# OUT/tar/       tarballs with '..', absolute and symlink members (for package --verify)
set -euo pipefail
OUT=${1:?usage: mkhostile.sh OUT}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT/files" "$OUT/tar"
bash "$HERE/../e2e/lib/mkround.sh" "$OUT/tree" --version v5.1 >/dev/null
cp -a "$OUT/tree" "$OUT/content"
cp -a "$OUT/tree" "$OUT/logs"
T=$OUT/tree
SUB=$(ls -d "$T"/closed/*/ | head -1)
SUB=${SUB%/}
RES=$(ls -d "$SUB"/results/*/ | head -1)
RES=${RES%/}
SCN=$(ls -d "$RES"/*/*/ | head -1)
SCN=${SCN%/}
F=$OUT/files

# --- single files ---
python_free_nest() { # N: a JSON document nested N levels deep
  local n=$1
  { head -c "$n" /dev/zero | tr '\0' '['; printf '1'; head -c "$n" /dev/zero | tr '\0' ']'; } 
}
python_free_nest 10000 > "$F/deep.json"
printf '{"submitter": "X", "division": "closed", "number_of_nodes": 123456789012345678901234567890, "system_name": "x", "status": "available"}\n' > "$F/bigint.json"
: > "$F/empty.txt"
truncate -s 60M "$F/big60.bin"
awk 'BEGIN { for (i = 0; i < 1000000; i++) print "garbage " i }' > "$F/garbage_detail.txt"
printf ':::MLLOG {"key": "effective_scenario", "value": "Offline"}\n:::MLLOG {"key": "effective_qsl_rng_seed", "value": 99999999999999999999999999}\n' > "$F/bigseed_detail.txt"
printf 'this is [not { json\n\x00\x01\xff\n' > "$F/notjson.json"
head -c 200000 /dev/urandom > "$F/random.bin"
printf '*.*.min_query_count = 5 # trailing\n\xff\xfe = \x00\n%s = 1\n' "$(head -c 5000 /dev/zero | tr '\0' 'k')" > "$F/bad.conf"
printf '../../etc/passwd  0000000000000000000000000000000000000000000000000000000000000000\n' > "$F/escape.sha256"
printf '0000000000000000000000000000000000000000000000000000000000000000  /etc/passwd\n' > "$F/absolute.sha256"

# --- the tree ---
ln -s /etc/passwd "$SCN/outside_link.txt"
mkdir -p "$RES/loopdir"
ln -s .. "$RES/loopdir/up"
ln -s loop_b "$RES/loop_a"
ln -s loop_a "$RES/loop_b"
touch "$SCN/name
with_newline.txt"
touch "$SCN/$(printf 'bad\xff\xfename.txt')"
touch "$SCN/$(head -c 251 /dev/zero | tr '\0' 'n').txt"
: > "$SCN/empty_file.txt"
cp "$F/big60.bin" "$SCN/big60.bin"
# --- the content tree ---
C=$OUT/content
CSUB=$(ls -d "$C"/closed/*/ | head -1)
CSUB=${CSUB%/}
CRES=$(ls -d "$CSUB"/results/*/ | head -1)
CRES=${CRES%/}
# the system JSON of a system with results is nested 10,000 deep; another system's JSON
# carries an integer beyond 64 bits
SYSNAME=$(basename "$CRES")
cp "$F/deep.json" "$CSUB/systems/$SYSNAME.json"
OTHER=$(ls "$CSUB/systems/" | grep -v "^$SYSNAME.json\$" | head -1)
[ -n "$OTHER" ] && sed -i 's/"number_of_nodes": *"*[0-9]*"*/"number_of_nodes": 123456789012345678901234567890/' "$CSUB/systems/$OTHER"
chmod -R a+rX "$C"
# --- the logs tree ---
C=$OUT/logs
PERFS=$(find "$C" -path '*performance/run_1/mlperf_log_detail.txt' | sort)
cp "$F/garbage_detail.txt" "$(echo "$PERFS" | sed -n 1p)"
sed -i 's/"value": [0-9]\{15,\}/"value": 99999999999999999999999999/' "$(echo "$PERFS" | sed -n 2p)"
ACCS=$(find "$C" -path '*/accuracy/mlperf_log_accuracy.json' | sort)
cp "$F/notjson.json" "$(echo "$ACCS" | sed -n 1p)"
: > "$(find "$C" -path '*/accuracy/accuracy.txt' | sort | sed -n 2p)"
SUMS=$(find "$C" -path '*performance/run_1/mlperf_log_summary.txt' | sort)
chmod -R a+rX "$C"
chmod 000 "$(echo "$SUMS" | sed -n 3p)"

# --- tarballs (package --verify) ---
D=$(mktemp -d)
mkdir -p "$D/sub"
printf 'hello\n' > "$D/sub/a.txt"
ln -s /etc/passwd "$D/sub/link"
tar -C "$D" -czf "$OUT/tar/symlink_out.tar.gz" sub
tar -C "$D" -czf "$OUT/tar/dotdot.tar.gz" --transform 's,^sub/a.txt,../../escaped.txt,' sub/a.txt
tar -C "$D" -czf "$OUT/tar/absolute.tar.gz" -P --transform 's,^sub/a.txt,/tmp/mlsubmit-absolute-member.txt,' sub/a.txt
head -c 1000 /dev/urandom > "$OUT/tar/notatar.tar.gz"
head -c 300 "$OUT/tar/symlink_out.tar.gz" > "$OUT/tar/truncated.tar.gz"
rm -rf "$D"
echo "$OUT"
