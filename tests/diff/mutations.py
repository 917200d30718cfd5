"""The seeded mutation engine of the differential test (tests/diff/difftest.py).

apply(kind, tree, rng) damages the submission tree `tree` (a scratch copy) in one way a submitter
really does, with every choice drawn from `rng`, and returns a Mut: a one-line description (for
the report and the replay) and the damaged paths relative to the tree (which mlsubmit must name
where the official checker crashes). Files are always rewritten through a new inode (unlink then
write), so that a tree copied with hard links never changes its source.
"""
import json
import os
import re

KINDS = [
    "delete_file",          # a deleted file
    "detail_value",         # a changed value in a LoadGen detail log
    "system_field",         # an emptied or dropped system-JSON field
    "lower_accuracy",       # a lower accuracy in accuracy.txt
    "truncate_file",        # a truncated file
    "flip_result",          # a VALID result made INVALID (or the reverse)
    "rename_scenario",      # a renamed scenario folder
    "user_conf",            # a user.conf edit
    "drop_compliance",      # a result folder missing its compliance counterpart
    "system_type",          # a system JSON with a wrong type
    "other_scenario_log",   # a performance log from another scenario
    "duplicate_runs",       # duplicated runs
    "case_change",          # case changes in folder names
    "non_utf8",             # non-UTF-8 bytes in a log
]
# Kinds added after campaigns had been replayed by seed: seeds from EXTENDED_FROM draw from
# KINDS + EXTRA_KINDS, earlier seeds keep their old kind and round.
EXTRA_KINDS = [
    "system_field_added",   # a system-JSON field the description did not have, any JSON type
]
EXTENDED_FROM = 100000


def kinds_for(seed):
    return KINDS + EXTRA_KINDS if seed >= EXTENDED_FROM else KINDS

SCENARIOS = ["SingleStream", "MultiStream", "Offline", "Server", "Interactive"]


class Mut:
    def __init__(self, desc, damaged):
        self.desc = desc
        self.damaged = [d for d in damaged if d]


class NotApplicable(Exception):
    pass


# ----------------------------------------------------------------------------- helpers ----
def files(tree, pred=lambda rel: True):
    out = []
    for dp, dns, fns in os.walk(tree):
        dns.sort()
        for f in sorted(fns):
            rel = os.path.relpath(os.path.join(dp, f), tree)
            if pred(rel):
                out.append(rel)
    return out


def dirs(tree, pred):
    out = []
    for dp, dns, _ in os.walk(tree):
        dns.sort()
        for d in dns:
            rel = os.path.relpath(os.path.join(dp, d), tree)
            if pred(rel):
                out.append(rel)
    return out


def parts(rel):
    return rel.split(os.sep)


def area(rel):
    """results, measurements, compliance, systems, code... (the 3rd path component) or ''"""
    p = parts(rel)
    return p[2] if len(p) > 3 else ""


def is_result_scenario(rel):
    """<div>/<sub>/results/<sys>/<model>/<scenario>"""
    p = parts(rel)
    return len(p) == 6 and p[2] == "results"


def read(tree, rel):
    with open(os.path.join(tree, rel), "rb") as f:
        return f.read()


def write(tree, rel, data):
    path = os.path.join(tree, rel)
    if os.path.lexists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data)


def choose(rng, seq):
    if not seq:
        raise NotApplicable()
    return seq[rng.randrange(len(seq))]


def copytree_new(src, dst):
    """a copy with new inodes (never hard links)"""
    os.makedirs(dst)
    for dp, dns, fns in os.walk(src):
        rel = os.path.relpath(dp, src)
        for d in dns:
            os.makedirs(os.path.join(dst, rel, d), exist_ok=True)
        for f in fns:
            s = os.path.join(dp, f)
            with open(s, "rb") as a, open(os.path.join(dst, rel, f), "wb") as b:
                b.write(a.read())


def load_json(tree, rel):
    return json.loads(read(tree, rel).decode("utf-8"))


def dump_json(tree, rel, obj):
    write(tree, rel, (json.dumps(obj, indent=2) + "\n").encode("utf-8"))


