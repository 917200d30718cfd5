#!/usr/bin/env python3
"""Differential test of `mlsubmit report --format json` against the official
generate_final_report.py (the tag's own, run with Debian's /usr/bin/python3, which needs pandas and
xlsxwriter: `make deps-oracle`).

Each case takes a generated v5.1 round (tests/e2e/lib/mkround.sh, two submitters), writes
seeded values into the system-description fields that summary.csv carries (number_of_nodes,
host_processors_per_node, host_processor_core_count, accelerators_per_node, the names, notes,
framework, operating system): integers with blanks or signs, floats, 'N/A' and pandas' other NA
strings, booleans, texts, overflowing numbers, infinities, then runs `mlsubmit check` for
summary.csv, the official script on that file (in a folder of its own: it writes ids.json and
its outputs there) and `mlsubmit report` on the tree, and compares the two summary_results.json
byte for byte. Cases where mlsubmit check refuses a system (a field the checker requires to be
meaningful) still compare what is left; where the official script stops (a traceback: p# is
int(host_processors_per_node)), mlsubmit must still write its report, and the case is counted apart.

With --real DIR (system descriptions copied byte for byte from the published results
repositories, as DIR/<round>/<division>/<submitter>/systems/<name>.json; realsys.py says how),
case i instead puts the i-th and (i+1)-th real descriptions (in path order) into the first
system of each submitter, their "submitter" and "division" values replaced by the tree's (a text
substitution: every other byte as published).

Usage: tests/diff/reportdiff.py --mlsubmit BIN [--round v5.1|v5.0] [--n N] [--first SEED] [--seed N --keep]
                                [--real DIR]
(--round: the generated round, tests/e2e/lib/mkround.sh --version, and the tag of its official
script from the upstream sources' COMMITS.txt: v5.1.1 for v5.1, v5.0.1 for v5.0)"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"

FIELDS = ["number_of_nodes", "host_processors_per_node", "host_processor_core_count",
          "accelerators_per_node", "host_processor_model_name", "accelerator_model_name",
          "framework", "operating_system", "system_name"]
# Not drawn: "None" (an NA string from pandas 2.0 on, which mlsubmit follows as the published
# files do; Debian's pandas 1.5 reads it as text), a comma in a field summary.csv writes unquoted
# (host_processor_core_count: the row gets a column more, for the official checker's CSV too),
# non-ASCII digits such as "٣" (Python's int() reads them; mlsubmit reads ASCII digits only).
VALUES = ["1", "2", "8", "0", "64", " 8", "8 ", "+8", "08", "-1", "N/A", "NA", "null", "nan",
          "n/a", "-", "8.0", "8.5", "1e3", ".5", "5.", "inf", "Infinity", "-inf", "True", "False",
          "TRUE", "true", "4 (x2)", "2 (big); 4 (LITTLE)", "99999999999999999999", "9223372036854775807",
          "1e400", "1_000", "0x10", "text", "x86_64 64-core", "½", "00", "-0", "0007",
          "18446744073709551615", "9223372036854775808", "1e17", "1.2345678901234e-17", "1.5e-15"]


def shared_dir():
    return os.environ.get("MLSUBMIT_SHARED", os.path.join(REPO, "..", "shared"))


def gen_tree(base, rnd):
    tpl = os.path.join(base, "tpl")
    subprocess.run(["bash", os.path.join(REPO, "tests", "e2e", "lib", "mkround.sh"), tpl, "--version", rnd,
                    "--submitters", "2"], check=True, stdout=subprocess.DEVNULL)
    return tpl


def script_of(rnd):
    """generate_final_report.py of the tag that checked round rnd (upstream/COMMITS.txt)"""
    up = os.path.join(shared_dir(), "upstream")
    try:
        lines = open(os.path.join(up, "COMMITS.txt")).read().splitlines()
    except OSError:
        return None
    for line in lines:
        f = line.split()
        if len(f) >= 3 and not line.startswith("#") and rnd in [w.strip(",()") for w in f[2:]]:
            return os.path.join(up, "submission-checkers", f[0], "generate_final_report.py")
    return None


def mutate(tree, seed):
    rnd = random.Random(seed)
    systems = []
    for div in ("closed", "open"):
        for sub in sorted(os.listdir(os.path.join(tree, div))):
            d = os.path.join(tree, div, sub, "systems")
            systems += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".json")]
    did = []
    for _ in range(rnd.randint(1, 4)):
        field = rnd.choice(FIELDS)
        value = rnd.choice(VALUES)
        targets = systems if rnd.random() < 0.3 else [rnd.choice(systems)]
        for path in targets:
            j = json.load(open(path, encoding="utf-8"))
            j[field] = value
            os.unlink(path)  # the template's files are hard links: never written in place
            with open(path, "w", encoding="utf-8") as f:
                json.dump(j, f, indent=2)
            did.append("%s %s=%r" % (os.path.relpath(path, tree), field, value))
    return did


def real_files(real):
    """the real system descriptions under DIR/<round>/<division>/<submitter>/systems, in path order"""
    out = []
    for dp, _, fs in sorted(os.walk(real)):
        if os.path.basename(dp) == "systems":
            out += [os.path.join(dp, f) for f in sorted(fs) if f.endswith(".json")]
    return out


def put_real(tree, seed, reals):
    """the seed-th and next real descriptions as the first system of each submitter"""
    sys.path.insert(0, HERE)
    from realsys import sub_field
    did = []
    k = 0
    for div in ("closed", "open"):
        for sub in sorted(os.listdir(os.path.join(tree, div))):
            d = os.path.join(tree, div, sub, "systems")
            names = sorted(f for f in os.listdir(d) if f.endswith(".json"))
            if not names or k > 1:
                continue
            src = reals[(seed - 1 + k) % len(reals)]
            k += 1
            text = open(src, "rb").read().decode("utf-8", "surrogateescape")
            for key, v in (("submitter", sub), ("division", div)):
                text = sub_field(text, key, v) or text
            path = os.path.join(d, names[0])
            os.unlink(path)
            with open(path, "wb") as f:
                f.write(text.encode("utf-8", "surrogateescape"))
            did.append("%s <- %s" % (os.path.relpath(path, tree), src))
    return did


def run_case(bin_, tpl, gfr, rnd, seed, work, keep, reals=None):
    case = os.path.join(work, "case%d" % seed)
    tree = os.path.join(case, "tree")
    shutil.copytree(tpl, tree, copy_function=os.link)
    did = put_real(tree, seed, reals) if reals else mutate(tree, seed)
    off = os.path.join(case, "off")
    os.makedirs(off)
    subprocess.run([bin_, "check", tree, "--version", rnd, "--csv", os.path.join(off, "s.csv")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p = subprocess.run([PY, gfr, "--input", "s.csv", "--version", rnd[1:], "--repository",
                        "inference_results_" + rnd], cwd=off, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    ours = os.path.join(case, "ours.json")
    q = subprocess.run([bin_, "report", tree, "--version", rnd, "--format", "json", "--force",
                        "--ids", os.path.join(case, "ids.json"), "-o", ours],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    theirs = os.path.join(off, "s_results.json")
    if p.returncode or not os.path.exists(theirs):
        verdict = "official-crashed" if q.returncode == 0 else "DIVERGENCE (mlsubmit report failed too)"
    elif q.returncode:
        verdict = "DIVERGENCE (mlsubmit report failed: %s)" % q.stdout.decode(errors="replace").strip()[-200:]
    elif open(ours, "rb").read() == open(theirs, "rb").read():
        verdict = "same"
    else:
        verdict = "DIVERGENCE"
    if not keep and verdict in ("same", "official-crashed"):
        shutil.rmtree(case)
    return verdict, did, case


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mlsubmit", required=True)
    ap.add_argument("--round", default="v5.1")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--real", help="real system descriptions (see above) instead of seeded values")
    a = ap.parse_args()
    reals = real_files(a.real) if a.real else None
    if a.real and not reals:
        raise SystemExit("reportdiff: no system descriptions under %s" % a.real)
    gfr = script_of(a.round)
    if not gfr or not os.path.exists(gfr):
        print("reportdiff: skipped, no %s" % gfr)
        return 0
    if subprocess.run([PY, "-c", "import pandas, xlsxwriter"], stderr=subprocess.DEVNULL).returncode:
        print("reportdiff: skipped, %s lacks pandas or xlsxwriter (make deps-oracle)" % PY)
        return 0
    work = tempfile.mkdtemp(prefix="mlsubmit-reportdiff-")
    tpl = gen_tree(work, a.round)
    seeds = [a.seed] if a.seed is not None else range(a.first, a.first + a.n)
    counts = {}
    bad = 0
    for s in seeds:
        verdict, did, case = run_case(os.path.abspath(a.mlsubmit), tpl, gfr, a.round, s, work,
                                      a.keep or a.seed is not None, reals)
        key = verdict.split(" (")[0]
        counts[key] = counts.get(key, 0) + 1
        if verdict.startswith("DIVERGENCE") or a.seed is not None:
            bad += verdict.startswith("DIVERGENCE")
            print("seed %d: %s\n  %s\n  kept in %s" % (s, verdict, "\n  ".join(did), case))
    print("reportdiff: %d cases: %s" % (len(seeds), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    if not a.keep and a.seed is None and not bad:
        shutil.rmtree(work)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
