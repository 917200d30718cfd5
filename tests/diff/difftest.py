#!/usr/bin/env python3
"""Differential test of `mlsubmit check` against the official MLCommons submission checkers.

A seeded mutation engine damages a copy of a real submission tree (one mutation per case), then
runs the round's own official checker (python3, from the MLCommons sources of that tag, read in
place at test time) and `mlsubmit check` on the same copy, and compares their verdicts: the
summary.csv rows as multisets (the `errors` column aside, it counts in directory visiting order)
and the summary counts (Results=..., Systems=..., SUMMARY: ...).

Where the official checker crashes (a Python traceback instead of a verdict), mlsubmit must still
give one: exit 1 and name the damaged file. Such cases are counted apart. Where the official
checker is known to be wrong and mlsubmit deliberately differs, the case is counted as a
documented difference (docs/DIFFERENCES.md names each one).

Usage (see tests/diff/README.md):
  difftest.py [--n N] [--first S] [--seed S] [--kinds K,...] [--rounds R,...]
              [--tree DIR --round vX.Y] [--mlsubmit BIN] [--shared DIR] [--out FILE] [--table]

Case `seed` uses kind K[seed % len(K)] and round ROUNDS[(seed // len(K)) % n], where K is
mutations.kinds_for(seed) (KINDS, plus EXTRA_KINDS from seed 100000 on and EXTRA_KINDS2 from 120000 on, EXTRA_KINDS3 from 170000 on), all its
other choices come from random.Random(seed): `--seed S` replays exactly one case.
"""
import argparse
import collections
import concurrent.futures
import csv
import io
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import mutations  # noqa: E402
import known  # noqa: E402

COUNT_RE = re.compile(r"^(Results=|NoResults|Closed |Open |Network |Systems=|SUMMARY:)")
# official log prefixes: "[time file:line LEVEL] " (tags v1.0.1 on), "LEVEL:main:" (v0.7.1)
OFFICIAL_LINE_RE = re.compile(r"^(?:\[[^\]]*\] |[A-Z]+:main:)(.*)$")


# ----------------------------------------------------------------------------- rounds ----
def checker_tags(shared):
    """round -> (tag, extra args) from the upstream sources' COMMITS.txt ("tag commit rounds...")."""
    tags = {}
    path = os.path.join(shared, "upstream", "COMMITS.txt")
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        return tags
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3:
            continue
        tag, rest = parts[0], parts[2]
        if rest.startswith("("):
            continue  # not a checker of a round (sources of another era, compliance only)
        for m in re.finditer(r"\b(v\d+\.\d+)\b", rest):
            tags.setdefault(m.group(1), tag)
    return tags


def checker_path(shared, tag):
    """The official checker of a tag: submission_checker.py (tags v3.0 on) or
    submission-checker.py (v0.7.1 to v2.1); None when the sources hold neither."""
    if not tag:
        return None
    for name in ("submission_checker.py", "submission-checker.py"):
        path = os.path.join(shared, "upstream", "submission-checkers", tag, name)
        if os.path.isfile(path):
            return path
    return None


class Round:
    def __init__(self, name, tree, version, tag, checker):
        self.name, self.tree, self.version, self.tag, self.checker = name, tree, version, tag, checker
        self.baseline = None


def discover_rounds(shared, notes):
    tags = checker_tags(shared)
    rules = {f[:-5] for f in os.listdir(os.path.join(REPO, "rules")) if re.match(r"^v\d+\.\d+\.json$", f)}
    cands = []
    mini = os.path.join(shared, "testdata", "v5.1-mini", "tree")
    if os.path.isdir(mini):
        cands.append(("v5.1-mini", mini, "v5.1"))
    samples = os.path.join(shared, "testdata", "submission-samples")
    if os.path.isdir(samples):
        for d in sorted(os.listdir(samples)):
            cands.append(("samples/" + d, os.path.join(samples, d), "v6.0"))
    rdir = os.path.join(shared, "rounds")
    if os.path.isdir(rdir):
        for v in sorted(os.listdir(rdir), key=lambda s: [int(x) for x in re.findall(r"\d+", s)]):
            if os.path.isdir(os.path.join(rdir, v, "tree")):
                cands.append(("rounds/" + v, os.path.join(rdir, v, "tree"), v))
    out = []
    for name, tree, v in cands:
        if v not in rules:
            notes.append("%s: skipped, mlsubmit has no rules for %s (rules/ covers %s)"
                         % (name, v, ", ".join(sorted(rules))))
            continue
        tag = tags.get(v)
        checker = checker_path(shared, tag)
        if not checker:
            notes.append("%s: skipped, no official checker for %s in the upstream sources" % (name, v))
            continue
        out.append(Round(name, tree, v, tag, checker))
    return out


