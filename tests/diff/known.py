"""Documented differences between `mlsubmit check` and the official checker (docs/DIFFERENCES.md).

match(kind, mut, official, mlsubmit) returns the name of the documented difference that explains a
case whose verdicts differ, or None (an unexplained divergence). Each rule is narrow: it checks what
both checkers said, so that another divergence of the same mutation kind is still reported.
"""
import re

EXC_RE = re.compile(r"(\S+)/(TEST\d+)/performance/run_1 caused exception in check_performance_dir")


def compliance_exception_ignored(kind, mut, off, me):
    """check_compliance_dir (v5.1.1) catches an exception of check_performance_dir on a compliance
    run but keeps `compliance_perf_valid` from the previous test of the loop, so the broken run
    passes; mlsubmit fails the result (C3 on that run's files)."""
    if off.rows is None or me.rows is None:
        return False
    raised = EXC_RE.findall(off.out)
    if not raised:
        return False
    if me.rows - off.rows:  # mlsubmit may only have fewer results, never others
        return False
    results = {c.replace("/compliance/", "/results/", 1) for c, _ in raised}
    for row in off.rows - me.rows:
        if not any(cell in results for cell in row):
            return False
    return all(re.search(r"^ERROR\tC3\t%s/%s/" % (re.escape(c), t), me.out, re.M) for c, t in raised)


RULES = [
    ("compliance-exception-ignored", compliance_exception_ignored),
]


def match(kind, mut, off, me):
    for name, pred in RULES:
        if pred(kind, mut, off, me):
            return name
    return None
