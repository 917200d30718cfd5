#!/usr/bin/env bash
# Benchmark: mlsubmit dataset manifest / verify against coreutils' sha256sum over the same
# ~2 GB tree (2000 small files of 16-528 KiB, 200 of 1-4 MiB, 4 of 256 MiB), page cache warm,
# then manifest against sha256sum over an image-dataset-shaped tree of BENCH_DATASET_SMALL_MB
# (default 512) in 42 KB files, 200 a directory (the shape where per-file costs show), with
# the throughput against the 2.5 GB/s goal.
# Each command runs BENCH_RUNS times (default 3) and the best quiet time counts, so a neighbour's
# burst on a shared machine does not decide the ratio. The acceptance target is verify at least
# 5x faster than sha256sum; it is enforced (exit 1) only where it is attainable: SHA extensions
# and 2+ CPUs. Environment: MLSUBMIT (binary), BENCH_DATASET_MB (default 2048: scales the file
# counts), BENCH_RUNS, BENCH_DATASET_MIN_RATIO (default 5), BENCH_VERBOSE=1 (every run with the
# CPU time others took), TMPDIR (where the data goes), BENCH_BASELINE_BIN (another mlsubmit, e.g.
# the build before a change: its manifest is timed in the same run, beside this one's).
# The machine's limit is measured in the same run: SHA-256 alone (`openssl speed -evp sha256`,
# per CPU second) times the CPUs. Each manifest line is followed by its throughput as a share of
# that limit and the CPU seconds per GB of the manifest, of sha256sum and of SHA-256 alone: CPU
# time does not stretch on a busy machine, so these say what the wall-time ratio would be with
# the CPUs to itself (at most CPUs x sha256sum's CPU per GB / the manifest's), and what 2.5 GB/s
# would need (CPUs / 2.5 CPU s per GB) against SHA-256 alone: where that is below what reading
# the files costs the kernel, the goal is beyond this machine.
set -euo pipefail
BIN=${MLSUBMIT:?set MLSUBMIT to the mlsubmit binary}
MB=${BENCH_DATASET_MB:-2048}
RUNS=${BENCH_RUNS:-3}
MIN_RATIO=${BENCH_DATASET_MIN_RATIO:-5}
export MLSUBMIT_NO_PROGRESS=1 LC_ALL=C

T=$(mktemp -d "${TMPDIR:-/tmp}/mlsubmit-bench-dataset.XXXXXX")
trap 'rm -rf "$T"' EXIT
D=$T/data
mkdir -p "$D/small" "$D/medium" "$D/large"

# ---- generate the tree (deterministic sizes; content sliced from one random blob) ---------------
scale() { local n=$(($1 * MB / 2048)); echo $((n < 1 ? 1 : n)); }
n_small=$(scale 2000) n_medium=$(scale 200) n_large=$(scale 4)
head -c $((64 << 20)) /dev/urandom >"$T/blob"
seed=12345
rnd() { seed=$(((seed * 1103515245 + 12345) % 2147483648)); echo $((seed % $1)); }
echo "generating $n_small small, $n_medium medium, $n_large large files in $D ..."
for i in $(seq 1 "$n_small"); do
    size=$(((16 + $(rnd 513)) * 1024)) off=$(rnd $((60 << 20)))
    dd if="$T/blob" of="$D/small/s$i.bin" bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$size" status=none
done
for i in $(seq 1 "$n_medium"); do
    size=$(((1 << 20) + $(rnd $((3 << 20))))) off=$(rnd $((60 << 20)))
    dd if="$T/blob" of="$D/medium/m$i.bin" bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$size" status=none
done
for i in $(seq 1 "$n_large"); do
    for k in 1 2 3 4; do cat "$T/blob"; done >"$D/large/l$i.bin"
    printf '%08d' "$i" | dd of="$D/large/l$i.bin" bs=1 seek=0 conv=notrunc status=none
done
rm "$T/blob"
files=$(find "$D" -type f | wc -l)
bytes=$(du -sb "$D" | cut -f1)
find "$D" -type f -print0 | xargs -0 cat >/dev/null # warm the page cache