# Generated rounds (mkround.sh --version): gen-v5.1 is in the default round list; the others are
# opt-in (`--rounds gen-v5.0,...`), so that the default list, and the case of every seed, stay as
# they were.
GEN_DEFAULT = ("v5.1",)
GEN_OPT_IN = ("v5.0", "v4.1", "v4.0", "v3.1")


def generated_rounds(shared, work, notes, versions=GEN_DEFAULT):
    """The synthetic rounds of the end-to-end tests (tests/e2e/lib/mkround.sh: power, TEST01/04/05/06,
    an LLM, an open model mapping), generated once per run: they cover what the real excerpts lack."""
    tags = checker_tags(shared)
    out = []
    for v in versions:
        tag = tags.get(v)
        checker = checker_path(shared, tag)
        if not checker:
            notes.append("gen-%s: skipped, no official checker for %s" % (v, v))
            continue
        tree = os.path.join(work, "gen-" + v)
        shutil.rmtree(tree, ignore_errors=True)
        p = subprocess.run(["bash", os.path.join(REPO, "tests", "e2e", "lib", "mkround.sh"), tree, "--version", v],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            notes.append("gen-%s: skipped, mkround.sh failed: %s" % (v, p.stdout.decode(errors="replace")[-200:]))
            continue
        out.append(Round("gen-" + v, tree, v, tag, checker))
    return out


def link_tree(src, dst):
    """A scratch copy of src made of hard links (a copy where linking fails): fast, and safe
    because mutations.py never writes a file in place (write() unlinks first, copies get new
    inodes) and neither checker writes inside the tree."""
    def link(s, d):
        try:
            os.link(s, d)
        except OSError:
            shutil.copy2(s, d)
    shutil.copytree(src, dst, symlinks=True, copy_function=link)


# ----------------------------------------------------------------------------- running ----
def run(cmd, cwd, timeout=600):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.output or b"").decode("utf-8", "replace") + "\n<timeout>", -9
    return rc, out, time.time() - t0


def read_rows(path):
    """summary.csv rows as a multiset, without the `errors` column."""
    try:
        data = open(path, "rb").read().decode("utf-8", "surrogateescape")
    except OSError:
        return None
    rows = list(csv.reader(io.StringIO(data)))
    if not rows:
        return collections.Counter()
    hdr = rows[0]
    drop = hdr.index("errors") if "errors" in hdr else -1
    return collections.Counter(tuple(c for i, c in enumerate(r) if i != drop) for r in rows[1:])


class Verdict:
    def __init__(self, rc, out, rows, secs, crashed=False):
        self.rc, self.out, self.rows, self.secs, self.crashed = rc, out, rows, secs, crashed
        self.counts = []
        for line in out.splitlines():
            m = OFFICIAL_LINE_RE.match(line)
            text = m.group(1) if m else line
            if COUNT_RE.match(text) and not text.startswith("NoResults "):
                self.counts.append(text.strip())

    def short(self):
        lines = ["exit %d%s" % (self.rc, " (crashed)" if self.crashed else "")]
        lines += ["  " + c for c in self.counts[:2] + self.counts[-1:]]
        if not self.counts:  # no verdict: show why
            lines += ["  " + l for l in self.out.strip().splitlines()[-3:]]
        return "\n".join(lines)


