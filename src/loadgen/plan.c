/* lg_plan_test: the loadable sets and generated-query figures of a test, computed with the same
 * code the LoadGen runs (no SUT involved). */
#include <stdlib.h>
#include <string.h>

#include "loadgen/internal.h"
#include "loadgen/querygen.h"
#include "loadgen/rng.h"

double lg_accuracy_log_probability(const lg_effective *ef);

int lg_plan_test(const lg_test_settings *s, size_t qsl_total, size_t qsl_perf, lg_compat compat,
                 int accuracy, lg_plan *out, ms_err *e)
{
    memset(out, 0, sizeof *out);
    lg_test_settings req = *s;
    if (req.test05) {
        req.qsl_rng_seed = s->test05_qsl_rng_seed;
        req.sample_index_rng_seed = s->test05_sample_index_rng_seed;
        req.schedule_rng_seed = s->test05_schedule_rng_seed;
    }
    lg_effective_derive(&out->ef, &req, qsl_total, qsl_perf);
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
        lg_qgen g;
        rc = lg_qgen_init(&g, &out->ef, &sets[i], accuracy, e);
        if (rc) {
            lg_lsets_free(sets, n);
            lg_plan_free(out);
            return rc;
        }
        lg_plan_series *ps = &out->series[i];
        ps->query_count = g.query_count;
        ps->samples_per_query = g.spq;
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