# ---- timing helpers ------------------------------------------------------------------------------
# On a shared machine other processes can take a core in the middle of a run, which hurts a
# parallel program more than single-threaded sha256sum. Each run therefore also measures the CPU
# time the whole machine spent (from /proc/stat) against our own (the shell's children, from
# `times`): a run where others used more than 10% of the machine counts as contended. The best
# of up to RUNS quiet runs (at most 4*RUNS attempts) is kept; if there were none, the best
# contended time is reported and the target is not enforced.
now() { date +%s%N; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.3f", ns / 1e9 }'; }
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
# user+sys of this shell's finished children, in 1/100 s, from a `times` output saved in $1
# (`times` must run in this shell, not in a command substitution's subshell)
own_ticks() {
    awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
                   printf "%d", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 100 }' "$1"
}
best=0
best_cpu=0
contended=0
time_best() { # time_best cmd... : best wall time in ns into $best (its CPU time, user + sys of
    #           all threads, in 1/100 s into $best_cpu); $contended 1 if no quiet run
    local quiet=0 attempts=0 best_any=0 best_any_cpu=0
    best=0
    while [ "$quiet" -lt "$RUNS" ] && [ "$attempts" -lt $((4 * RUNS)) ]; do
        attempts=$((attempts + 1))
        local t0 t1 b0 b1 o0 o1
        times >"$T/times0"
        b0=$(busy_ticks)
        t0=$(now)
        "$@" >/dev/null
        t1=$(now)
        b1=$(busy_ticks)
        times >"$T/times1"
        o0=$(own_ticks "$T/times0")
        o1=$(own_ticks "$T/times1")
        local d=$((t1 - t0))
        local foreign=$(((b1 - b0) - (o1 - o0)))
        local capacity=$((cpus * d / 10000000)) # ticks the machine had during the run
        if [ "$best_any" -eq 0 ] || [ "$d" -lt "$best_any" ]; then best_any=$d best_any_cpu=$((o1 - o0)); fi
        [ -z "${BENCH_VERBOSE:-}" ] || echo "dataset:   run $1: $(secs "$d") s, own $((o1 - o0)) ticks, others $foreign of $capacity" >&2
        if [ $((foreign * 10)) -le "$capacity" ]; then
            quiet=$((quiet + 1))
            if [ "$best" -eq 0 ] || [ "$d" -lt "$best" ]; then best=$d best_cpu=$((o1 - o0)); fi
        fi
    done
    contended=0
    if [ "$quiet" -eq 0 ]; then
        best=$best_any
        best_cpu=$best_any_cpu
        contended=1
    fi
}

sha256sum_tree() { (cd "$D" && find . -type f -print0 | xargs -0 sha256sum --); }
verify() {
    "$BIN" dataset verify "$T/manifest.sha256" --root "$D" | tail -1 | grep -q '^summary: OK:'
}
manifest() { "$BIN" dataset manifest "$D" -o "$T/manifest.sha256"; }
BASE=${BENCH_BASELINE_BIN:-}
manifest_base() { "$BASE" dataset manifest "$D" -o "$T/manifest-base.sha256"; }
# reading every file with read() and no hashing (tests/bench/read_files.c: as many threads as
# CPUs, each file opened, read into a 256 KiB buffer, closed), paths relative to the tree
cc -O2 -pthread -o "$T/read_files" "$(dirname "$0")/read_files.c"
read_tree() { (cd "$D" && "$T/read_files" "$T/list" >/dev/null); }
cpu_per_gb() { awk -v c="$1" -v b="$2" 'BEGIN { printf "%.3f", (c / 100) / (b / 1e9) }'; } # TICKS BYTES
baseline_line() { # baseline_line BYTES MANIFEST_NS MANIFEST_CPU: the baseline binary's manifest beside ours
    [ -n "$BASE" ] || return 0
    time_best manifest_base
    cmp -s "$T/manifest.sha256" "$T/manifest-base.sha256" || { echo "dataset: FAIL: the baseline's manifest differs"; exit 1; }
    echo "dataset:   baseline manifest        $(secs "$best") s$([ "$contended" -ne 0 ] && echo ' (under contention)'), $(awk -v b="$1" -v t="$best" 'BEGIN { printf "%.2f", b / (t / 1e9) / 1e9 }') GB/s, $(cpu_per_gb "$best_cpu" "$1") CPU s per GB (this build: $(awk -v b="$1" -v t="$2" 'BEGIN { printf "%.2f", b / (t / 1e9) / 1e9 }') GB/s, $(cpu_per_gb "$3" "$1")) ($BASE)"
}