def official(rnd, tree, work):
    csvp = os.path.join(work, "official.csv")
    rc, out, secs = run([sys.executable, rnd.checker, "--input", tree, "--version", rnd.version,
                         "--csv", csvp], cwd=work)
    crashed = "Traceback (most recent call last)" in out and not any(
        COUNT_RE.match(OFFICIAL_LINE_RE.sub(r"\1", l)) for l in out.splitlines())
    return Verdict(rc, out, read_rows(csvp), secs, crashed)


def mine(args, rnd, tree, work):
    csvp = os.path.join(work, "mlsubmit.csv")
    tsvp = os.path.join(work, "mlsubmit.tsv")
    wrap = args.wrap.split() if args.wrap else []
    rc, out, secs = run(wrap + [args.mlsubmit, "check", tree, "--version", rnd.version, "--csv", csvp,
                                "--tsv", tsvp, "--jobs", "1", "--color", "never"], cwd=work)
    try:
        out += "\n" + open(tsvp, encoding="utf-8", errors="replace").read()
    except OSError:
        pass
    return Verdict(rc, out, read_rows(csvp), secs)


def diff_rows(a, b):
    lines = []
    for r, n in sorted((a - b).items()):
        lines.append("    official only (x%d): %s" % (n, ",".join(r)))
    for r, n in sorted((b - a).items()):
        lines.append("    mlsubmit only (x%d): %s" % (n, ",".join(r)))
    return lines


def compare(off, me):
    """[] when the verdicts agree, else the differences (text lines)."""
    d = []
    if off.counts != me.counts:
        d.append("  counts differ:")
        d += ["    official: " + c for c in off.counts]
        d += ["    mlsubmit: " + c for c in me.counts]
    if (off.rows or collections.Counter()) != (me.rows or collections.Counter()):
        d.append("  summary.csv rows differ:")
        d += diff_rows(off.rows or collections.Counter(), me.rows or collections.Counter())
    if (off.rc == 0) != (me.rc == 0):
        d.append("  exit status: official %d, mlsubmit %d" % (off.rc, me.rc))
    return d


def crash_ok(me, mut):
    """mlsubmit's verdict where the official checker crashed: exit 1, the damaged file named."""
    if me.rc != 1:
        return "mlsubmit exit %d, expected 1" % me.rc
    if not any(p and p in me.out for p in mut.damaged):
        return "mlsubmit does not name the damaged file (%s)" % ", ".join(mut.damaged)
    return None


