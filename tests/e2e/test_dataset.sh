#!/usr/bin/env bash
# End-to-end: mlsubmit dataset manifest / verify against coreutils' sha256sum, md5sum, sha1sum
# on a tree generated here (awkward names included), and the reports for changed, missing and
# extra files. Run from the repository root with MLSUBMIT set to the binary.
set -u
BIN=${MLSUBMIT:?set MLSUBMIT to the mlsubmit binary}
export MLSUBMIT_NO_PROGRESS=1 LC_ALL=C
T=$(mktemp -d "${TMPDIR:-/tmp}/mlsubmit-e2e-dataset.XXXXXX")
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT
fails=0
pass=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run EXPECTED_RC cmd... : runs with stdout in $T/out, stderr in $T/err
run() {
    local want=$1
    shift
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        bad "exit $rc (expected $want): $*"
        sed 's/^/  stdout: /' "$T/out" | head -20
        sed 's/^/  stderr: /' "$T/err" | head -20
        return 1
    fi
    ok
}
has() { # has FILE TEXT: fixed-string search
    if grep -qF -- "$2" "$1"; then ok; else bad "$1 lacks: $2"; sed 's/^/  | /' "$1" | head -20; fi
}
lacks() {
    if grep -qF -- "$2" "$1"; then bad "$1 should not contain: $2"; else ok; fi
}
same() {
    if cmp -s "$1" "$2"; then ok; else bad "$1 and $2 differ"; diff "$1" "$2" | head -20; fi
}
# coreutils' own manifest of a tree: relative paths, bytewise order, like ours
coreutils_sums() { # tool dir
    (cd "$2" && find . -type f -printf '%P\0' | sort -z | xargs -0 -r "$1" --)
}

D=$T/data
mkdir -p "$D/sub/deep" "$D/many"
printf 'abc' >"$D/a.txt"
printf 'spaced' >"$D/with space.txt"
printf 'nl' >"$D/new"$'\n'"line"
printf 'bs' >"$D/back\\slash"
printf 'cr' >"$D/car"$'\r'"riage"
printf 'latin' >"$D/bad"$'\xff\xfe'"name"
: >"$D/empty"
head -c 3000000 /dev/urandom >"$D/sub/deep/big.bin"
for i in $(seq 1 150); do printf 'file %d\n' "$i" >"$D/many/f$i.txt"; done

# ---- manifest: byte-identical to coreutils, and coreutils accepts it -----------------------------
run 0 "$BIN" dataset manifest "$D" && cp "$T/out" "$T/ours.sha256"
coreutils_sums sha256sum "$D" >"$T/theirs.sha256"
same "$T/ours.sha256" "$T/theirs.sha256"
has "$T/ours.sha256" '\'"$(printf nl | sha256sum | cut -c1-64)"'  new\nline'
(cd "$D" && sha256sum --quiet -c "$T/ours.sha256") >/dev/null 2>&1 && ok || bad "sha256sum -c rejects our manifest"
run 0 "$BIN" dataset manifest "$D" --jobs 1
same "$T/out" "$T/ours.sha256"
for algo in md5 sha1; do
    run 0 "$BIN" dataset manifest --algo "$algo" "$D"
    coreutils_sums "${algo}sum" "$D" >"$T/theirs.$algo"
    same "$T/out" "$T/theirs.$algo"
    run 0 "$BIN" dataset verify "$T/theirs.$algo" --root "$D"
    has "$T/out" "summary: OK: 158 listed, 158 ok, 0 missing, 0 changed, 0 extra, 0 unreadable"
done

# ---- verify: our manifest, coreutils' binary and BSD-tag forms ----------------------------------
run 0 "$BIN" dataset verify "$T/ours.sha256" --root "$D"
has "$T/out" "summary: OK: 158 listed, 158 ok"
(cd "$D" && find . -type f -printf '%P\0' | xargs -0 sha256sum -b --) >"$T/binary.sha256"
run 0 "$BIN" dataset verify "$T/binary.sha256" --root "$D"
(cd "$D" && find . -type f -printf '%P\0' | xargs -0 sha256sum --tag --) >"$T/tag.sha256"
run 0 "$BIN" dataset verify "$T/tag.sha256" --root "$D"
sed 's/$/\r/' "$T/ours.sha256" >"$T/crlf.sha256"
run 0 "$BIN" dataset verify "$T/crlf.sha256" --root "$D"

# ---- JSON manifest ---------------------------------------------------------------------------
run 0 "$BIN" dataset manifest "$D" --format json -o "$T/m.json"
has "$T/out" "wrote $T/m.json: 158 files"
has "$T/m.json" '"format": "mlsubmit-dataset-manifest"'
has "$T/m.json" '"algorithm": "sha256"'
has "$T/m.json" '"path_hex": "626164fffe6e616d65"'
has "$T/m.json" '"path": "new\nline"'
run 0 "$BIN" dataset verify "$T/m.json" --root "$D"
has "$T/out" "summary: OK: 158 listed, 158 ok"

