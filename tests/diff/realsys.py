#!/usr/bin/env python3
"""Real-file sweep: published system descriptions and accuracy.txt files, each checked by
`mlsubmit check` and by the official MLCommons checker of its round inside a complete tree.

The model sweeps (modelsweep.py, modelsweep_old.py) check every model of a round, but every
system description in them is written here, and every accuracy.txt holds the line the tag's
ACC_PATTERN reads. A published round holds hundreds of system descriptions written by hand by
different submitters (numbers as strings or as numbers, floats, empty strings, N/A, lists,
capitalised or spaced status and system_type values, fields of other rounds, missing fields) and
accuracy.txt files printed by each submitter's own scripts. This sweep puts each real file into a
model-sweep base tree of its round and compares both checkers (difftest.py's rows as multisets,
counts, exit status; where the official checker crashes, mlsubmit must exit 1 and name the file).

The real files are not in this repository: --real DIR holds them as DIR/<round>/<path in the
published results repository> (e.g. DIR/v4.1/closed/NVIDIA/systems/Orin_TRT.json), copied
byte for byte from github.com/mlcommons/inference_results_<round> (v5.0 and v5.1 from copies of
those repositories).

Cases, for each system description F of round R (the base tree of R: modelsweep's for v3.1 on,
modelsweep_old's for v0.5 to v3.0):
  own:F       F's bytes with its "submitter" and "division" values replaced by the base tree's
              (a text substitution, every other byte kept), as the description of the base
              system of its system_type (dc1 datacenter, edge1 edge, dcedge1 both where the round
              has it);
  verbatim:F  F's bytes unchanged, as dc1's description;
  next:F      own:F in the base tree of the round after R (a description one round old).
For each accuracy.txt A (results/<system>/<model>/<scenario>/accuracy/accuracy.txt) whose model
folder the base tree has: acc:A, A's bytes as that model's accuracy.txt in the base tree (the same
scenario where the base tree has it, else its first). Likewise comp:F, meas:F and conf:F for a
published compliance verify file (verify_accuracy.txt, verify_performance.txt of each test),
measurements JSON (under the base tree's file name) and user.conf.
Once per round, layout: cases: what published systems/ folders hold besides one description per
system (a backup_systems/ or unused/ folder, an editor's .json~ copy, system_descriptions.tsv, a
checklist, the description of a system without results).

Usage:
  realsys.py --real DIR [--rounds v4.1,...] [--only SUBSTR] [--cases N [--seed S]] [--keep DIR] [--verbose]
"""
import argparse
import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import difftest  # noqa: E402
import modelsweep  # noqa: E402

ROUNDS = ("v0.5", "v0.7", "v1.0", "v1.1", "v2.0", "v2.1", "v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1")
OLD = ("v0.5", "v0.7", "v1.0", "v1.1", "v2.0", "v2.1", "v3.0")
SUBMITTER = "Org1"