# ----------------------------------------------------------------------------- main ----
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=28, help="number of cases (default 28)")
    ap.add_argument("--first", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--seed", type=int, help="replay exactly this seed (verbose)")
    ap.add_argument("--kinds", help="only these mutation kinds (comma-separated)")
    ap.add_argument("--rounds", help="only these rounds (comma-separated names, e.g. v5.1-mini)")
    ap.add_argument("--tree", help="a submission tree not in the shared data (with --round)")
    ap.add_argument("--round", help="its round, e.g. v5.1")
    ap.add_argument("--no-gen", action="store_true", help="leave out the generated round (gen-v5.1)")
    ap.add_argument("--mlsubmit", default=os.path.join(REPO, "build", "mlsubmit"))
    ap.add_argument("--wrap", default=os.environ.get("TEST_WRAP", ""), help="command prefix for mlsubmit")
    ap.add_argument("--shared", default=os.environ.get("MLSUBMIT_SHARED", os.path.join(REPO, "..", "shared")))
    ap.add_argument("--out", help="append one TSV line per case here")
    ap.add_argument("--work", help="scratch directory (default: a temporary one)")
    ap.add_argument("--table", action="store_true", help="print the kind x round table as Markdown")
    ap.add_argument("--table-from", nargs="+", metavar="TSV",
                    help="only print the table of earlier --out files (a later line for the same round "
                         "and seed replaces an earlier one, e.g. a replay after a fix)")
    ap.add_argument("--replay-diffs", metavar="TSV", help="run again the seeds that diverged in an --out file")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once (default 1)")
    ap.add_argument("--keep", action="store_true", help="keep the mutated tree of --seed")
    args = ap.parse_args()
    if args.table_from:
        stats = collections.defaultdict(collections.Counter)
        last = {}
        for path in args.table_from:
            for line in open(path, encoding="utf-8"):
                f = line.rstrip("\n").split("\t")
                if len(f) >= 4:
                    last[(f[1], int(f[0]))] = (f[2], f[3].split(":")[0])
        for (rname, _), (kind, outcome) in last.items():
            stats[(kind, rname)]["cases"] += 1
            stats[(kind, rname)][outcome] += 1
        print(table(stats))
        return 0
    args.shared = os.path.abspath(args.shared)
    args.mlsubmit = os.path.abspath(args.mlsubmit)

    if not os.path.isdir(os.path.join(args.shared, "upstream")):
        print("SKIP: %s/upstream is absent (no official checker to compare with)" % args.shared)
        return 0
    notes = []
    work = args.work or tempfile.mkdtemp(prefix="mlsubmit-difftest-")
    os.makedirs(work, exist_ok=True)
    if args.tree:
        if not args.round:
            ap.error("--tree needs --round")
        tag = checker_tags(args.shared).get(args.round)
        checker = checker_path(args.shared, tag)
        if not checker:
            print("SKIP: no official checker for %s" % args.round)
            return 0
        rounds = [Round(os.path.basename(os.path.normpath(args.tree)), os.path.abspath(args.tree),
                        args.round, tag, checker)]
    else:
        rounds = discover_rounds(args.shared, notes)
        if not args.no_gen and (not args.rounds or any(n.startswith("gen-") for n in args.rounds.split(","))):
            gen = GEN_DEFAULT
            if args.rounds:
                gen = [v for v in GEN_DEFAULT + GEN_OPT_IN if "gen-" + v in args.rounds.split(",")]
            rounds += generated_rounds(args.shared, work, notes, gen)
        if args.rounds:
            want = args.rounds.split(",")
            rounds = [r for r in rounds if r.name in want]
    for n in notes:
        print("note: " + n)
    if not rounds:
        print("SKIP: no round with both mlsubmit rules and an official checker")
        return 0
    kinds = mutations.KINDS + mutations.EXTRA_KINDS + mutations.EXTRA_KINDS2 + mutations.EXTRA_KINDS3
    if args.kinds:
        bad = set(args.kinds.split(",")) - set(kinds)
        if bad:
            ap.error("unknown kinds: %s (known: %s)" % (", ".join(sorted(bad)), ", ".join(kinds)))

    outf = open(args.out, "a", encoding="utf-8") if args.out else None
    seeds = [args.seed] if args.seed is not None else range(args.first, args.first + args.n)
    if args.replay_diffs:
        todo = [line.split("\t") for line in open(args.replay_diffs, encoding="utf-8")]
        todo = [f for f in todo if len(f) >= 4 and f[3] == "DIFF"]
        names = {f[1] for f in todo}
        if len(names) > 1:
            ap.error("--replay-diffs: one round per file (%s)" % ", ".join(sorted(names)))
        rounds = [r for r in rounds if r.name in names]
        seeds = [int(f[0]) for f in todo]
    stats = collections.defaultdict(collections.Counter)  # (kind, round) -> outcome counts
    divergences = 0
    not_applicable = collections.Counter()
    t_off = t_me = 0.0
    try:
        for r in rounds:  # the unmutated trees must agree, or every case is noise
            off, me = official(r, r.tree, work), mine(args, r, r.tree, work)
            d = compare(off, me)
            if d:
                print("BASELINE DIFFERS on %s (%s):\n%s" % (r.name, r.tree, "\n".join(d)))
                divergences += 1
        def one(seed):
            ks = mutations.kinds_for(seed)
            kind = ks[seed % len(ks)]
            if args.kinds and kind not in args.kinds.split(","):
                return None
            rnd = rounds[(seed // len(ks)) % len(rounds)]
            case = os.path.join(work, "case%d" % seed)
            shutil.rmtree(case, ignore_errors=True)
            tree = os.path.join(case, "tree")
            link_tree(rnd.tree, tree)
            try:
                mut = mutations.apply(kind, tree, random.Random(seed))
            except mutations.DoesNotApply:
                shutil.rmtree(case, ignore_errors=True)
                return (seed, rnd.name, kind, "n/a", "", "", 0.0, 0.0)
            except Exception as e:  # a harness defect: reported, never silent
                shutil.rmtree(case, ignore_errors=True)
                return (seed, rnd.name, kind, "DIFF", "harness error: %r" % e,
                        "DIFF seed=%d kind=%s: harness error %r\n" % (seed, kind, e), 0.0, 0.0)
            off = official(rnd, tree, case)
            me = mine(args, rnd, tree, case)
            if off.crashed:
                why = crash_ok(me, mut)
                outcome = "crashed" if why is None else "DIFF"
                d = ["  official checker crashed: " + (off.out.strip().splitlines() or ["?"])[-1]]
                d += ["  " + why] if why else []
            else:
                d = compare(off, me)
                outcome = "same"
                if d:
                    name = known.match(kind, mut, off, me)
                    outcome = "documented:" + name if name else "DIFF"
            text = ""
            if outcome == "DIFF" or args.seed is not None:
                text = "%s seed=%d round=%s kind=%s: %s\n" % (outcome, seed, rnd.name, kind, mut.desc)
                text += "".join(l + "\n" for l in d)
                text += "  official: " + off.short().replace("\n", "\n  ") + "\n"
                text += "  mlsubmit: " + me.short().replace("\n", "\n  ") + "\n"
                if args.seed is not None and d:
                    text += "--- official output (tail) ---\n" + "\n".join(off.out.splitlines()[-25:]) + "\n"
                    text += "--- mlsubmit output (tail) ---\n" + "\n".join(me.out.splitlines()[-25:]) + "\n"
                text += "  replay: make difftest SEED=%d ROUNDS=%s\n" % (seed, rnd.name)
            if args.keep and args.seed is not None:
                text += "  mutated tree kept in %s\n" % tree
            else:
                shutil.rmtree(case, ignore_errors=True)
            return seed, rnd.name, kind, outcome, mut.desc, text, off.secs, me.secs

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for res in pool.map(one, seeds):
                if res is None:
                    continue
                seed, rname, kind, outcome, desc, text, so, sm = res
                if outcome == "n/a":  # the kind has nothing to damage in that tree
                    not_applicable[(kind, rname)] += 1
                    continue
                t_off += so
                t_me += sm
                stats[(kind, rname)][outcome.split(":")[0]] += 1
                stats[(kind, rname)]["cases"] += 1
                if outcome == "DIFF":
                    divergences += 1
                if outf:
                    outf.write("%d\t%s\t%s\t%s\t%s\n" % (seed, rname, kind, outcome, desc))
                    outf.flush()
                if text:
                    print(text, end="", flush=True)
    finally:
        if outf:
            outf.close()
        if not args.work and not (args.keep and args.seed is not None):
            shutil.rmtree(work, ignore_errors=True)

    total = collections.Counter()
    for c in stats.values():
        total.update(c)
    print("difftest: %d cases, %d same, %d official crashed (mlsubmit exit 1 naming the file), "
          "%d documented differences, %d divergences; official %.1f s, mlsubmit %.1f s"
          % (total["cases"], total["same"], total["crashed"], total["documented"], divergences, t_off, t_me))
    for (kind, rname), n in sorted(not_applicable.items()):
        print("note: %d seed(s) of %s skipped on %s: nothing to damage there" % (n, kind, rname))
    if args.table:
        print(table(stats))
    return 1 if divergences else 0


def table(stats):
    rounds = sorted({r for _, r in stats})
    lines = ["| kind | round | cases | same | official crashed | documented | divergences |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for k in mutations.KINDS + mutations.EXTRA_KINDS + mutations.EXTRA_KINDS2 + mutations.EXTRA_KINDS3:
        for r in rounds:
            c = stats.get((k, r))
            if c:
                lines.append("| %s | %s | %d | %d | %d | %d | %d |"
                             % (k, r, c["cases"], c["same"], c["crashed"], c["documented"], c["DIFF"]))
    t = collections.Counter()
    for c in stats.values():
        t.update(c)
    lines.append("| **all** | | %d | %d | %d | %d | %d |" % (t["cases"], t["same"], t["crashed"], t["documented"], t["DIFF"]))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
