#!/usr/bin/env bash
# mlsubmit package and package --verify: checked first, byte-identical packages, the index inside,
# every flipped byte caught by member name, links leaving ROOT refused, no partial output when
# killed at random points.
source tests/e2e/lib.sh
M() { "$MLSUBMIT" "$@"; }
bash tests/e2e/lib/mkround.sh "$TMP/r" --version v5.1 >/dev/null
mkdir -p "$TMP/pk"
expect_exit 0 M package "$TMP/r" -o "$TMP/pk/a.tar.gz" --version v5.1
expect_grep "^check \\(rules v5.1\\): submission looks OK" "$TMP/out"
[ -f "$TMP/pk/a.tar.gz" ] && [ -f "$TMP/pk/a.tar.gz.sha256" ] && ok || fail "package and .sha256 expected"
(cd "$TMP/pk" && sha256sum -c a.tar.gz.sha256 >/dev/null) && ok || fail ".sha256 is not sha256sum -c compatible"
# reproducible: twice, and from a copy elsewhere with other mtimes
expect_exit 0 M package "$TMP/r" -o "$TMP/pk/b.tar.gz" --version v5.1
cmp -s "$TMP/pk/a.tar.gz" "$TMP/pk/b.tar.gz" && ok || fail "two packages of the same tree differ"
cp -r "$TMP/r" "$TMP/copy"; touch -d '2001-02-03' "$TMP/copy/closed/Org1/systems/"*.json
expect_exit 0 M package "$TMP/copy" -o "$TMP/pk/c.tar.gz" --version v5.1
cmp -s "$TMP/pk/a.tar.gz" "$TMP/pk/c.tar.gz" && ok || fail "the same tree elsewhere with other mtimes packages differently"
# contents: index first, sorted, fixed owner/mtime, no absolute or .. names
tar -tzvf "$TMP/pk/a.tar.gz" > "$TMP/list"
head -1 "$TMP/list" | grep -q ' \.mlsubmit/index.sqlite$' && ok || fail "the index must be the first member"
sed -n 2p "$TMP/list" | grep -q ' \.mlsubmit/index.sqlite.sha256$' && ok || fail "the index digest must be the second member"
awk '{print $2, $4, $5}' "$TMP/list" | sort -u > "$TMP/attrs"
[ "$(cut -d' ' -f1 "$TMP/attrs" | sort -u)" = "root/root" ] && ok || fail "owner must be root/root"
[ "$(cut -d' ' -f2 "$TMP/attrs" | sort -u)" = "1970-01-01" ] && ok || fail "mtime must be fixed"
tar -tzf "$TMP/pk/a.tar.gz" | tail -n +3 > "$TMP/names"
LC_ALL=C sort -c "$TMP/names" && ok || fail "members are not sorted"
grep -qE '^/|(^|/)\.\.(/|$)' "$TMP/names" && fail "absolute or .. member name" || ok
(cd "$TMP/r" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) > "$TMP/tree"
grep -v '/$' "$TMP/names" | LC_ALL=C sort | cmp -s - "$TMP/tree" && ok || fail "files of the package differ from the tree"
# verify
expect_exit 0 M package --verify "$TMP/pk/a.tar.gz"
expect_grep "OK: [0-9]+ members, [0-9]+ ok, 0 changed, 0 missing, 0 extra, 0 errors; .sha256 matches" "$TMP/out"
# a flipped byte in any member is reported with that member's name
if have_python; then
  gzip -dc "$TMP/pk/a.tar.gz" > "$TMP/a.tar"
  python3 - "$TMP/a.tar" > "$TMP/members" <<'PY'
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    for m in t.getmembers():
        if m.isfile() and m.size > 0:
            print(m.offset_data, m.size, m.name)
PY
  n=0; caught=0
  while read -r off size name; do
    n=$((n + 1))
    cp "$TMP/a.tar" "$TMP/bad.tar"
    pos=$((off + (n * 7919) % size))
    byte=$(od -An -tu1 -j "$pos" -N1 "$TMP/bad.tar" | tr -d ' ')
    printf "$(printf '\\%03o' $(( (byte + 1) % 256 )))" | dd of="$TMP/bad.tar" bs=1 seek="$pos" conv=notrunc status=none
    gzip -n -c "$TMP/bad.tar" > "$TMP/bad.tar.gz"
    "$MLSUBMIT" package --verify "$TMP/bad.tar.gz" > "$TMP/vout" 2>&1
    rc=$?
    if [ $rc = 1 ] && grep -qF "CHANGED  ${name%.sha256}:" "$TMP/vout"; then caught=$((caught + 1))
    else fail "flipped byte in $name not reported (exit $rc)"; fi
  done < "$TMP/members"
  [ "$n" -gt 50 ] && [ "$caught" = "$n" ] && ok || fail "flip test: $caught of $n members caught"
  echo "flip test: $caught of $n members"
fi
# extra / missing members and a wrong .sha256
cp "$TMP/pk/a.tar.gz" "$TMP/pk/d.tar.gz"; echo "0000  d.tar.gz" > "$TMP/pk/d.tar.gz.sha256"
expect_exit 1 M package --verify "$TMP/pk/d.tar.gz"
expect_grep ".sha256 DIFFERS" "$TMP/out"
mkdir -p "$TMP/x/.mlsubmit"
(cd "$TMP/x" && tar -xzf "$TMP/pk/a.tar.gz" && echo extra > closed/Org1/extra.txt && rm closed/Org1/systems/edge1.json &&
   { echo .mlsubmit/index.sqlite; echo .mlsubmit/index.sqlite.sha256; find closed open -type f | LC_ALL=C sort; } > ../order &&
   tar --no-recursion -czf "$TMP/e.tar.gz" -T ../order)
