#!/usr/bin/env python3
"""One pydiff case (tests/diff/pydiff.py): a LoadGen harness written against the MLCommons Python
bindings' API, run unchanged on whichever mlperf_loadgen module PYTHONPATH finds (the reference
build or mlsubmit's build/python).

  harness.py CASE.json TRACE.json

CASE.json says what the harness does (scenario, mode, settings set as attributes or through
FromConfig, log settings, the SUT's kind and threading, response data, token calls, bad-use
probes); every call it makes is one the case's tag offers. TRACE.json receives what the harness
saw: the probes' outcomes, every issue_query call's sample indices, the load / unload calls,
flush calls, FromConfig's return values and StartTest's outcome. The logs are written where the
case's LogOutputSettings (or the default, the working directory) say."""
import array
import decimal
import fractions
import json
import pickle
import queue
import sys
import threading

import mlperf_loadgen as lg


def value_text(v):
    """A read-back value as text that both modules render alike (enums by member name)."""
    if isinstance(v, bool) or isinstance(v, (int, float)) or v is None or isinstance(v, str):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[%s]" % ", ".join(value_text(x) for x in v)
    n = getattr(v, "name", None)
    return "%s.%s" % (type(v).__name__, n) if isinstance(n, str) else type(v).__name__


def outcome(f):
    try:
        r = f()
    except Exception as e:  # the class is what is compared
        return "raises " + type(e).__name__
    return "ok " + value_text(r)


def probe(p):
    """One bad (or borderline) use: ['set', object, attribute, value] or ['call', what, args]."""
    kind = p[0]
    if kind == "eval":          # an expression over the module (enums, defaults, pickling)
        return outcome(lambda: eval(p[1], {"lg": lg, "pickle": pickle}))
    if kind == "defaults":      # every attribute a fresh object of the class has
        obj = getattr(lg, p[1])()
        return outcome(lambda: [value_text(getattr(obj, k)) for k in p[2]])
    if kind == "set":
        obj = {"TestSettings": lg.TestSettings, "LogOutputSettings": lg.LogOutputSettings,
               "LogSettings": lg.LogSettings, "QuerySample": lg.QuerySample,
               "QuerySampleResponse": lg.QuerySampleResponse}[p[1]]()
        val = decode(p[3])

        def f():
            setattr(obj, p[2], val)
            return getattr(obj, p[2])
        return outcome(f)
    what, args = p[1], [decode(a) for a in p[2]]
    if what == "FromConfig":
        return outcome(lambda: lg.TestSettings().FromConfig(*args))
    if what == "ConstructQSL":
        return outcome(lambda: type(lg.ConstructQSL(*args)).__name__)
    if what in ("ConstructSUT", "ConstructFastSUT"):
        return outcome(lambda: type(getattr(lg, what)(*args)).__name__)
    if what == "QuerySample":
        return outcome(lambda: [value_text(getattr(lg.QuerySample(*args), k)) for k in ("id", "index")])
    if what == "QuerySampleResponse":
        return outcome(lambda: [value_text(getattr(lg.QuerySampleResponse(*args), k)) for k in ("id", "size")])
    if what == "QuerySamplesComplete":
        return outcome(lambda: lg.QuerySamplesComplete(*args))
    if what == "StartTest":
        return outcome(lambda: lg.StartTest(*args))
    if what == "TestSettings":
        return outcome(lambda: type(lg.TestSettings(*args)).__name__)
    return "unknown probe"


def decode(a):
    """Values of a case: JSON, with {'enum': [class, member]}, {'float': text} for inf / nan,
    {'dec': text} a Decimal, {'frac': [n, d]} a Fraction, {'fn': 1} a callable, {'obj': class}
    a new object of the module's class."""
    if isinstance(a, dict):
        if "enum" in a:
            return getattr(getattr(lg, a["enum"][0]), a["enum"][1])
        if "float" in a:
            return float(a["float"])
        if "dec" in a:
            return decimal.Decimal(a["dec"])
        if "frac" in a:
            return fractions.Fraction(*a["frac"])
        if "fn" in a:
            return lambda *x: None
        if "obj" in a:
            return {"TestSettings": lg.TestSettings, "LogSettings": lg.LogSettings}[a["obj"]]()
    return a


def payload(index, seq):
    """The response bytes of a sample: deterministic in its index (and the response's rank)."""
    n = (index * 7 + 3) % 11 + 1
    return array.array("B", [(index * 31 + i * 17 + seq) % 256 for i in range(n)])


