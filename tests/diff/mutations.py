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
# The second extension (seeds from EXTENDED2_FROM draw from KINDS + EXTRA_KINDS + EXTRA_KINDS2):
# what complete published rounds hold and the excerpts may not.
EXTRA_KINDS2 = [
    "accuracy_text",          # accuracy.txt variants: duplicate metric lines, number formats, hash line
    "compliance_text",        # verify_performance.txt / verify_accuracy.txt text variants
    "compliance_extra_test",  # a compliance TEST folder the round does not require, or from elsewhere
    "stray_entry",            # a stray file or folder (.DS_Store, run_2, a backup log) anywhere
    "measurements_variant",   # a measurements folder variant (JSON renamed or changed, extra scenario)
    "summary_edit",           # mlperf_log_summary.txt edits (Result is line, scenario, result values)
    "model_rename",           # a model folder renamed: an alias of the round, a custom name
]
EXTENDED2_FROM = 120000
# The third extension (seeds from EXTENDED3_FROM draw from all of the above + EXTRA_KINDS3).
EXTRA_KINDS3 = [
    "test01_fallback",        # TEST01's accuracy fallback (baseline/compliance_accuracy.txt) varied
]
EXTENDED3_FROM = 170000


def kinds_for(seed):
    if seed >= EXTENDED3_FROM:
        return KINDS + EXTRA_KINDS + EXTRA_KINDS2 + EXTRA_KINDS3
    if seed >= EXTENDED2_FROM:
        return KINDS + EXTRA_KINDS + EXTRA_KINDS2
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


# ----------------------------------------------------------------------------- kinds of the second extension ----
# (seeds from EXTENDED2_FROM: what complete published rounds hold and the excerpts may not)

# metric lines of the models of every round, as their accuracy scripts print them
OTHER_METRIC_LINES = [
    "accuracy=76.456%, good=38228, total=50000",
    "mAP=37.552%",
    "mAP=22.912",
    '{"exact_match": 83.71, "f1": 90.874}',
    "{'rouge1': 44.4312, 'rouge2': 22.0352, 'rougeL': 28.6162, 'rougeLsum': 41.5}",
    "{'rouge1': 44.43, 'rouge2': 22.03, 'rougeL': 28.61, 'rougeLsum': 41.5, 'gen_len': 4016878, 'gen_num': 13368, 'tokens_per_sample': 294.5}",
    "Word Error Rate: 7.452253714852645%, accuracy=92.547746285147355%",
    "AUC=80.251",
    "Accuracy: mean = 0.86170, kidney = 0.9347, tumor = 0.8287",
    "{'FID_SCORE': 23.01, 'CLIP_SCORE': 31.75}",
    "{'exact_match': 90.1, 'TOKENS_PER_SAMPLE': 650.0}",
]


def crlf(lines):
    """the lines (split on \\n) with CRLF line ends: a \\r at the end of every non-empty line"""
    return [l + "\r" if l else l for l in lines], "CRLF line ends"


def split_keep(text):
    """lines without their ends, and whether the text ended with a newline"""
    return text.split("\n")


