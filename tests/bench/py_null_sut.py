"""Null-SUT harness for tests/bench/bench_python.sh: completes every sample inside issue_query.

usage: py_null_sut.py Server|Offline QPS DURATION_MS OUTDIR
Prints "<scenario> completed_samples_per_s <x>" from the run's summary (Server: completed
samples over the run, the "Completed samples per second" line; Offline: "Samples per second").
Runs unchanged on the reference module and on mlsubmit's (whichever PYTHONPATH provides)."""
import os
import sys

import mlperf_loadgen as lg

scen, qps, dur, outdir = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]


def issue(query_samples):
    lg.QuerySamplesComplete([lg.QuerySampleResponse(q.id, 0, 0) for q in query_samples])


def flush():
    pass


sut = lg.ConstructSUT(issue, flush)
qsl = lg.ConstructQSL(1024, 1024, lambda s: None, lambda s: None)
s = lg.TestSettings()
s.scenario = getattr(lg.TestScenario, scen)
s.mode = lg.TestMode.PerformanceOnly
s.server_target_qps = qps
s.offline_expected_qps = qps
s.min_duration_ms = dur
s.max_duration_ms = dur * 4
s.min_query_count = 1
s.server_target_latency_ns = 10**12
ls = lg.LogSettings()
ls.log_output.outdir = outdir
ls.enable_trace = False
os.makedirs(outdir, exist_ok=True)
lg.StartTestWithLogSettings(sut, qsl, s, ls)
lg.DestroySUT(sut)
lg.DestroyQSL(qsl)
with open(os.path.join(outdir, "mlperf_log_summary.txt")) as f:
    text = f.read()
key = "Completed samples per second" if scen == "Server" else "Samples per second"
val = None
for line in text.splitlines():
    if line.strip().startswith(key):
        val = float(line.split(":")[1])
print(scen, "completed_samples_per_s", val)