def system_jsons(tree):
    def ok(rel):
        p = parts(rel)
        return len(p) == 4 and p[2] == "systems" and rel.endswith(".json")
    out = []
    for rel in files(tree, ok):
        try:
            if isinstance(load_json(tree, rel), dict):
                out.append(rel)
        except (ValueError, UnicodeDecodeError):
            pass
    return out


MLLOG_RE = re.compile(rb'^(:::MLLOG )(\{.*\})\s*$')


def mllog_records(data):
    """(line index, parsed record) of each :::MLLOG line"""
    out = []
    for i, line in enumerate(data.split(b"\n")):
        m = MLLOG_RE.match(line)
        if m:
            try:
                out.append((i, json.loads(m.group(2).decode("utf-8"))))
            except (ValueError, UnicodeDecodeError):
                pass
    return out


def set_record(data, idx, rec):
    lines = data.split(b"\n")
    lines[idx] = b":::MLLOG " + json.dumps(rec).encode("utf-8")
    return b"\n".join(lines)


def detail_logs(tree, where=("results",)):
    return files(tree, lambda r: r.endswith("mlperf_log_detail.txt") and area(r) in where)


# ----------------------------------------------------------------------------- kinds ----
def m_delete_file(tree, rng):
    # weighted to what the checkers read: results, measurements, compliance, systems
    pool = files(tree, lambda r: len(parts(r)) > 3 and area(r) in
                 ("results", "measurements", "compliance", "systems"))
    if rng.random() < 0.15:
        pool = files(tree)
    rel = choose(rng, pool)
    os.unlink(os.path.join(tree, rel))
    return Mut("deleted %s" % rel, [rel, os.path.dirname(rel)])