def m_accuracy_text(tree, rng):
    rel = choose(rng, files(tree, lambda r: r.endswith(os.path.join("accuracy", "accuracy.txt"))
                            and area(r) in ("results", "compliance")))
    text = read(tree, rel).decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    metric = [i for i, l in enumerate(lines) if re.search(
        r"^(accuracy=|mAP=|AUC=|Accuracy:|Word Error Rate)|exact_match|rouge|FID_SCORE|gen_len|mean =", l)]
    if not metric or rng.random() < 0.1:  # any line with a number (the evaluation script's log)
        metric = [i for i, l in enumerate(lines) if re.search(r"\d", l) and not l.startswith("hash")]
    hashes = [i for i, l in enumerate(lines) if l.startswith("hash")]
    op = rng.randrange(7)
    num_re = re.compile(r"(?<![\w.])(\d+\.\d+|\d+)(?![\w.])")
    if op == 0 and metric:  # a metric line twice, the copy's numbers scaled, before or after
        i = choose(rng, metric)
        f = choose(rng, [0.5, 0.98, 1.0, 1.02, 1.5])
        def scale(m):
            old = m.group(1)
            return ("%.*f" % (len(old.split(".")[1]), float(old) * f)) if "." in old else str(int(int(old) * f))
        dup = num_re.sub(scale, lines[i])
        at = i if rng.random() < 0.5 else i + 1
        lines.insert(at, dup)
        desc = "metric line %d repeated %s as %r" % (i + 1, "before" if at == i else "after", dup[:80])
    elif op == 1 and metric:  # one number of a metric line in another format
        i = choose(rng, metric)
        ms = list(num_re.finditer(lines[i]))
        m = choose(rng, ms)
        old = m.group(1)
        v = float(old)
        new = choose(rng, [old + "0", "%.4e" % v, "%g" % v, old + ",", " " + old, "+" + old,
                           str(int(v)), old.replace(".", ","), "%.1f" % v, old + "." if "." not in old else old + "1",
                           "0" + old, "%.10f" % v])
        lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]
        desc = "line %d: %s -> %r" % (i + 1, old, new)
    elif op == 2 and metric:  # white space around a metric line
        i = choose(rng, metric)
        new = choose(rng, ["  " + lines[i], lines[i] + "  ", "\t" + lines[i], lines[i] + "\r", "\ufeff" + lines[i]])
        lines[i] = new
        desc = "line %d: %r" % (i + 1, new[:60])
    elif op == 3:  # the hash line
        sub = rng.randrange(5)
        if hashes and sub == 0:
            desc = "hash line removed"
            del lines[hashes[0]]
        elif hashes and sub == 1:
            lines.insert(0, lines.pop(hashes[0]))
            desc = "hash line moved first"
        elif hashes and sub == 2:
            lines.insert(hashes[0] + 1, lines[hashes[0]])
            desc = "hash line repeated"
        elif hashes and sub == 3:
            new = choose(rng, ["hash = " + lines[hashes[0]][5:], "hash=", "HASH=" + lines[hashes[0]][5:],
                               lines[hashes[0]] + " ", "hash=" + lines[hashes[0]][5:][:10] + "-x"])
            lines[hashes[0]] = new
            desc = "hash line -> %r" % new[:40]
        else:
            lines.insert(len(lines) - 1 if lines and lines[-1] == "" else len(lines), "hash=" + "0" * 64)
            desc = "a hash line added"
    elif op == 4:  # the metric line of another model, first or last
        line = choose(rng, OTHER_METRIC_LINES)
        at = 0 if rng.random() < 0.5 else len(lines)
        lines.insert(at, line)
        desc = "%s metric line %r" % ("first" if at == 0 else "last", line[:60])
    elif op == 5:  # CRLF line ends, or no final newline, or blank lines first
        sub = rng.randrange(3)
        if sub == 0:
            lines, desc = crlf(lines)
        elif sub == 1:
            while lines and lines[-1] == "":
                lines.pop()
            desc = "no final newline"
        else:
            lines = ["", ""] + lines
            desc = "two blank lines first"
    else:  # only the metric lines, or only the hash line (a log printed twice, half kept)
        if metric and rng.random() < 0.5:
            lines = [lines[i] for i in metric] + [""]
            desc = "only the metric lines kept"
        elif metric:
            lines = lines + lines
            desc = "the whole text twice"
        else:
            raise NotApplicable()
    write(tree, rel, "\n".join(lines).encode("utf-8", "surrogateescape"))
    return Mut("%s: %s" % (rel, desc), [rel])


