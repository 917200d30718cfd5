#!/usr/bin/env bash
# The subcommands' option parser (src/cli/parseopt.c) and the checker's options listed once
# (src/cli/rpopts.c): --name=value, prefixes, the usage errors' wording and exit 2, --help from
# the option tables, the checker's flags in every command that runs the checker.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
M=$MLSUBMIT

# usage errors: exit 2, the option named, a hint to --help
expect_exit 2 "$M" check --bogus x;            expect_grep "unknown option '--bogus'" "$TMP/err"
expect_grep "see 'mlsubmit check --help'" "$TMP/err"
expect_exit 2 "$M" check x --csv;              expect_grep "--csv needs a value" "$TMP/err"
expect_exit 2 "$M" check x --strict=1;         expect_grep "--strict takes no value" "$TMP/err"
expect_exit 2 "$M" check x --skip Q42;         expect_grep "unknown check ID 'Q42'" "$TMP/err"
expect_exit 2 "$M" check a b;                  expect_grep "more than one submission root \('a' and 'b'\)" "$TMP/err"
expect_exit 2 "$M" index -z;                   expect_grep "unknown option '-z'" "$TMP/err"
expect_exit 2 "$M" package --jobs 0 x;         expect_grep "--jobs wants 1..256, not '0'" "$TMP/err"
expect_exit 2 "$M" report --format=xml x;      expect_grep "--format wants csv, md, html or json, not 'xml'" "$TMP/err"
expect_exit 2 "$M" report x;                   expect_grep "--format csv\|md\|html\|json is required" "$TMP/err"
expect_exit 2 "$M" infer a b;                  expect_grep "only one ROOT may be given \('b'\)" "$TMP/err"
expect_exit 2 "$M" serve --max-seconds=-1;     expect_grep "--max-seconds: expected a positive number" "$TMP/err"
expect_exit 2 "$M" loadgen check-conf --model m --scenario Offline --loadgen-compat 9.9 f
expect_grep "--loadgen-compat: expected one of" "$TMP/err"
expect_exit 2 "$M" loadgen run --scenario Offline --sut null --total-samples 0
expect_grep "--total-samples: expected a positive integer, got '0'" "$TMP/err"
expect_exit 2 "$M" loadgen run --scenario Offline --sut null extra
expect_grep "unexpected argument 'extra'" "$TMP/err"

# --name=value and an unambiguous prefix reach the same option: a check run that needs no
# tree (the root is checked after the options: a missing root is an input error, exit 3)
expect_exit 3 "$M" check /nonexistent/root --version=v5.1 --no-csv --quiet
expect_exit 3 "$M" check /nonexistent/root --vers v5.1 --no-cs

# the checker's flags: one table, listed by --help of every command that runs the checker, and
# accepted by each (a usage error would be exit 2; a missing tree is exit 3)
for c in check index package report; do
  expect_exit 0 "$M" $c --help
  for f in --strict --skip-power-check --skip-extra-files-in-root-check --skip-dataset-size-check \
           --submission-exceptions --skip_compliance --profile; do
    expect_grep "^  $f( |$)" "$TMP/out" "$c --help lists $f"
  done
done
expect_exit 3 "$M" index /nonexistent/root --db "$TMP/i.db" --skip-power-check --strict --skip S2,P7