def main():
    case = json.load(open(sys.argv[1]))
    out = {"probes": [], "issues": [], "loads": [], "unloads": [], "flushes": 0, "reports": [], "response_cbs": 0,
           "fromconfig": []}
    for p in case.get("probes", []):
        out["probes"].append(probe(p))

    ts = lg.TestSettings()
    ts.scenario = getattr(lg.TestScenario, case["scenario"])
    ts.mode = getattr(lg.TestMode, case["mode"])
    for k, v in case.get("pre_attrs", []):
        setattr(ts, k, decode(v))
    for fc in case.get("fromconfig", []):
        out["fromconfig"].append(ts.FromConfig(*fc))
    for k, v in case["attrs"]:
        setattr(ts, k, decode(v))

    sut_kind = case["sut"]          # sut | fast | qdl
    threaded = case["threaded"]     # complete from another thread
    data = case["data"]             # none | bytes
    qsr_form = case["qsr"]          # args3 | args4 | attrs
    tokens = case["tokens"]         # call FirstTokenComplete first
    batch = case["batch"]           # complete an issue_query call's samples in one call
    use_cb = case.get("response_cb", False)
    lock = threading.Lock()
    work = queue.Queue()

    def respond(pairs):
        """Completes [(id, index)]."""
        resps, bufs = [], []
        for i, (rid, idx) in enumerate(pairs):
            ptr, size = 0, 0
            if data == "bytes":
                b = payload(idx, 0)
                bufs.append(b)
                ptr, size = b.buffer_info()[0], len(b)
            if qsr_form == "args4":
                r = lg.QuerySampleResponse(rid, ptr, size, (idx % 5) + 1)
            elif qsr_form == "attrs":
                r = lg.QuerySampleResponse()
                r.id, r.data, r.size = rid, ptr, size
            else:
                r = lg.QuerySampleResponse(rid, ptr, size)
            resps.append(r)
        if tokens:
            lg.FirstTokenComplete(resps)
        groups = [resps] if batch else [[r] for r in resps]
        for g in groups:
            if use_cb:
                lg.QuerySamplesComplete(g, response_cb)
            else:
                lg.QuerySamplesComplete(g)

    def response_cb(resp):
        with lock:
            out["response_cbs"] += 1

    def worker():
        while True:
            item = work.get()
            if item is None:
                return
            respond(item)

    def record(ids, idxs):
        with lock:
            out["issues"].append(list(idxs))
        pairs = list(zip(ids, idxs))
        if threaded:
            work.put(pairs)
        else:
            respond(pairs)

    def issue_query(samples):
        if "arg_types" not in out:   # what the callback is handed
            out["arg_types"] = [type(samples).__name__, type(samples[0]).__name__ if samples else None]
        record([s.id for s in samples], [s.index for s in samples])

    def fast_issue(ids, idxs):
        if "arg_types" not in out:
            out["arg_types"] = [type(ids).__name__, type(idxs).__name__]
        record(list(ids), list(idxs))

    def flush():
        out["flushes"] += 1

    def load(idxs):
        out["loads"].append(sorted(idxs))

    def unload(idxs):
        out["unloads"].append(sorted(idxs))

    def report(latencies):
        out["reports"].append(len(latencies))

    extra = [report] if case.get("report_latencies") else []   # up to tag v2.0
    if sut_kind == "fast":
        sut = lg.ConstructFastSUT(fast_issue, flush, *extra)
    elif sut_kind == "qdl":
        sut = lg.ConstructQDL(issue_query, flush, lambda: "PyQDL")
    else:
        sut = lg.ConstructSUT(issue_query, flush, *extra)
    qsl = lg.ConstructQSL(case["total"], case["perf"], load, unload)
    th = threading.Thread(target=worker, daemon=True)
    th.start()
    log = case.get("log")
    try:
        audit = [case["audit_arg"]] if case.get("audit_arg") else []   # v2.0 on
        kw = {"audit_config_filename": audit.pop()} if audit and case.get("audit_kw") else {}
        if log is None:
            lg.StartTest(sut, qsl, ts, *audit, **kw)
        else:
            ls = lg.LogSettings()
            if case.get("log_mode"):
                ls.log_mode = getattr(lg.LoggingMode, case["log_mode"])
            if case.get("log_whole"):   # a LogOutputSettings of its own, assigned whole
                lo = lg.LogOutputSettings()
                for k, v in log.items():
                    setattr(lo, k, v)
                ls.log_output = lo
            else:                       # the fields of ls.log_output set in place
                for k, v in log.items():
                    setattr(ls.log_output, k, v)
            lg.StartTestWithLogSettings(sut, qsl, ts, ls, *audit, **kw)
        out["start"] = "ok"
    except Exception as e:
        out["start"] = "raises " + type(e).__name__
    work.put(None)
    th.join()
    if sut_kind == "fast":
        lg.DestroyFastSUT(sut)
    elif sut_kind == "qdl":
        lg.DestroyQDL(sut)
    else:
        lg.DestroySUT(sut)
    lg.DestroyQSL(qsl)
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