def m_compliance_text(tree, rng):
    rel = choose(rng, files(tree, lambda r: area(r) == "compliance" and os.path.basename(r) in
                            ("verify_performance.txt", "verify_accuracy.txt")))
    text = read(tree, rel).decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    test = [i for i, l in enumerate(lines) if l.startswith("TEST ")]
    other = [i for i, l in enumerate(lines) if l.strip() and i not in test]
    op = rng.randrange(6)
    if op == 0 and test:
        i = test[0]
        new = choose(rng, ["TEST FAIL", "Test PASS", "TEST  PASS", "TEST PASS ", " TEST PASS", "TEST PASSED",
                           "TEST: PASS", "test pass", "TEST PASS\r", "TEST PASS.", "TEST FAILED", "TEST"])
        desc = "%r -> %r" % (lines[i], new)
        lines[i] = new
    elif op == 1 and test:
        desc = "removed %r" % lines[test[0]]
        del lines[test[0]]
    elif op == 2 and other:
        i = choose(rng, other)
        desc = "removed %r" % lines[i]
        del lines[i]
    elif op == 3:
        new = choose(rng, ["TEST FAIL", "TEST PASS", "WARNING: something", "reference score = 0",
                           "Accuracy check pass: False", "Performance check pass: False", ""])
        at = choose(rng, [0, len(lines), (test[0] + 1) if test else len(lines), test[0] if test else 0])
        lines.insert(at, new)
        desc = "%r inserted at line %d" % (new, at + 1)
    elif op == 4 and other:  # a number of the report changed (scores, counts)
        i = choose(rng, other)
        ms = list(re.finditer(r"(?<![\w.])(\d+\.\d+|\d+)(?![\w.])", lines[i]))
        if not ms:
            raise NotApplicable()
        m = choose(rng, ms)
        old = m.group(1)
        new = choose(rng, ["0", "1", str(float(old) * 2), str(float(old) * 0.5), old + "0", "-" + old, "nan"])
        lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]
        desc = "line %d: %s -> %s" % (i + 1, old, new)
    else:
        sub = rng.randrange(3)
        if sub == 0:
            lines, desc = crlf(lines)
        elif sub == 1:
            lines = lines + lines
            desc = "the whole text twice"
        else:
            lines = [l for l in lines if l.startswith("TEST ")] or [""]
            desc = "only the TEST line kept"
    write(tree, rel, "\n".join(lines).encode("utf-8", "surrogateescape"))
    return Mut("%s: %s" % (rel, desc), [rel])


TEST_NAMES = ["TEST01", "TEST04", "TEST05", "TEST06", "TEST07", "TEST08", "TEST09", "TEST04-A",
              "TEST04-B", "TEST4", "test01", "TEST01_old"]


def m_compliance_extra_test(tree, rng):
    tests = dirs(tree, lambda r: len(parts(r)) == 7 and area(r) == "compliance")
    src = choose(rng, tests)
    scen = os.path.dirname(src)
    if rng.random() < 0.7:  # another test name in the same scenario
        names = [n for n in TEST_NAMES if not os.path.exists(os.path.join(tree, scen, n))]
        n = choose(rng, names)
        dst = os.path.join(scen, n)
        desc = "copied %s to %s" % (src, n)
    else:  # a test of another scenario or model copied here, replacing this scenario's one
        others = [t for t in tests if os.path.dirname(t) != scen]
        o = choose(rng, others)
        dst = os.path.join(scen, os.path.basename(o))
        if os.path.exists(os.path.join(tree, dst)):
            import shutil
            shutil.rmtree(os.path.join(tree, dst))
        src = o
        desc = "%s replaced by a copy of %s" % (dst, o)
    copytree_new(os.path.join(tree, src), os.path.join(tree, dst))
    res = scen.replace(os.sep + "compliance" + os.sep, os.sep + "results" + os.sep, 1)
    return Mut(desc, [dst, scen, res])


STRAY_FILES = [(".DS_Store", b"\x00\x00\x00\x01Bud1\x00\x00"), ("README.md", b"# notes\n"),
               ("notes.txt", b"rerun on Tuesday\n"), ("Thumbs.db", b"\xd0\xcf\x11\xe0"),
               (".gitkeep", b""), ("mlperf_log_trace.json", b"[]\n"), ("log.txt", b"ok\n"),
               ("mlperf_log_detail.txt.bak", None), ("x.json", b"{}\n")]
STRAY_DIRS = ["run_2", "tmp", ".ipynb_checkpoints", "__MACOSX", "old", "run_1_bak"]