# audit run / verify / replay and runs: the same parser (usage errors naming the option, the
# option list of --help from the table)
expect_exit 2 "$M" audit verify TEST01 --bogus x;  expect_grep "unknown option '--bogus'" "$TMP/err"
expect_grep "see 'mlsubmit audit verify --help'" "$TMP/err"
expect_exit 2 "$M" audit verify TEST01 --audit;    expect_grep "--audit needs a value" "$TMP/err"
expect_exit 2 "$M" audit verify TEST01 --unixmode=1 --audit x; expect_grep "--unixmode takes no value" "$TMP/err"
expect_exit 2 "$M" audit verify TEST01 --mode=fast --audit x;  expect_grep "--mode: expected compat or strict, got 'fast'" "$TMP/err"
expect_exit 2 "$M" audit run TEST01 --dtyp int8;   expect_grep "--dtype: expected byte, int32, int64 or float32, got 'int8'" "$TMP/err"
expect_exit 2 "$M" audit run TEST01 --sut null --model digits --scenario Offline -o "$TMP/a" --total-samples=0
expect_grep "--total-samples: expected a positive integer, got '0'" "$TMP/err"
expect_exit 2 "$M" audit replay --jobs=0 x.txt;    expect_grep "--jobs: expected 1 to 256, got '0'" "$TMP/err"
expect_exit 2 "$M" audit replay --tes TEST02 x.txt; expect_grep "--test: expected TEST01, TEST04 or TEST05, got 'TEST02'" "$TMP/err"
expect_exit 2 "$M" runs list --json=1;             expect_grep "--json takes no value" "$TMP/err"
expect_exit 2 "$M" runs show --runs-db;            expect_grep "--runs-db needs a value" "$TMP/err"
expect_exit 2 "$M" runs lis;                       expect_grep "unknown subcommand 'lis' \(list, show, compare, rerun, export, gc\)" "$TMP/err"
for c in "audit run" "audit verify" "audit replay" "runs list" "runs gc"; do
  expect_exit 0 "$M" $c --help
done
expect_exit 0 "$M" audit run --help
for f in "--sut SPEC" "-o, --output DIR" "--total-samples N" "--seeds Q,S,T" "--quiet"; do
  expect_grep "^  $f( |$)" "$TMP/out" "audit run --help lists $f"
done
expect_exit 0 "$M" audit verify --help
for f in "--audit DIR" "--reference DIR" "--unixmode" "--scorer S" "--data DIR"; do
  expect_grep "^  $f( |$)" "$TMP/out" "audit verify --help lists $f"
done
expect_exit 0 "$M" audit replay --help
for f in "--loadgen-compat V" "--test TEST" "--jobs N" "--details"; do
  expect_grep "^  $f( |$)" "$TMP/out" "audit replay --help lists $f"
done
expect_exit 2 "$M" sut serve --max-con=0 --sut null; expect_grep "--max-connections: expected 1..100000, got '0'" "$TMP/err"
expect_exit 2 "$M" sut serve --sut null --listen;   expect_grep "--listen needs a value" "$TMP/err"
expect_exit 0 "$M" sut serve --help
for f in "--listen \[ADDR:\]PORT" "--max-body BYTES" "--data DIR"; do
  expect_grep "^  $f( |$)" "$TMP/out" "sut serve --help lists $f"
done
expect_exit 0 "$M" runs compare -h
for f in "--runs-db FILE" "--where 'KEY OP VALUE'" "--keep N"; do
  expect_grep "^  $f( |$)" "$TMP/out" "runs compare -h lists $f"