def changed_value(v, rng):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return choose(rng, [0, v + 1, v - 1, v * 2, v // 2, -1, 1])
    if isinstance(v, float):
        return choose(rng, [0.0, v * 1.5, v * 0.5, -v, v + 1.0])
    if isinstance(v, str):
        if v in ("VALID", "INVALID"):
            return "INVALID" if v == "VALID" else "VALID"
        if v in SCENARIOS:
            return choose(rng, [s for s in SCENARIOS if s != v])
        return choose(rng, ["", v + "x", "0", v.upper() if v != v.upper() else v.lower()])
    if isinstance(v, dict) or isinstance(v, list):
        return choose(rng, [None, "", 0])
    return choose(rng, ["", 0, "x"])


SUMMARY_LINE_RE = re.compile(rb"^([A-Za-z][^:\n]*?)(\s*:\s*)(\S[^\n]*?)\s*$")


def text_value(tree, rng):
    """Logs of the text era (LoadGen .5a1 of v0.5/v0.7, no :::MLLOG lines): the official checker
    reads the values of mlperf_log_summary.txt ("Scenario : Offline", "Min duration (ms): 60000"),
    so one "key : value" line of a summary is changed instead."""
    rel = choose(rng, files(tree, lambda r: r.endswith("mlperf_log_summary.txt") and
                            area(r) in ("results", "compliance")))
    data = read(tree, rel)
    lines = data.split(b"\n")
    cand = [(i, m) for i, m in ((i, SUMMARY_LINE_RE.match(l)) for i, l in enumerate(lines)) if m]
    i, m = choose(rng, cand)
    old = m.group(3).decode("utf-8", "surrogateescape")
    try:
        v = json.loads(old) if re.match(r"^-?\d+(\.\d+)?$", old) else old
    except ValueError:
        v = old
    new = changed_value(v, rng)
    lines[i] = m.group(1) + m.group(2) + str(new).encode("utf-8", "surrogateescape")
    write(tree, rel, b"\n".join(lines))
    return Mut("%s: %s %s -> %s" % (rel, m.group(1).decode("utf-8", "replace"), old[:60], str(new)[:60]), [rel])


def m_detail_value(tree, rng):
    logs = detail_logs(tree, ("results", "compliance"))
    if not any(MLLOG_RE.match(read(tree, r).split(b"\n", 1)[0]) for r in logs):
        return text_value(tree, rng)
    rel = choose(rng, logs)
    data = read(tree, rel)
    recs = [(i, r) for i, r in mllog_records(data) if "value" in r and "key" in r]
    i, rec = choose(rng, recs)
    old = rec["value"]
    rec["value"] = changed_value(old, rng)
    write(tree, rel, set_record(data, i, rec))
    return Mut("%s: %s %s -> %s" % (rel, rec["key"], json.dumps(old)[:60], json.dumps(rec["value"])[:60]),
               [rel])


def m_system_field(tree, rng):
    rel = choose(rng, system_jsons(tree))
    obj = load_json(tree, rel)
    key = choose(rng, sorted(obj))
    if rng.random() < 0.5:
        del obj[key]
        what = "dropped"
    else:
        obj[key] = ""
        what = "emptied"
    dump_json(tree, rel, obj)
    return Mut("%s: %s field %s" % (rel, what, key), [rel])


def m_lower_accuracy(tree, rng):
    pool = files(tree, lambda r: r.endswith(os.path.join("accuracy", "accuracy.txt")))
    rel = choose(rng, pool)
    text = read(tree, rel).decode("utf-8", "surrogateescape")
    # numbers after a metric name: "accuracy=76.064%", "'ROUGE1': 38.7", "mAP=37.1"...
    nums = [m for m in re.finditer(r"(?<![\w.])(\d+\.\d+|\d+)(?![\w.])", text)
            if not text[max(0, m.start() - 5):m.start()].lower().endswith("hash=")]
    m = choose(rng, nums)
    old = m.group(1)
    factor = choose(rng, [0.5, 0.9, 0.98, 0.995, 0.999])
    new = ("%.*f" % (len(old.split(".")[1]), float(old) * factor)) if "." in old else str(int(int(old) * factor))
    text = text[:m.start()] + new + text[m.end():]
    write(tree, rel, text.encode("utf-8", "surrogateescape"))
    return Mut("%s: %s -> %s at offset %d" % (rel, old, new, m.start()), [rel])


def m_truncate_file(tree, rng):
    pool = files(tree, lambda r: len(parts(r)) > 3 and area(r) in
                 ("results", "measurements", "compliance", "systems")
                 and os.path.getsize(os.path.join(tree, r)) > 0)
    rel = choose(rng, pool)
    data = read(tree, rel)
    n = choose(rng, [0, rng.randrange(len(data)), len(data) // 2, max(0, len(data) - rng.randrange(1, 200))])
    write(tree, rel, data[:n])
    return Mut("%s truncated to %d of %d bytes" % (rel, n, len(data)), [rel])


def m_flip_result(tree, rng):
    pool = files(tree, lambda r: area(r) in ("results", "compliance") and
                 (r.endswith("mlperf_log_detail.txt") or r.endswith("mlperf_log_summary.txt")) and
                 "performance" in parts(r))
    rel = choose(rng, pool)
    data = read(tree, rel)
    if rel.endswith("detail.txt"):
        recs = [(i, r) for i, r in mllog_records(data) if r.get("key") == "result_validity"]
        if not recs:
            raise NotApplicable()
        i, rec = recs[0]
        old = rec["value"]
        rec["value"] = "INVALID" if old == "VALID" else "VALID"
        write(tree, rel, set_record(data, i, rec))
        return Mut("%s: result_validity %s -> %s" % (rel, old, rec["value"]), [rel])
    new = re.sub(rb"Result is : VALID", b"Result is : INVALID", data)
    if new == data:
        new = re.sub(rb"Result is : INVALID", b"Result is : VALID", data)
    write(tree, rel, new)
    return Mut("%s: Result is flipped" % rel, [rel])


def m_rename_scenario(tree, rng):
    pool = dirs(tree, lambda r: len(parts(r)) == 6 and area(r) in ("results", "measurements", "compliance"))
    rel = choose(rng, pool)
    old = parts(rel)[-1]
    new = choose(rng, [s for s in SCENARIOS if s != old] + [old + "_old", old.lower() + "2"])
    dst = os.path.join(os.path.dirname(rel), new)
    if os.path.exists(os.path.join(tree, dst)):
        raise NotApplicable()
    os.rename(os.path.join(tree, rel), os.path.join(tree, dst))
    return Mut("renamed %s -> %s" % (rel, new), [rel, dst])


def m_user_conf(tree, rng):
    rel = choose(rng, files(tree, lambda r: os.path.basename(r) == "user.conf"))
    text = read(tree, rel).decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    conf = [i for i, l in enumerate(lines) if "=" in l and not l.lstrip().startswith("#")]
    op = rng.randrange(4)
    if op == 0 and conf:
        i = choose(rng, conf)
        desc = "removed line %r" % lines[i]
        del lines[i]
    elif op == 1 and conf:
        i = choose(rng, conf)
        k, v = lines[i].split("=", 1)
        nv = choose(rng, ["0", "1", "abc", "", v.strip() + "0", "-1"])
        desc = "%r -> %r" % (lines[i], k + "= " + nv)
        lines[i] = k + "= " + nv
    elif op == 2:
        model = parts(rel)[4] if len(parts(rel)) > 5 else "*"
        scen = parts(rel)[5] if len(parts(rel)) > 6 else "*"
        key = choose(rng, ["target_qps", "min_duration", "min_query_count", "max_duration",
                           "performance_sample_count_override", "target_latency", "qsl_rng_seed",
                           "sample_concatenate_permutation", "test05"])
        line = "%s.%s.%s = %s" % (model, scen, key, choose(rng, ["1", "0", "600000", "100"]))
        lines.append(line)
        desc = "added %r" % line
    else:
        lines = [""]
        desc = "emptied"
    write(tree, rel, "\n".join(lines).encode("utf-8", "surrogateescape"))
    return Mut("%s: %s" % (rel, desc), [rel])


def m_drop_compliance(tree, rng):
    pool = dirs(tree, lambda r: len(parts(r)) in (6, 7) and area(r) == "compliance")
    rel = choose(rng, pool)
    import shutil
    shutil.rmtree(os.path.join(tree, rel))
    res = rel.replace(os.sep + "compliance" + os.sep, os.sep + "results" + os.sep, 1)
    if len(parts(rel)) == 7:
        res = os.path.dirname(res)
    return Mut("removed %s" % rel, [rel, os.path.dirname(rel), res])


def m_system_type(tree, rng):
    rel = choose(rng, system_jsons(tree))
    obj = load_json(tree, rel)
    key = choose(rng, sorted(obj))
    old = obj[key]
    cands = [None, True, 42, 1.5, [], {}, [old], "x"] if isinstance(old, str) else [str(old), None, 42, []]
    obj[key] = choose(rng, cands)
    dump_json(tree, rel, obj)
    return Mut("%s: %s %s -> %s" % (rel, key, json.dumps(old)[:40], json.dumps(obj[key])[:40]), [rel])


# fields some round's checker reads or lists (required, network, power, notes); a description
# of an older round may lack them, and a newer round's checker may read them
ADDED_FIELDS = ["is_network", "system_type_detail", "hw_notes", "sw_notes", "status",
                "network_type", "network_media", "network_rate", "nic_model_name",
                "number_of_type_nics_installed", "host_networking", "host_network_card_count",
                "accelerator_host_interconnect", "other_hardware", "power_supply_details",
                "cooling", "hw_notes_extra", "system_type"]


def m_system_field_added(tree, rng):
    rel = choose(rng, system_jsons(tree))
    obj = load_json(tree, rel)
    absent = [k for k in ADDED_FIELDS if k not in obj]
    if not absent:
        raise NotApplicable()
    key = choose(rng, absent)
    obj[key] = choose(rng, ["true", "false", "True", True, False, "", None, 0, 42, "x", [], {}])
    dump_json(tree, rel, obj)
    return Mut("%s: added %s = %s" % (rel, key, json.dumps(obj[key])), [rel])


def m_other_scenario_log(tree, rng):
    logs = files(tree, lambda r: area(r) == "results" and "performance" in parts(r) and
                 os.path.basename(r) in ("mlperf_log_detail.txt", "mlperf_log_summary.txt"))
    rel = choose(rng, logs)
    scen = parts(rel)[5]
    same_model = [r for r in logs if os.path.basename(r) == os.path.basename(rel) and parts(r)[5] != scen
                  and parts(r)[:5] == parts(rel)[:5]]
    other = [r for r in logs if os.path.basename(r) == os.path.basename(rel) and parts(r)[5] != scen]
    src = choose(rng, same_model if same_model and rng.random() < 0.7 else other)
    write(tree, rel, read(tree, src))
    also = ""
    if rng.random() < 0.5:  # the whole run: the summary (or detail) log along with it
        twin = "mlperf_log_summary.txt" if rel.endswith("detail.txt") else "mlperf_log_detail.txt"
        s2, d2 = os.path.join(os.path.dirname(src), twin), os.path.join(os.path.dirname(rel), twin)
        if os.path.exists(os.path.join(tree, s2)):
            write(tree, d2, read(tree, s2))
            also = " (and its %s)" % twin
    return Mut("%s replaced by %s%s" % (rel, src, also), [rel])


def m_duplicate_runs(tree, rng):
    pool = dirs(tree, lambda r: os.path.basename(r) == "run_1" and area(r) in ("results", "compliance"))
    rel = choose(rng, pool)
    names = ["run_2", "run_1_copy", "run_0", "run_5"]
    n = choose(rng, names)
    # a name already there (v0.5/v0.7 Server results have run_1 to run_5): the first free one,
    # without drawing again, so that every other seed replays as before
    free = [x for x in [n] + names if not os.path.exists(os.path.join(tree, os.path.dirname(rel), x))]
    if not free:
        raise NotApplicable()
    n = free[0]
    dst = os.path.join(os.path.dirname(rel), n)
    copytree_new(os.path.join(tree, rel), os.path.join(tree, dst))
    return Mut("copied %s to %s" % (rel, n), [dst, rel, os.path.dirname(rel)])


def m_case_change(tree, rng):
    pool = dirs(tree, lambda r: 2 <= len(parts(r)) <= 8 and any(c.isalpha() for c in parts(r)[-1]))
    rel = choose(rng, pool)
    old = parts(rel)[-1]
    cands = {old.lower(), old.upper(), old.swapcase(), old[:1].swapcase() + old[1:]} - {old}
    new = choose(rng, sorted(cands))
    dst = os.path.join(os.path.dirname(rel), new)
    if os.path.exists(os.path.join(tree, dst)):
        raise NotApplicable()
    os.rename(os.path.join(tree, rel), os.path.join(tree, dst))
    return Mut("renamed %s -> %s" % (rel, new), [rel, dst, os.path.dirname(rel)])


def m_non_utf8(tree, rng):
    pool = files(tree, lambda r: len(parts(r)) > 3 and area(r) in ("results", "compliance", "measurements")
                 and os.path.splitext(r)[1] in (".txt", ".conf", ".json")
                 and os.path.getsize(os.path.join(tree, r)) < 8 << 20)
    rel = choose(rng, pool)
    data = read(tree, rel)
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    line = lines[i]
    pos = rng.randrange(len(line) + 1)
    junk = choose(rng, [b"\xff", b"\xc3\x28", b"\xe9", b"\x80\x81", b"\xfe\xff"])
    lines[i] = line[:pos] + junk + line[pos:]
    write(tree, rel, b"\n".join(lines))
    return Mut("%s: bytes %r at line %d col %d" % (rel, junk, i + 1, pos), [rel])


class DoesNotApply(RuntimeError):
    """The tree has nothing this kind can damage (drop_compliance on v0.5: no compliance/)."""


KIND_FUNCS = {k: globals()["m_" + k] for k in KINDS + EXTRA_KINDS}


def apply(kind, tree, rng):
    """One mutation of `kind` (another draw of the same kind when a choice does not apply)."""
    for _ in range(50):
        try:
            return KIND_FUNCS[kind](tree, rng)
        except NotApplicable:
            continue
    raise DoesNotApply("mutation %s does not apply to %s" % (kind, tree))