def m_stray_entry(tree, rng):
    def where(r):
        p = parts(r)
        if len(p) < 2:
            return False
        if len(p) == 2:
            return True  # <div>/<submitter>
        return area(r) in ("results", "measurements", "compliance", "systems", "code") or len(p) == 3
    pool = dirs(tree, where)
    if rng.random() < 0.6:  # mostly where the checkers list folders: results/<sys>/<model>/<scen>/...
        deep = [d for d in pool if area(d) in ("results", "compliance") and len(parts(d)) >= 6]
        pool = deep or pool
    d = choose(rng, pool)
    if rng.random() < 0.6:
        name, data = choose(rng, STRAY_FILES)
        if data is None:  # a backup of a sibling file, or of any log
            sib = [f for f in os.listdir(os.path.join(tree, d)) if os.path.isfile(os.path.join(tree, d, f))]
            if sib:
                f = choose(rng, sorted(sib))
                name, data = f + ".bak", read(tree, os.path.join(d, f))
            else:
                data = b""
        rel = os.path.join(d, name)
        if os.path.lexists(os.path.join(tree, rel)):
            raise NotApplicable()
        write(tree, rel, data)
        return Mut("stray file %s (%d bytes)" % (rel, len(data)), [rel, d])
    name = choose(rng, STRAY_DIRS)
    rel = os.path.join(d, name)
    if os.path.lexists(os.path.join(tree, rel)):
        raise NotApplicable()
    os.makedirs(os.path.join(tree, rel))
    what = "empty"
    if rng.random() < 0.5:
        sib = [f for f in os.listdir(os.path.join(tree, d)) if os.path.isfile(os.path.join(tree, d, f))]
        if sib:
            f = choose(rng, sorted(sib))
            write(tree, os.path.join(rel, f), read(tree, os.path.join(d, f)))
            what = "holding a copy of " + f
    return Mut("stray folder %s (%s)" % (rel, what), [rel, d])


def m_measurements_variant(tree, rng):
    scens = dirs(tree, lambda r: len(parts(r)) == 6 and area(r) == "measurements")
    d = choose(rng, scens)
    fs = sorted(f for f in os.listdir(os.path.join(tree, d)) if os.path.isfile(os.path.join(tree, d, f)))
    jsons = [f for f in fs if f.endswith(".json")]
    op = rng.randrange(6)
    sysname, model, scen = parts(d)[3], parts(d)[4], parts(d)[5]
    if op == 0 and jsons:  # the implementation JSON under another name
        j = choose(rng, jsons)
        new = choose(rng, [sysname + ".json", "%s_%s.json" % (sysname, scen.lower()), "system_desc.json",
                           "measurements.json", "%s_%s.json" % (sysname, scen), "%s_%s.JSON" % (sysname, scen),
                           j[:-5] + "_old.json", "%s-%s.json" % (sysname, scen)])
        if new == j or os.path.exists(os.path.join(tree, d, new)):
            raise NotApplicable()
        os.rename(os.path.join(tree, d, j), os.path.join(tree, d, new))
        return Mut("renamed %s -> %s" % (os.path.join(d, j), new), [os.path.join(d, j), os.path.join(d, new), d])
    if op == 1 and jsons:  # a second JSON beside it
        j = choose(rng, jsons)
        new = choose(rng, ["%s_%s_copy.json" % (sysname, scen), "extra.json", "system_desc_id.json"])
        if os.path.exists(os.path.join(tree, d, new)):
            raise NotApplicable()
        write(tree, os.path.join(d, new), read(tree, os.path.join(d, j)))
        return Mut("%s copied to %s" % (os.path.join(d, j), new), [os.path.join(d, new), d])
    if op == 2 and jsons:  # a field of the implementation JSON dropped, emptied or retyped
        j = os.path.join(d, choose(rng, jsons))
        try:
            obj = load_json(tree, j)
        except (ValueError, UnicodeDecodeError):
            raise NotApplicable()
        if not isinstance(obj, dict) or not obj:
            raise NotApplicable()
        key = choose(rng, sorted(obj))
        sub = rng.randrange(3)
        if sub == 0:
            del obj[key]
            what = "dropped"
        else:
            obj[key] = choose(rng, ["", None, [], 0, "x"]) if sub == 1 else [obj[key]]
            what = "-> %s" % json.dumps(obj[key])[:40]
        dump_json(tree, j, obj)
        return Mut("%s: %s %s" % (j, key, what), [j])
    if op == 3:  # README.md, user.conf or mlperf.conf removed or emptied
        cands = [f for f in fs if f in ("README.md", "user.conf", "mlperf.conf") or f.endswith(".md")]
        f = choose(rng, cands)
        rel = os.path.join(d, f)
        if rng.random() < 0.5:
            os.unlink(os.path.join(tree, rel))
            return Mut("deleted %s" % rel, [rel, d])
        write(tree, rel, b"")
        return Mut("emptied %s" % rel, [rel, d])
    if op == 4:  # the scenario folder copied to a scenario the results do not have
        new = choose(rng, [s for s in SCENARIOS if s != scen])
        dst = os.path.join(os.path.dirname(d), new)
        if os.path.exists(os.path.join(tree, dst)):
            raise NotApplicable()
        copytree_new(os.path.join(tree, d), os.path.join(tree, dst))
        return Mut("copied %s to %s" % (d, new), [dst, d])
    # the model folder of measurements copied under another model name, or the system's folder
    # copied under another system name
    if rng.random() < 0.5:
        src = os.path.dirname(d)
        dst = os.path.join(os.path.dirname(src), model + choose(rng, ["-99", "_old", "2"]))
    else:
        src = os.path.dirname(os.path.dirname(d))
        dst = src + choose(rng, ["_old", "-2", "_copy"])
    if os.path.exists(os.path.join(tree, dst)):
        raise NotApplicable()
    copytree_new(os.path.join(tree, src), os.path.join(tree, dst))
    return Mut("copied %s to %s" % (src, dst), [dst, src])