# ---- a flipped byte, a missing file and an extra file, each by name -----------------------------
cp "$D/sub/deep/big.bin" "$T/big.orig"
# the file is random: write a byte other than the one there (one run in 256 found an 'X' there)
cur=$(dd if="$D/sub/deep/big.bin" bs=1 skip=1234567 count=1 status=none | od -An -tx1 | tr -d ' \n')
flip=X
[ "$cur" = 58 ] && flip=Y
printf '%s' "$flip" | dd of="$D/sub/deep/big.bin" bs=1 seek=1234567 conv=notrunc status=none
old=$(grep -F 'sub/deep/big.bin' "$T/ours.sha256" | cut -c1-64)
new=$(sha256sum "$D/sub/deep/big.bin" | cut -c1-64)
[ "$old" != "$new" ] && ok || bad "the flipped byte did not change the file"
mv "$D/with space.txt" "$T/moved-away"
mv "$D/new"$'\n'"line" "$T/moved-nl"
printf 'intruder' >"$D/sub/intruder"
run 1 "$BIN" dataset verify "$T/ours.sha256" --root "$D"
has "$T/out" "CHANGED  sub/deep/big.bin: expected sha256 $old, found $new"
has "$T/out" "MISSING  with space.txt"
has "$T/out" 'MISSING  new\nline'
has "$T/out" "EXTRA    sub/intruder"
has "$T/out" "summary: FAILED: 158 listed, 155 ok, 2 missing, 1 changed, 1 extra, 0 unreadable"
run 1 "$BIN" dataset verify "$T/ours.sha256" --root "$D" --ignore-extra
lacks "$T/out" "intruder"
has "$T/out" "extra ignored"
run 1 "$BIN" dataset verify "$T/ours.sha256" --root "$D" --json
has "$T/out" '"ok": false'
has "$T/out" '"missing": 2'
has "$T/out" '"path": "sub/intruder"'
has "$T/out" "\"found\": \"$new\""
# the JSON manifest knows sizes: a changed size is reported without hashing
printf 'abcd' >"$D/a.txt"
run 1 "$BIN" dataset verify "$T/m.json" --root "$D"
has "$T/out" "CHANGED  a.txt: size 4 bytes, expected 3 (not hashed)"
printf 'abc' >"$D/a.txt"
mv "$T/moved-away" "$D/with space.txt"
mv "$T/moved-nl" "$D/new"$'\n'"line"
rm "$D/sub/intruder"
mv "$T/big.orig" "$D/sub/deep/big.bin"

# ---- malformed manifests: path and line, exit 3 ---------------------------------------------------
head -2 "$T/ours.sha256" >"$T/bad.sha256"
echo "this is not a checksum line" >>"$T/bad.sha256"
run 3 "$BIN" dataset verify "$T/bad.sha256" --root "$D"
has "$T/err" "$T/bad.sha256:3: expected '<hex digest>  <file name>'"
printf '%s  x\n%s  y\n' "$old" "$(printf abc | md5sum | cut -c1-32)" >"$T/mixed.sha256"
run 3 "$BIN" dataset verify "$T/mixed.sha256" --root "$D"
has "$T/err" "mixed.sha256:2: this is a md5 digest but line 1 has a sha256 digest"
printf '{"format": "mlsubmit-dataset-manifest", "version": 1, "algorithm": "sha256", "files": [{"path": "a", "size": 1}]}' >"$T/bad.json"
run 3 "$BIN" dataset verify "$T/bad.json" --root "$D"
has "$T/err" "bad.json: files[0].digest: expected 64 hex digits"
run 3 "$BIN" dataset verify "$T/no-such-manifest" --root "$D"
run 3 "$BIN" dataset verify "$T/ours.sha256" --root "$T/no-such-dir"
run 3 "$BIN" dataset manifest "$T/no-such-dir"

# ---- usage errors: exit 2 ----------------------------------------------------------------------
run 2 "$BIN" dataset
run 2 "$BIN" dataset frobnicate
run 2 "$BIN" dataset manifest "$D" --algo crc32
run 2 "$BIN" dataset manifest "$D" --format xml
run 2 "$BIN" dataset manifest "$D" --jobs 0
run 2 "$BIN" dataset manifest
run 2 "$BIN" dataset verify
run 2 "$BIN" dataset verify "$T/ours.sha256" --bogus
# ---- runtime failures: exit 4 -----------------------------------------------------------------
if [ -w /dev/full ]; then
    run 4 sh -c '"$1" dataset manifest "$2" >/dev/full' sh "$BIN" "$D"
    has "$T/err" "write error"
    run 4 sh -c '"$1" dataset verify "$2" --root "$3" >/dev/full' sh "$BIN" "$T/ours.sha256" "$D"
