"""Documented differences between `mlsubmit check` and the official checker (docs/DIFFERENCES.md).

match(kind, mut, official, mlsubmit) returns the name of the documented difference that explains a
case whose verdicts differ, or None (an unexplained divergence). Each rule is narrow: it names the
situation of docs/DIFFERENCES.md and checks what both checkers said, so that a new divergence of the
same mutation kind is still reported.
"""

RULES = []


def match(kind, mut, off, me):
    for name, pred in RULES:
        if pred(kind, mut, off, me):
            return name
    return None