# summary lines with a result value and the detail-log key that holds the same value
SUMMARY_RESULT_KEYS = [
    (r"Samples per second", "result_samples_per_second"),
    (r"Scheduled samples per second", "result_scheduled_samples_per_second"),
    (r"Completed samples per second", "result_completed_samples_per_second"),
    (r"Tokens per second", "result_tokens_per_second"),
    (r"Completed tokens per second", "result_completed_tokens_per_second"),
    (r"90th percentile latency \(ns\)", "result_90.00_percentile_latency_ns"),
    (r"99th percentile latency \(ns\)", "result_99.00_percentile_latency_ns"),
    (r"97th percentile latency \(ns\)", "result_97.00_percentile_latency_ns"),
    (r"99\.9th percentile latency \(ns\)", "result_99.90_percentile_latency_ns"),
    (r"Mean latency \(ns\)", "result_mean_latency_ns"),
    (r"Max latency \(ns\)", "result_max_latency_ns"),
    (r"Min latency \(ns\)", "result_min_latency_ns"),
    (r"99th percentile time to first token \(ns\)", "result_first_token_99.00_percentile_latency_ns"),
    (r"99th percentile time per output token \(ns\)", "result_time_per_output_token_99.00_percentile_ns"),
    (r"Per-query latency:\s*99th", None),
]


def m_summary_edit(tree, rng):
    rel = choose(rng, files(tree, lambda r: os.path.basename(r) == "mlperf_log_summary.txt"
                            and area(r) in ("results", "compliance")))
    text = read(tree, rel).decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    op = rng.randrange(6)
    res = [i for i, l in enumerate(lines) if l.startswith("Result is")]
    if op == 0 and res:
        i = res[0]
        val = lines[i].split(":", 1)[1].strip() if ":" in lines[i] else "VALID"
        new = choose(rng, ["Result is: %s" % val, "Result is : %s" % val.capitalize(), "Result  is : %s" % val,
                           "Result is : %s " % val, "Result is : %s\r" % val, "result is : %s" % val,
                           "Result is : ", "Result : %s" % val, "Result is : %s (early stopping)" % val])
        desc = "%r -> %r" % (lines[i], new)
        lines[i] = new
    elif op == 1 and res:
        desc = "removed %r" % lines[res[0]]
        del lines[res[0]]
    elif op == 2:
        sc = [i for i, l in enumerate(lines) if l.startswith("Scenario") or l.startswith("Mode")]
        i = choose(rng, sc)
        k, v = lines[i].split(":", 1)
        v = v.strip()
        alts = [s for s in SCENARIOS if s != v] if k.startswith("Scenario") else \
            ["AccuracyOnly", "PerformanceOnly", "SubmissionRun", "FindPeakPerformance"]
        new = "%s: %s" % (k, choose(rng, [a for a in alts if a != v] + [v.lower()]))
        desc = "%r -> %r" % (lines[i], new)
        lines[i] = new
    elif op in (3, 4):  # a result value: in the summary only (3) or in the detail log too (4)
        cands = []
        for i, l in enumerate(lines):
            for pat, key in SUMMARY_RESULT_KEYS:
                m = re.match(r"^(%s\s*:\s*)(\S+)\s*$" % pat, l)
                if m:
                    cands.append((i, m, key))
        i, m, key = choose(rng, cands)
        old = m.group(2)
        try:
            v = float(old)
        except ValueError:
            raise NotApplicable()
        f = choose(rng, [0.5, 0.9, 1.1, 2.0, 0.0])
        new = ("%d" % int(v * f)) if re.match(r"^-?\d+$", old) else ("%.*f" % (len(old.split(".")[1]) if "." in old else 2, v * f))
        lines[i] = m.group(1) + new
        desc = "%s: %s -> %s" % (m.group(1).split(":")[0].strip(), old, new)
        damaged = [rel]
        det = os.path.join(os.path.dirname(rel), "mlperf_log_detail.txt")
        if op == 4 and key and os.path.exists(os.path.join(tree, det)):
            data = read(tree, det)
            recs = [(j, r) for j, r in mllog_records(data) if r.get("key") == key]
            if recs:
                j, rec = recs[0]
                rec["value"] = int(new) if isinstance(rec["value"], int) and not isinstance(rec["value"], bool) \
                    and re.match(r"^-?\d+$", new) else float(new)
                write(tree, det, set_record(data, j, rec))
                desc += " (and %s in the detail log)" % key
                damaged.append(det)
        write(tree, rel, "\n".join(lines).encode("utf-8", "surrogateescape"))
        return Mut("%s: %s" % (rel, desc), damaged)
    else:
        sub = rng.randrange(3)
        if sub == 0:
            lines, desc = crlf(lines)
        elif sub == 1:
            sut = [i for i, l in enumerate(lines) if l.startswith("SUT name") or l.startswith("====")]
            i = choose(rng, sut)
            desc = "removed %r" % lines[i]
            del lines[i]
        else:
            warn = [i for i, l in enumerate(lines) if l.strip()]
            i = choose(rng, warn)
            lines.insert(i, lines[i])
            desc = "line %d repeated: %r" % (i + 1, lines[i][:60])
    write(tree, rel, "\n".join(lines).encode("utf-8", "surrogateescape"))
    return Mut("%s: %s" % (rel, desc), [rel])