cpus=$(nproc)
# The limit of this machine: SHA-256 alone, what OpenSSL's own loop hashes per CPU second (openssl
# speed counts user CPU time, so a busy machine does not lower it), in 1 MiB blocks. No tree
# hash can beat cpus x that rate: reading the files (the kernel's copy from the page cache) only
# adds to it. Measured here, in the same run, so the ratios below are against this machine.
sha_rate=0
if command -v openssl >/dev/null 2>&1; then
    # "sha256  1363148.80k": thousands of bytes per second
    sha_rate=$(openssl speed -seconds 2 -bytes 1048576 -evp sha256 2>/dev/null |
        awk '$1 == "sha256" { v = $2; sub(/k$/, "", v); printf "%.0f", v * 1000 }')
fi
limit_line() { # limit_line BYTES MANIFEST_NS MANIFEST_CPU SHA256SUM_CPU (CPU in 1/100 s)
    [ "${sha_rate:-0}" -gt 0 ] || return 0
    awk -v b="$1" -v t="$2" -v c="$3" -v cs="$4" -v r="$sha_rate" -v n="$cpus" 'BEGIN {
        gb = b / 1e9; gbs = gb / (t / 1e9); lim = r * n / 1e9; man = (c / 100) / gb; sum = (cs / 100) / gb
        printf "dataset:   limit: sha256 alone %.2f GB/s per CPU (%.3f CPU s per GB), %.2f GB/s on %d CPUs; manifest %.2f GB/s = %.0f%% of it\n", r / 1e9, 1e9 / r, lim, n, gbs, 100 * gbs / lim
        printf "dataset:   CPU s per GB: manifest %.3f (%.2fx sha256 alone), sha256sum %.3f: on %d idle CPUs the manifest can be at most %.1fx sha256sum;", man, man * r / 1e9, sum, n, (man > 0 ? n * sum / man : 0)
        printf " 2.5 GB/s needs %.2f CPU s per GB (%.2fx sha256 alone)\n", n / 2.5, (n / 2.5) * r / 1e9 }'
}
time_best sha256sum_tree
t_sum=$best busy=$contended c_sum=$best_cpu
time_best manifest
t_man=$best busy=$((busy | contended)) c_man=$best_cpu
time_best verify
t_ver=$best busy=$((busy | contended))
"$BIN" dataset verify "$T/manifest.sha256" --root "$D" | tail -1

shani=no
grep -qw sha_ni /proc/cpuinfo 2>/dev/null && shani=yes
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)
ratio_ver=$(awk -v a="$t_sum" -v b="$t_ver" 'BEGIN { printf "%.2f", a / b }')
ratio_man=$(awk -v a="$t_sum" -v b="$t_man" 'BEGIN { printf "%.2f", a / b }')
echo "dataset: $files files, $((bytes >> 20)) MiB; CPU: $cpu; $cpus CPUs; SHA extensions: $shani"
echo "dataset: $(sha256sum --version | head -1); $(openssl version 2>/dev/null || echo 'openssl CLI absent')"
if [ "$busy" -ne 0 ]; then echo "dataset: best runs (some under contention):"; else echo "dataset: best of $RUNS quiet runs:"; fi
echo "dataset:   sha256sum                $(secs "$t_sum") s"
echo "dataset:   mlsubmit dataset manifest $(secs "$t_man") s  (${ratio_man}x)"
echo "dataset:   mlsubmit dataset verify   $(secs "$t_ver") s  (${ratio_ver}x)"
limit_line "$bytes" "$t_man" "$c_man" "$c_sum"
baseline_line "$bytes" "$t_man" "$c_man"
if [ "$busy" -ne 0 ]; then
    echo "dataset: machine busy (other processes took over 10% of the CPUs in every run):"
    echo "dataset: ratio ${ratio_ver}x measured under contention, the ${MIN_RATIO}x target is not enforced"
