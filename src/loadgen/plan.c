/* lg_plan_test: the loadable sets and generated-query figures of a test, computed with the same
 * code the LoadGen runs (no SUT involved). */
#include <stdlib.h>
#include <string.h>

#include "loadgen/internal.h"
#include "loadgen/querygen.h"
#include "loadgen/rng.h"

double lg_accuracy_log_probability(const lg_effective *ef);

/* What an older release derives differently (TestSettingsInternal of its tag). ms_qps and
 * ms_async: the early MultiStream's requested multi_stream_target_qps and
 * multi_stream_max_async_queries (reference r0.5 test_settings_internal.cc). */
void lg_effective_apply_rules(lg_effective *ef, const lg_test_settings *s, const lg_version_rules *vr,
                              double ms_qps, uint64_t ms_async)
{
    ef->rules = vr;
    if (vr->ms_from_target_qps && s->scenario == LG_MULTI_STREAM) {
        ef->max_async_queries = ms_async;
        ef->target_qps = ms_qps;
        ef->target_latency_ns = (uint64_t)lg_seconds_to_ns((double)ms_async / ms_qps);
    }
    if (!vr->equal_issue)
        ef->sample_concatenate_permutation = 0;
    if (vr->issue_same_as_unique && s->scenario == LG_OFFLINE && s->performance_issue_same) {
        ef->samples_per_query = ef->performance_sample_count;
        ef->min_sample_count = ef->min_query_count * ef->samples_per_query;
    }
}

static void apply_rules(lg_effective *ef, const lg_plan_request *rq, const lg_version_rules *vr)
{
    lg_effective_apply_rules(ef, rq->s, vr, rq->ms_target_qps, rq->ms_max_async_queries);
    ef->stdlib = rq->stdlib;
}

int lg_plan_test(const lg_test_settings *s, size_t qsl_total, size_t qsl_perf, lg_compat compat,
                 int accuracy, lg_plan *out, ms_err *e)
{
    lg_plan_request rq = {.s = s, .qsl_total = qsl_total, .qsl_perf = qsl_perf,
                          .rules = lg_version_rules_of_compat(compat), .accuracy = accuracy};
    return lg_plan_test_req(&rq, out, e);
}

int lg_plan_test_req(const lg_plan_request *rq, lg_plan *out, ms_err *e)
{
    const lg_test_settings *s = rq->s;
    size_t qsl_total = rq->qsl_total, qsl_perf = rq->qsl_perf;
    int accuracy = rq->accuracy;
    const lg_version_rules *vr = rq->rules ? rq->rules : lg_version_rules_latest();
    lg_compat compat = lg_loaded_set_compat(vr);
    memset(out, 0, sizeof *out);
    lg_test_settings req = *s;
    if (req.test05) {
        req.qsl_rng_seed = s->test05_qsl_rng_seed;
        req.sample_index_rng_seed = s->test05_sample_index_rng_seed;
        req.schedule_rng_seed = s->test05_schedule_rng_seed;
    }
    lg_effective_derive(&out->ef, &req, qsl_total, qsl_perf);
    apply_rules(&out->ef, rq, vr);
    out->accuracy = accuracy;
    out->accuracy_log_probability = lg_accuracy_log_probability(&out->ef);
    lg_lset *sets;
    size_t n;
    int rc = lg_make_loadable_sets(&out->ef, qsl_total, compat, accuracy, &sets, &n, e);
    if (rc)
        return rc;
    out->series = calloc(n, sizeof *out->series);
    if (!out->series) {
        lg_lsets_free(sets, n);
        return ms_err_oom(e);
    }
    for (size_t i = 0; i < n; i++) {
        lg_plan_series *ps0 = &out->series[i];
        if (rq->sets_only) {
            ps0->loaded = sets[i].idx;
            ps0->nloaded = sets[i].len;
            sets[i].idx = NULL;
            out->nseries++;
            continue;
        }
        lg_qgen g;
        rc = lg_qgen_init(&g, &out->ef, &sets[i], accuracy, e);
        if (rc) {
            lg_lsets_free(sets, n);
            lg_plan_free(out);
            return rc;
        }
        lg_plan_series *ps = &out->series[i];
        ps->query_count = g.query_count;
        ps->samples_per_query = vr->logs_query_spq ? g.spq : out->ef.samples_per_query;
        ps->duration_ns = g.total_duration_ns;
        ps->loaded = sets[i].idx; /* take ownership */
        ps->nloaded = sets[i].len;
        sets[i].idx = NULL;
        lg_qgen_free(&g);
        out->nseries++;
    }
    lg_lsets_free(sets, n);
    return MS_OK;
}

void lg_plan_free(lg_plan *p)
{
    for (size_t i = 0; i < p->nseries; i++)
        free(p->series[i].loaded);
    free(p->series);
    memset(p, 0, sizeof *p);
}