done
expect_exit 2 "$M" package /nonexistent/root -o "$TMP/p.tar.gz" --skip Q1
# accuracy and digits on the table parser: --name=value, prefixes, the value checks, --help from
# the tables
DATA=${MLSUBMIT_DATA:-$REPO/data}
case $DATA in /*) ;; *) DATA=$REPO/$DATA ;; esac
expect_exit 2 "$M" accuracy tokens x.json --len=5..3; expect_grep "--len: expected LO..HI with 2 <= LO <= HI, got '5..3'" "$TMP/err"
expect_exit 2 "$M" accuracy tokens x.json --see=-1;   expect_grep "--seed: expected an unsigned integer, got '-1'" "$TMP/err"
expect_exit 2 "$M" accuracy tokens x.json y.json;     expect_grep "unexpected argument 'y.json'" "$TMP/err"
expect_exit 2 "$M" accuracy digits x.json --rules;    expect_grep "--rules needs a value" "$TMP/err"
expect_exit 0 "$M" accuracy --help
for f in "--data DIR" "-o, --output FILE" "--rules FILE" "--seed N" "--len LO..HI"; do
  expect_grep "^  $f( |$)" "$TMP/out" "accuracy --help lists $f"
done
expect_exit 2 "$M" digits train --epochs=0;   expect_grep "--epochs: expected an integer 1..100000, got '0'" "$TMP/err"
expect_exit 2 "$M" digits eval -o x;          expect_grep "unknown option '-o'" "$TMP/err"
expect_exit 2 "$M" digits eval extra;         expect_grep "unexpected argument 'extra'" "$TMP/err"
expect_exit 0 "$M" digits --help
for f in "-o, --output FILE" "--epochs N" "--model FILE"; do
  expect_grep "^  $f( |$)" "$TMP/out" "digits --help lists $f"
done
if [ -f "$DATA/digits/digits-fp32.bin" ]; then
  expect_exit 0 "$M" digits eval --dat="$DATA" --mod "$DATA/digits/digits-fp32.bin"
  expect_grep '^FP32 validation +accuracy=' "$TMP/out"
fi
# dataset on the table parser: prefixes, --name=value, one operand
mkdir -p "$TMP/ds/sub"; echo a > "$TMP/ds/sub/f.txt"
expect_exit 0 "$M" dataset manifest "$TMP/ds" --out="$TMP/ds.sha256" --alg sha1
expect_grep '^[0-9a-f]{40}  sub/f\.txt$' "$TMP/ds.sha256"
expect_exit 0 "$M" dataset verify "$TMP/ds.sha256" --roo="$TMP/ds" --ign --jobs=1
expect_exit 2 "$M" dataset verify "$TMP/ds.sha256" --jobs=0; expect_grep "--jobs: expected a number of threads from 1 to 1024, got '0'" "$TMP/err"
expect_exit 2 "$M" dataset verify a b;                      expect_grep "one manifest file expected, got 'a' and 'b'" "$TMP/err"
expect_exit 2 "$M" dataset manifest;                        expect_grep "missing the dataset directory" "$TMP/err"
# every command given a folder that holds no division folder (the parent of the submission root,
# a submitter's folder) warns, naming it and what that means, instead of succeeding silently;
# a submission root (one division folder is enough) gets no warning
mkdir -p "$TMP/notroot/results" "$TMP/aroot/open"
for c in "check:nothing was checked" "infer:nothing was inferred" "truncate --backup $TMP/bk:nothing was truncated" \
         "index --db $TMP/nr.db:no results were indexed" "package -o $TMP/nr.tar.gz:the package holds no results" \
         "report --format csv:there are no results to report"; do
  cmd=${c%%:*} what=${c#*:}
  "$M" $cmd "$TMP/notroot" >"$TMP/out" 2>"$TMP/err"
  expect_grep "mlsubmit ${cmd%% *}: warning: $TMP/notroot holds no division folder \(closed/, open/ or network/\): $what; is it the submission root\?" "$TMP/err"
  "$M" $cmd "$TMP/aroot" >"$TMP/out" 2>"$TMP/err"
  if grep -q 'holds no division folder' "$TMP/err"; then fail "${cmd%% *}: warned about a submission root"; else ok; fi
  rm -rf "$TMP/nr.db" "$TMP/nr.tar.gz" "$TMP/nr.tar.gz.sha256"
done
# a root that is not a folder: the same words in every command (common/fsutil.c ms_err_root),
# exit 3; a tarball named as one; a link refused, by name, where the command changes the tree in
# place (infer, truncate)
echo x >"$TMP/sub.tgz"; ln -s "$TMP/aroot" "$TMP/link"
for cmd in check infer "truncate --backup $TMP/bk" "index --db $TMP/nr.db" "package -o $TMP/nr.tar.gz" "report --format csv"; do
  expect_exit 3 "$M" $cmd "$TMP/sub.tgz"
  expect_grep "mlsubmit ${cmd%% *}: $TMP/sub.tgz: an archive, not a submission root: extract it \(tar -xf\) and give the folder holding closed/, open/ or network/" "$TMP/err"
  expect_exit 3 "$M" $cmd "$TMP/nothing-here"
  expect_grep "mlsubmit ${cmd%% *}: $TMP/nothing-here: cannot list the submission root: No such file or directory" "$TMP/err"
done
for cmd in infer "truncate --backup $TMP/bk"; do
  expect_exit 3 "$M" $cmd "$TMP/link"
  expect_grep "mlsubmit ${cmd%% *}: $TMP/link: a symbolic link, not a submission root: give the folder it points to" "$TMP/err"
done
finish