def build_bases(args, rounds, work):
    """round -> base tree (built by the model sweeps with --cases base --tree-out)"""
    out = os.path.join(work, "base")
    old = [r for r in rounds if r in OLD]
    new = [r for r in rounds if r not in OLD]
    for script, rs in (("modelsweep_old.py", old), ("modelsweep.py", new)):
        if not rs:
            continue
        p = subprocess.run([sys.executable, os.path.join(HERE, script), "--cases", "base", "--rounds", ",".join(rs),
                            "--tree-out", out, "--mlsubmit", args.mlsubmit, "--shared", args.shared],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            raise SystemExit("realsys: %s failed:\n%s" % (script, p.stdout.decode(errors="replace")[-1500:]))
    return {r: os.path.join(out, r) for r in rounds if os.path.isdir(os.path.join(out, r))}


def sub_field(text, key, value):
    """text with the first string value of "key" replaced (every other byte kept); None when the
    key has no string value"""
    m = re.search(r'("%s"\s*:\s*)"((?:[^"\\]|\\.)*)"' % re.escape(key), text)
    if not m:
        return None
    return text[:m.start(2)] + value + text[m.end(2):]


def system_slot(data, base):
    """the base system a description goes to, from its system_type"""
    try:
        t = json.loads(data.decode("utf-8-sig")).get("system_type", "")
    except (ValueError, UnicodeDecodeError, AttributeError):
        t = ""
    t = t.lower() if isinstance(t, str) else ""
    have = set(os.listdir(os.path.join(base, "closed", SUBMITTER, "systems")))
    if "datacenter" in t and "edge" in t and "dcedge1.json" in have:
        return "dcedge1"
    if "edge" in t and "datacenter" not in t:
        return "edge1"
    return "dc1"


# published model folder names -> the official model names of the base trees
ALIASES = {"resnet50": "resnet", "ssd-mobilenet": "ssd-small", "ssd-resnet34": "ssd-large"}


def base_model(model, d):
    """the folder under d for a published model folder name (itself, or its official name)"""
    for m in (model, ALIASES.get(model.lower()), model.lower()):
        if m and os.path.isdir(os.path.join(d, m)):
            return m
    return model


class Case:
    def __init__(self, rnd, name, apply, damaged):
        self.rnd, self.name, self.apply, self.damaged = rnd, name, apply, damaged


def system_cases(real, r, bases, nxt):
    out = []
    top = os.path.join(real, r)
    for dp, _, fs in sorted(os.walk(top)):
        parts = os.path.relpath(dp, top).split(os.sep)
        if len(parts) != 3 or parts[2] != "systems":
            continue
        for f in sorted(fs):
            if not f.endswith(".json"):
                continue
            rel = os.path.join(os.path.relpath(dp, top), f)
            data = open(os.path.join(dp, f), "rb").read()
            text = data.decode("utf-8", "surrogateescape")
            own = text
            for k, v in (("submitter", SUBMITTER), ("division", "closed")):
                own = sub_field(own, k, v) or own
            own_b = own.encode("utf-8", "surrogateescape")

            def put(b, slot=None):
                def apply(tree, b=b, slot=slot):
                    s = slot or system_slot(b, tree)
                    p = os.path.join(tree, "closed", SUBMITTER, "systems", s + ".json")
                    os.unlink(p)
                    with open(p, "wb") as fh:
                        fh.write(b)
                    return p
                return apply
            dmg = [os.path.join("systems", "dc1.json"), os.path.join("systems", "edge1.json"),
                   os.path.join("systems", "dcedge1.json")]
            out.append(Case(r, "own:%s/%s" % (r, rel), put(own_b), dmg))
            out.append(Case(r, "verbatim:%s/%s" % (r, rel), put(data, "dc1"), dmg))
            if nxt and nxt in bases:
                out.append(Case(nxt, "next:%s/%s" % (r, rel), put(own_b), dmg))
    return out


def accuracy_cases(real, r, base):
    out = []
    top = os.path.join(real, r)
    res = os.path.join(base, "closed", SUBMITTER, "results")
    for dp, _, fs in sorted(os.walk(top)):
        if "accuracy.txt" not in fs:
            continue
        rel = os.path.relpath(os.path.join(dp, "accuracy.txt"), top)
        parts = rel.split(os.sep)
        if "results" not in parts:
            continue
        i = parts.index("results")
        if len(parts) < i + 5:
            continue
        model, scen = parts[i + 2], parts[i + 3]
        targets = []
        for sysn in sorted(os.listdir(res)):
            md = os.path.join(res, sysn, base_model(model, os.path.join(res, sysn)))
            if not os.path.isdir(md):
                continue
            scens = sorted(os.listdir(md))
            pick = [s for s in scens if s.lower() == scen.lower()] or scens[:1]
            targets.append(os.path.join(sysn, os.path.basename(md), pick[0], "accuracy", "accuracy.txt"))
        if not targets:
            continue
        data = open(os.path.join(dp, "accuracy.txt"), "rb").read()
        tgt = targets[0]

        def apply(tree, data=data, tgt=tgt):
            p = os.path.join(tree, "closed", SUBMITTER, "results", tgt)
            if os.path.exists(p):
                os.unlink(p)
            with open(p, "wb") as fh:
                fh.write(data)
            return p
        out.append(Case(r, "acc:%s/%s" % (r, rel), apply, [os.path.join("results", tgt)]))
    return out


def placed_cases(real, r, base):
    """comp:, meas:, conf: cases: a published compliance verify file, measurements JSON or
    user.conf as the file of the same kind of the same model (same scenario where the base tree
    has it) in the base tree; the measurements JSON keeps the base tree's file name"""
    out = []
    top = os.path.join(real, r)
    sub = os.path.join(base, "closed", SUBMITTER)
    for dp, _, fs in sorted(os.walk(top)):
        parts = os.path.relpath(dp, top).split(os.sep)
        if len(parts) < 6 or parts[2] not in ("compliance", "measurements", "audit"):
            continue
        kind, model, scen = parts[2], parts[4], parts[5]
        for f in sorted(fs):
            if kind in ("compliance", "audit"):
                if not (f.startswith("verify_") and f.endswith(".txt")) or len(parts) != 7:
                    continue
                test, label = parts[6], "comp"
            elif f == "user.conf" and len(parts) == 6:
                test, label = None, "conf"
            elif f.endswith(".json") and len(parts) == 6:
                test, label = None, "meas"
            else:
                continue
            # the same kind of file in the base tree: its systems, this model, this scenario first
            cands = []
            kdir = os.path.join(sub, "compliance" if kind == "audit" else kind)
            for sysn in sorted(os.listdir(kdir)) if os.path.isdir(kdir) else []:
                md = os.path.join(kdir, sysn, base_model(model, os.path.join(kdir, sysn)))
                if not os.path.isdir(md):
                    continue
                for sc in sorted(os.listdir(md), key=lambda x: x.lower() != scen.lower()):
                    d = os.path.join(md, sc, test) if test else os.path.join(md, sc)
                    if label == "meas":
                        names = [x for x in sorted(os.listdir(d)) if x.endswith(".json")] if os.path.isdir(d) else []
                        if names:
                            cands.append(os.path.join(d, names[0]))
                    elif os.path.isfile(os.path.join(d, f)):
                        cands.append(os.path.join(d, f))
            if not cands:
                continue
            rel = os.path.relpath(os.path.join(dp, f), top)
            tgt = os.path.relpath(cands[0], base)
            data = open(os.path.join(dp, f), "rb").read()

            def apply(tree, data=data, tgt=tgt):
                p = os.path.join(tree, tgt)
                os.unlink(p)
                with open(p, "wb") as fh:
                    fh.write(data)
                return p
            out.append(Case(r, "%s:%s/%s" % (label, r, rel), apply, [os.path.relpath(tgt, os.path.join("closed", SUBMITTER))]))
    return out


# What published systems/ folders hold besides one description per system (each seen in a
# published round): a folder of old descriptions (backup_systems/, unused/), an editor's backup
# copy, NVIDIA's system_descriptions.tsv, a checklist, a description of a system without results.
LAYOUTS = (
    ("backup_folder", "backup_systems/dc1.json"),
    ("unused_folder", "unused/edge1.json"),
    ("editor_backup", "dc1.json~"),
    ("tsv", "system_descriptions.tsv"),
    ("checklist", "submission_checklist.md"),
    ("no_results", "dc9.json"),
)


# What published measurements folders hold besides their one description of the run (each seen
# in a published round): other JSON files of the submitter's tools, beside it, sorting before or
# after it.
MEAS_EXTRAS = (
    ("os_info", "os_info.json", '{"os": "Linux", "kernel": "5.15"}\n'),
    ("ck_workflow", "ck-workflow-input.json", '{"action": "run", "tags": "mlperf"}\n'),
    ("config", "config.json", '{"batch_size": 8}\n'),
    ("aaa_first", "aaa.json", '{}\n'),
)


def layout_cases(r):
    out = []
    for name, fname, text in MEAS_EXTRAS:
        def apply_meas(tree, fname=fname, text=text):
            meas = os.path.join(tree, "closed", SUBMITTER, "measurements")
            done = []
            for sysn in sorted(os.listdir(meas)):
                for model in sorted(os.listdir(os.path.join(meas, sysn)))[:2]:
                    md = os.path.join(meas, sysn, model)
                    for scen in sorted(os.listdir(md))[:1]:
                        p = os.path.join(md, scen, fname)
                        with open(p, "w") as fh:
                            fh.write(text)
                        done.append(p)
            return done[0] if done else None
        out.append(Case(r, "layout:%s/measurements/*/%s (%s)" % (r, fname, name), apply_meas, ["measurements"]))
    for name, rel in LAYOUTS:
        def apply(tree, rel=rel):
            sysd = os.path.join(tree, "closed", SUBMITTER, "systems")
            p = os.path.join(sysd, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if rel.endswith((".json", ".json~")):
                shutil.copyfile(os.path.join(sysd, "dc1.json"), p)
            else:
                with open(p, "w") as fh:
                    fh.write("system\tname\ndc1\tSynthetic server 1\n" if rel.endswith(".tsv") else "# checklist\n")
            return p
        out.append(Case(r, "layout:%s/systems/%s (%s)" % (r, rel, name), apply,
                        [os.path.join("systems", rel.split("/")[0])]))
    return out


def run_case(args, rounds, case, work):
    rnd = rounds[case.rnd]
    return modelsweep.run_case(args, rnd, Base(rnd.tree), case, work)


class Base:  # what modelsweep.run_case reads of a sweep
    def __init__(self, tree):
        self.tree = tree


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = ap.add_argument
    add("--real", required=True, help="the real files, as DIR/<round>/<path in the results repository>")
    add("--rounds", default=",".join(ROUNDS))
    add("--only", help="only cases whose name contains this text")
    add("--cases", type=int, help="a deterministic sample of N cases per round (seed --seed)")
    add("--seed", type=int, default=1)
    modelsweep.common_args(add)
    args = ap.parse_args()
    args.shared, args.mlsubmit = os.path.abspath(args.shared), os.path.abspath(args.mlsubmit)
    if not os.path.isdir(os.path.join(args.shared, "upstream")):
        print("SKIP: %s/upstream is absent (no official checker to compare with)" % args.shared)
        return 0
    tags = difftest.checker_tags(args.shared)
    want = [r for r in args.rounds.split(",") if os.path.isdir(os.path.join(args.real, r))]
    need = sorted(set(want) | {ROUNDS[ROUNDS.index(r) + 1] for r in want if ROUNDS.index(r) + 1 < len(ROUNDS)},
                  key=ROUNDS.index)
    work = tempfile.mkdtemp(prefix="mlsubmit-realsys-")
    total = collections.Counter()
    try:
        bases = build_bases(args, need, work)
        rounds = {}
        for r, tree in bases.items():
            checker = difftest.checker_path(args.shared, tags.get(r))
            if checker:
                rounds[r] = difftest.Round("real-" + r, tree, r, tags.get(r), checker)
        for r in want:
            if r not in rounds:
                print("note: %s skipped, no base tree or official checker" % r)
                continue
            i = ROUNDS.index(r)
            nxt = ROUNDS[i + 1] if i + 1 < len(ROUNDS) and ROUNDS[i + 1] in rounds else None
            todo = (system_cases(args.real, r, rounds, nxt) + accuracy_cases(args.real, r, rounds[r].tree)
                     + placed_cases(args.real, r, rounds[r].tree) + layout_cases(r))
            if args.only:
                todo = [c for c in todo if args.only in c.name]
            if args.cases is not None:
                random.Random("%s-%d" % (r, args.seed)).shuffle(todo)
                todo = todo[:args.cases]
            per = collections.Counter()
            for case in todo:
                outcome, d, o, me = run_case(args, rounds, case, work)
                per[outcome] += 1
                per["rejected"] += outcome == "same" and o.rc != 0
                modelsweep.print_case(outcome, "%s (checked as %s)" % (case.name, case.rnd), d, o, me, args.verbose)
            total.update(per)
            print("realsys %s: %d cases: %d same (%d rejected by both), %d official crashed, %d divergences"
                  % (r, per["same"] + per["crashed"] + per["DIFF"], per["same"], per["rejected"], per["crashed"],
                     per["DIFF"]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("realsys: %d cases, %d same (%d rejected by both), %d official crashed, %d divergences"
          % (total["same"] + total["crashed"] + total["DIFF"], total["same"], total["rejected"], total["crashed"],
             total["DIFF"]))
    return 1 if total["DIFF"] else 0


if __name__ == "__main__":
    sys.exit(main())