fi
run 4 "$BIN" dataset manifest "$D" -o "$T/no-such-dir/out.sha256"
run 0 "$BIN" dataset --help
has "$T/out" "usage: mlsubmit dataset manifest DIR"
run 0 "$BIN" help dataset

# ---- the manifest inside the tree: left out when written, ignored when verifying -----------------
run 0 "$BIN" dataset manifest "$D" -o "$D/MANIFEST.sha256"
same "$D/MANIFEST.sha256" "$T/ours.sha256"
if ls -A "$D" | grep -q '\.tmp\.'; then bad "temporary file left in $D"; else ok; fi
run 0 "$BIN" dataset manifest "$D" -o "$D/MANIFEST.sha256" # again, now that it exists
same "$D/MANIFEST.sha256" "$T/ours.sha256"
run 0 "$BIN" dataset verify "$D/MANIFEST.sha256" # root defaults to the manifest's directory
has "$T/out" "summary: OK: 158 listed, 158 ok, 0 missing, 0 changed, 0 extra"
rm "$D/MANIFEST.sha256"
"$BIN" dataset manifest "$D" >"$D/SUMS" 2>"$T/err" && ok || bad "manifest into the tree via stdout"
same "$D/SUMS" "$T/ours.sha256" # SUMS itself is left out
rm "$D/SUMS"

# ---- symlinks are never followed -----------------------------------------------------------------
mkdir "$T/outside" && printf 'secret' >"$T/outside/secret"
ln -s "$T/outside/secret" "$D/link-out"
ln -s "$T/outside" "$D/dir-out"
ln -s . "$D/loop"
run 0 "$BIN" dataset manifest "$D"
same "$T/out" "$T/ours.sha256"
has "$T/err" "note: left out link-out: symbolic link (not followed)"
has "$T/err" "note: left out loop: symbolic link (not followed)"
run 0 "$BIN" dataset verify "$T/ours.sha256" --root "$D"
has "$T/out" "SKIPPED  dir-out: symbolic link (not followed)"
printf '%s  link-out\n' "$(printf secret | sha256sum | cut -c1-64)" >"$T/link.sha256"
run 1 "$BIN" dataset verify "$T/link.sha256" --root "$D" --ignore-extra
has "$T/out" "ERROR    link-out: symbolic link (not followed)"
rm "$D/link-out" "$D/dir-out" "$D/loop"

# ---- unreadable files: manifest refuses (exit 3), verify reports them (exit 1) -------------------
as_user=()
if [ "$(id -u)" = 0 ]; then
    command -v setpriv >/dev/null && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
    chmod 755 "$T"
    chmod -R a+rX "$D"
    chmod 0 "$D/a.txt"
    if [ ${#as_user[@]} -gt 0 ] && ! "${as_user[@]}" test -x "$BIN"; then
        echo "SKIP unreadable-file checks: $BIN is not executable by user nobody"
    else
        run 3 "${as_user[@]}" "$BIN" dataset manifest "$D"
        has "$T/err" "a.txt: cannot open: Permission denied"
        lacks "$T/out" "a.txt"
        run 1 "${as_user[@]}" "$BIN" dataset verify "$T/ours.sha256" --root "$D"
        has "$T/out" "ERROR    a.txt: cannot open: Permission denied"
        has "$T/out" "1 unreadable"
    fi
    chmod 644 "$D/a.txt"
else
    echo "SKIP unreadable-file checks: running as root without setpriv"
fi

# ---- empty files and an empty tree ---------------------------------------------------------------
mkdir "$T/void"
run 0 "$BIN" dataset manifest "$T/void" -o "$T/void.sha256"
[ -s "$T/void.sha256" ] && bad "manifest of an empty tree is not empty" || ok
run 0 "$BIN" dataset verify "$T/void.sha256" --root "$T/void"
has "$T/out" "summary: OK: 0 listed"
has "$T/ours.sha256" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty"

# ---- the digits dataset against its manifest in rules/ -------------------------------------------
if [ -f rules/datasets/digits.sha256 ] && [ -f data/digits/digits.csv.gz ]; then
    # the manifest's paths are relative to data/digits or to the repository root
    first=$(grep -v '^#' rules/datasets/digits.sha256 | head -1 | sed -E 's/^[0-9a-fA-F]+ [ *]//')
    root=.
    [ -f "data/digits/$first" ] && root=data/digits
    run 0 "$BIN" dataset verify rules/datasets/digits.sha256 --root "$root" --ignore-extra
    has "$T/out" "summary: OK:"
    lacks "$T/out" "MISSING"
else
    echo "SKIP digits: rules/datasets/digits.sha256 or data/digits/digits.csv.gz is absent"
fi

echo "test_dataset: $pass checks passed, $fails failed"
[ "$fails" -eq 0 ]