elif [ "$shani" = yes ] && [ "$cpus" -ge 2 ]; then
    if awk -v r="$ratio_ver" -v m="$MIN_RATIO" 'BEGIN { exit !(r >= m) }'; then
        echo "dataset: PASS: verify is ${ratio_ver}x sha256sum (target ${MIN_RATIO}x)"
    else
        echo "dataset: FAIL: verify is ${ratio_ver}x sha256sum (target ${MIN_RATIO}x)"
        exit 1
    fi
else
    echo "dataset: the ${MIN_RATIO}x target needs SHA extensions and 2+ CPUs; not enforced here"
fi

# ---- many small files ----------------------------------------------------------------------------
SMALL_MB=${BENCH_DATASET_SMALL_MB:-512}
rm -rf "$D"
mkdir -p "$D"
ndirs=$(((SMALL_MB * 1000000 / 42000 + 199) / 200))
head -c $((64 << 20)) /dev/urandom >"$T/blob"
for i in $(seq 1 "$ndirs"); do
    mkdir -p "$D/$i"
    # 200 files of 42,000 bytes each, a different slice of the blob per directory
    dd if="$T/blob" bs=1M iflag=skip_bytes,count_bytes skip=$(((i * 7919) % (32 << 20))) \
        count=$((200 * 42000)) status=none | split -b 42000 -a 3 - "$D/$i/img"
done
rm "$T/blob"
files=$(find "$D" -type f | wc -l)
bytes=$(du -sb "$D" | cut -f1)
find "$D" -type f -print0 | xargs -0 cat >/dev/null
time_best sha256sum_tree
t_sum=$best busy=$contended c_sum=$best_cpu
time_best manifest
t_man=$best busy=$((busy | contended)) c_man=$best_cpu
ratio_man=$(awk -v a="$t_sum" -v b="$t_man" 'BEGIN { printf "%.2f", a / b }')
echo "dataset: small files: $files files of 42,000 bytes, $((bytes >> 20)) MiB$([ "$busy" -ne 0 ] && echo ' (some runs under contention)')"
echo "dataset:   sha256sum                $(secs "$t_sum") s"
echo "dataset:   mlsubmit dataset manifest $(secs "$t_man") s  (${ratio_man}x, target 5x; $(awk -v b="$bytes" -v t="$t_man" 'BEGIN { printf "%.2f", b / (t / 1e9) / 1e9 }') GB/s, target 2.5 GB/s on 2 CPUs with SHA extensions)"
limit_line "$bytes" "$t_man" "$c_man" "$c_sum"
# Reading the files alone (open, read, close each, no hashing) costs the kernel's copy from the
# page cache and the per-file system calls; with SHA-256 alone it is the floor of any tree hash
# that reads its files (mmap is not used: a file truncated meanwhile would be a SIGBUS).
(cd "$D" && find . -type f) >"$T/list"
time_best read_tree
echo "dataset:   reading the files alone (read_files.c) $(cpu_per_gb "$best_cpu" "$bytes") CPU s per GB; with sha256 alone $(awk -v c="$best_cpu" -v b="$bytes" -v r="$sha_rate" 'BEGIN { if (r > 0) printf "%.3f", (c / 100) / (b / 1e9) + 1e9 / r; else printf "?" }') CPU s per GB: the floor; manifest $(cpu_per_gb "$c_man" "$bytes")"
baseline_line "$bytes" "$t_man" "$c_man"