# model names of the rounds' model_mapping tables (official checkers) and their classes
MODEL_ALIASES = {
    "resnet": ["resnet50", "mobilenet"], "resnet50": ["resnet", "mobilenet"],
    "mobilenet": ["resnet", "resnet50"],
    "ssd-small": ["ssd-mobilenet"], "ssd-mobilenet": ["ssd-small"],
    "ssd-large": ["ssd-resnet34"], "ssd-resnet34": ["ssd-large", "retinanet"],
    "retinanet": ["ssd-resnet34"],
    "llama3.1-8b": ["llama3_1-8b"], "llama3_1-8b": ["llama3.1-8b"],
    "llama3.1-405b": ["llama3_1-405b"], "llama3.1-8b-edge": ["llama3_1-8b-edge"],
    "bert-99": ["bert-99.9", "bert"], "bert-99.9": ["bert-99", "bert"],
    "3d-unet-99": ["3d-unet-99.9", "3d-unet"], "3d-unet-99.9": ["3d-unet-99", "3d-unet"],
    "dlrm-99": ["dlrm-99.9", "dlrm-v2-99"], "dlrm-99.9": ["dlrm-99"],
    "rnnt": ["rnn-t", "RNNT"], "gptj-99": ["gptj-99.9", "gpt-j"], "gptj-99.9": ["gptj-99"],
}


def m_model_rename(tree, rng):
    models = dirs(tree, lambda r: len(parts(r)) == 5 and area(r) == "results")
    rel = choose(rng, models)
    p = parts(rel)
    old = p[4]
    cands = MODEL_ALIASES.get(old, []) + [old + "-custom", old + "_int8", "my-" + old]
    new = choose(rng, cands)
    moved = []
    targets = ["results"]
    if rng.random() < 0.7:  # with its measurements and compliance folders (and code)
        targets += ["measurements", "compliance"] + (["code"] if rng.random() < 0.3 else [])
    for a in targets:
        if a == "code":
            src = os.path.join(p[0], p[1], "code", old)
            dst = os.path.join(p[0], p[1], "code", new)
        else:
            src = os.path.join(p[0], p[1], a, p[3], old)
            dst = os.path.join(p[0], p[1], a, p[3], new)
        if not os.path.isdir(os.path.join(tree, src)):
            continue
        if os.path.exists(os.path.join(tree, dst)):
            if a == "results":
                raise NotApplicable()
            continue
        os.rename(os.path.join(tree, src), os.path.join(tree, dst))
        moved.append(a)
    desc = "renamed model %s -> %s in %s" % (rel, new, ", ".join(moved))
    damaged = [rel, os.path.join(os.path.dirname(rel), new), os.path.dirname(rel)]
    if p[0] == "open" and rng.random() < 0.5:  # the submitter maps the new name to the benchmark
        mp = os.path.join(p[0], p[1], "model_mapping.json")
        obj = {}
        if os.path.exists(os.path.join(tree, mp)):
            try:
                obj = load_json(tree, mp)
            except (ValueError, UnicodeDecodeError):
                obj = {}
        obj[new] = choose(rng, [old, MODEL_ALIASES.get(old, [old])[0]])
        dump_json(tree, mp, obj)
        desc += ", %s maps it to %s" % (mp, obj[new])
        damaged.append(mp)
    return Mut(desc, damaged)