expect_exit 1 M package --verify "$TMP/e.tar.gz"
expect_grep "EXTRA    closed/Org1/extra.txt" "$TMP/out"
expect_grep "MISSING  closed/Org1/systems/edge1.json" "$TMP/out"
# not a package
printf 'garbage' > "$TMP/g.tar.gz"
expect_exit 3 M package --verify "$TMP/g.tar.gz"
tar -czf "$TMP/h.tar.gz" -C "$TMP/r" closed
expect_exit 3 M package --verify "$TMP/h.tar.gz"
expect_grep "not an mlsubmit package" "$TMP/err"
# links: inside ROOT kept as links; to /etc/passwd or with .. leaving ROOT refused
cp -r "$TMP/r" "$TMP/l"
ln -s ../systems/edge1.json "$TMP/l/closed/Org1/code/sys-link"
expect_exit 0 M package "$TMP/l" -o "$TMP/pk/l.tar.gz" --version v5.1 --force
tar -tzvf "$TMP/pk/l.tar.gz" | grep -q 'closed/Org1/code/sys-link -> ../systems/edge1.json' && ok || fail "inner link not kept"
expect_exit 0 M package --verify "$TMP/pk/l.tar.gz"
ln -s /etc/passwd "$TMP/l/closed/Org1/code/pw"
expect_exit 1 M package "$TMP/l" -o "$TMP/pk/m.tar.gz" --version v5.1 --force
expect_grep "pw: symbolic link to '/etc/passwd' leaves the submission root" "$TMP/err"
rm "$TMP/l/closed/Org1/code/pw"; ln -s ../../../../etc/passwd "$TMP/l/closed/Org1/code/up"
expect_exit 1 M package "$TMP/l" -o "$TMP/pk/m.tar.gz" --version v5.1 --force
expect_grep "up: symbolic link to '../../../../etc/passwd' leaves the submission root" "$TMP/err"
[ ! -e "$TMP/pk/m.tar.gz" ] && ok || fail "a refused package left an output"
# checker errors: refused unless --force
cp -r "$TMP/r" "$TMP/bad"; rm "$TMP/bad/closed/Org1/systems/edge1.json"
expect_exit 1 M package "$TMP/bad" -o "$TMP/pk/n.tar.gz" --version v5.1
expect_grep "the checker finds errors" "$TMP/err"
expect_grep "errors: [A-Z][0-9]+ [a-z].* \\([0-9]+ findings?" "$TMP/err" "the refusal names the failing checks"
[ ! -e "$TMP/pk/n.tar.gz" ] && ok || fail "refused package written"
expect_exit 0 M package "$TMP/bad" -o "$TMP/pk/n.tar.gz" --version v5.1 --force
expect_grep "warning: packaged with --force on a failed check: " "$TMP/err"
# files at the root (S2): the refusal names the option that skips the check
cp -r "$TMP/r" "$TMP/s2"; echo notes > "$TMP/s2/notes.txt"
expect_exit 1 M package "$TMP/s2" -o "$TMP/pk/s2.tar.gz" --version v5.1
expect_grep "S2 files at the root \\(1 finding: 'notes.txt'; skipped by --skip-extra-files-in-root-check\\)" "$TMP/err"
expect_exit 0 M package "$TMP/s2" -o "$TMP/pk/s2.tar.gz" --version v5.1 --skip-extra-files-in-root-check
# output inside the tree refused; usage
expect_exit 2 M package "$TMP/r" -o "$TMP/r/self.tar.gz" --version v5.1
expect_exit 2 M package "$TMP/r"
expect_exit 2 M package --verify
# killed at random points: never a partial output, never a temporary file left
bash tests/e2e/lib/mkround.sh "$TMP/big" --version v5.1 --big >/dev/null
head -c 24000000 /dev/urandom > "$TMP/big/closed/Org1/code/weights.bin"
mkdir -p "$TMP/kill"
start=$(date +%s%N)
M package "$TMP/big" -o "$TMP/kill/ref.tar.gz" --version v5.1 >/dev/null 2>&1
dur_ms=$(( ($(date +%s%N) - start) / 1000000 ))
rm -f "$TMP/kill/"*
iters=${KILL_ITERATIONS:-25}
bad=0; complete=0
for i in $(seq 1 "$iters"); do
  delay=$(( (RANDOM * 7 + i * 131) % (dur_ms + 50) ))
  "$MLSUBMIT" package "$TMP/big" -o "$TMP/kill/p.tar.gz" --version v5.1 >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '0.%03d' "$delay")" 2>/dev/null || sleep 0.1
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  for f in "$TMP/kill"/* "$TMP/kill"/.[!.]*; do
    [ -e "$f" ] || continue
    case $(basename "$f") in
      p.tar.gz) "$MLSUBMIT" package --verify "$TMP/kill/p.tar.gz" >/dev/null 2>&1 || { bad=1; echo "partial package after kill $i" >&2; } ;;
      p.tar.gz.sha256) [ -e "$TMP/kill/p.tar.gz" ] || { bad=1; echo "checksum without package after kill $i" >&2; } ;;
      *) bad=1; echo "left after kill $i: $(basename "$f")" >&2 ;;
    esac
  done
  [ -e "$TMP/kill/p.tar.gz" ] && complete=$((complete + 1))
  rm -f "$TMP/kill/"*
done
[ $bad = 0 ] && ok || fail "a killed package left a partial or temporary output"
echo "kill test: $iters kills over a ${dur_ms} ms run, $complete completed before the kill"
finish