FALLBACK_NAMES = ("baseline_accuracy.txt", "compliance_accuracy.txt")


def m_test01_fallback(tree, rng):
    """TEST01's verify_accuracy.txt without (or with) its TEST PASS line and the accuracy/
    folder's fallback files (baseline_accuracy.txt, compliance_accuracy.txt) present, absent,
    unparsable, or with values within or outside the allowed delta: what check_compliance_acc_dir
    reads when the deterministic check failed."""
    tdir = choose(rng, dirs(tree, lambda r: len(parts(r)) == 7 and area(r) == "compliance"
                            and parts(r)[6] == "TEST01"))
    acc = os.path.join(tdir, "accuracy")
    va = os.path.join(tdir, "verify_accuracy.txt")
    # the metric text: TEST01's own accuracy.txt, else the result's
    res_acc = os.path.join(tdir.replace(os.sep + "compliance" + os.sep, os.sep + "results" + os.sep, 1)[:-len("TEST01")],
                           "accuracy", "accuracy.txt")
    src = ""
    for cand in (os.path.join(acc, "accuracy.txt"), res_acc):
        if os.path.isfile(os.path.join(tree, cand)):
            src = read(tree, cand).decode("utf-8", "surrogateescape")
            if re.search(r"\d", src.replace("hash", "")):
                break
    lines = [l for l in src.split("\n") if not l.startswith("hash")]
    num_re = re.compile(r"(?<![\w.])(\d+\.\d+|\d+)(?![\w.])")

    def scaled(f):
        def one(m):
            old = m.group(1)
            return ("%.*f" % (max(len(old.split(".")[1]), 6), float(old) * f)) if "." in old else str(int(old) * f)
        return "\n".join(num_re.sub(one, l) for l in lines)

    desc = []
    damaged = [va, acc]
    # 1. verify_accuracy.txt: its TEST PASS line dropped or respelled (most cases), kept, or the file deleted
    v = read(tree, va).decode("utf-8", "surrogateescape") if os.path.isfile(os.path.join(tree, va)) else None
    vop = rng.random()
    if v is not None and vop < 0.75:
        new = choose(rng, ["TEST FAIL", "", "TEST FAILED", "Test Pass"])
        v2 = "\n".join(new if l.startswith("TEST ") else l for l in v.split("\n"))
        if v2 == v:
            v2 = v + "TEST FAIL\n"
        write(tree, va, v2.encode("utf-8", "surrogateescape"))
        desc.append("verify_accuracy.txt TEST line -> %r" % new)
    elif v is not None and vop < 0.8:
        os.unlink(os.path.join(tree, va))
        desc.append("verify_accuracy.txt deleted")
    else:
        desc.append("verify_accuracy.txt kept")
    if not os.path.isdir(os.path.join(tree, acc)):
        os.makedirs(os.path.join(tree, acc))
    # 2. the fallback files
    op = rng.randrange(8)
    fb = {}
    if op == 0:
        desc.append("no fallback files")
        for n in FALLBACK_NAMES:
            p = os.path.join(tree, acc, n)
            if os.path.lexists(p):
                os.unlink(p)
    elif op in (1, 2, 3):  # both; compliance scaled within or outside the delta (1% / 0.1%)
        f = choose(rng, [1.0, 1.0005, 0.9995, 1.0009, 0.999, 1.005, 0.995, 1.0099, 0.99, 1.011, 0.989,
                         1.02, 0.5, 2.0, 0.0])
        fb = {"baseline_accuracy.txt": scaled(1), "compliance_accuracy.txt": scaled(f)}
        if rng.random() < 0.5:  # the other way round
            fb = {"baseline_accuracy.txt": fb["compliance_accuracy.txt"], "compliance_accuracy.txt": scaled(1)}
        desc.append("fallback values x%g" % f)
    elif op == 4:  # only one of them
        n = choose(rng, list(FALLBACK_NAMES))
        fb = {n: scaled(1)}
        for o in FALLBACK_NAMES:
            p = os.path.join(tree, acc, o)
            if o != n and os.path.lexists(p):
                os.unlink(p)
        desc.append("only %s" % n)
    elif op == 5:  # unparsable: empty, no metric, a non-UTF-8 byte, a number in another format
        n = choose(rng, list(FALLBACK_NAMES))
        good = scaled(1)
        first = num_re.search(good)
        def at_first(f):
            return good[:first.start()] + f(first.group(1)) + good[first.end():] if first else good
        bad = choose(rng, ["", "no accuracy here\n", "\udcff\udcfe" + good, good.replace(".", ","),
                           "  " + good, good.upper(), "accuracy=\n", "mAP=nan\n", "accuracy=0\n",
                           at_first(lambda n: n + ".5"), at_first(lambda n: "-" + n), at_first(lambda n: "." + n),
                           at_first(lambda n: n + "e2"), at_first(lambda n: "0")])
        fb = {n: bad}
        other = [o for o in FALLBACK_NAMES if o != n][0]
        fb[other] = scaled(1)
        desc.append("%s unparsable %r" % (n, bad[:30]))
    elif op == 6:  # a hash line, duplicate metric lines (the last counts), CRLF
        sub = rng.randrange(4)
        base = scaled(1)
        if sub == 0:
            comp = "hash=" + "0" * 64 + "\n" + base
            what = "a hash line first"
        elif sub == 1:
            comp = base + "\nhash=" + "1" * 64 + "\n"
            what = "a hash line last"
        elif sub == 2:
            comp = scaled(choose(rng, [0.5, 1.5])) + "\n" + base
            what = "a far metric line before the real one"
        else:
            comp = base.replace("\n", "\r\n")
            what = "CRLF"
        fb = {"baseline_accuracy.txt": base, "compliance_accuracy.txt": comp}
        if rng.random() < 0.5:
            fb = {"baseline_accuracy.txt": comp, "compliance_accuracy.txt": base}
        desc.append("fallback files, one with %s" % what)
    else:  # the other accuracy/ files: mlperf_log_accuracy.json or accuracy.txt removed, a stray file
        fb = {"baseline_accuracy.txt": scaled(1), "compliance_accuracy.txt": scaled(1)}
        sub = rng.randrange(4)
        if sub == 3:
            fb = {}
            for dp, dns, fns in os.walk(os.path.join(tree, acc), topdown=False):
                for f in fns:
                    os.unlink(os.path.join(dp, f))
                os.rmdir(dp)
            desc.append("the accuracy folder removed")
        elif sub < 2:
            n = ["mlperf_log_accuracy.json", "accuracy.txt"][sub]
            p = os.path.join(tree, acc, n)
            if os.path.lexists(p):
                os.unlink(p)
            desc.append("fallback files equal, %s removed" % n)
        else:
            write(tree, os.path.join(acc, "verify_accuracy.txt"), b"TEST PASS\n")
            desc.append("fallback files equal, a verify_accuracy.txt in accuracy/")
    for n, text in fb.items():
        write(tree, os.path.join(acc, n), text.encode("utf-8", "surrogateescape"))
    return Mut("%s: %s" % (tdir, "; ".join(desc)), damaged)



class DoesNotApply(RuntimeError):
    """The tree has nothing this kind can damage (drop_compliance on v0.5: no compliance/)."""


KIND_FUNCS = {k: globals()["m_" + k] for k in KINDS + EXTRA_KINDS + EXTRA_KINDS2 + EXTRA_KINDS3}


def apply(kind, tree, rng):
    """One mutation of `kind` (another draw of the same kind when a choice does not apply)."""
    for _ in range(50):
        try:
            return KIND_FUNCS[kind](tree, rng)
        except NotApplicable:
            continue
    raise DoesNotApply("mutation %s does not apply to %s" % (kind, tree))
