/* What a detail log says was requested: the TestSettings rebuilt from its requested_* keys,
 * the QSL counts and the LoadGen version, for lg_plan_test (replay, STRICT record counts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_int.h"

int au_loads_set_from_count(const char *version)
{
    /* the log's release row (rules/loadgen.json) says which loaded-set rule it follows; a
     * version no row names is the newest's */
    const lg_version_rules *vr = version ? lg_version_rules_of(version) : NULL;
    return (vr ? vr : lg_version_rules_latest())->loaded_set_from_count;
}

static int has_warning(const ms_mllog *log, const char *text)
{
    for (size_t i = 0; i < log->nrecs; i++) {
        const ms_mllog_rec *r = &log->recs[i];
        if (strcmp(r->key, "warning_generic_message") != 0 || r->kind != MS_JV_STRING)
            continue;
        char *v = ms_mllog_rec_str(r);
        int hit = v && strstr(v, text);
        free(v);
        if (hit)
            return 1;
    }
    return 0;
}

/* The value of a record as text lg_settings_set understands. */
static char *value_text(const ms_mllog_rec *r)
{
    if (r->kind == MS_JV_BOOL)
        return strdup(r->raw_len && r->raw[0] == 't' ? "1" : "0");
    if (r->kind == MS_JV_STRING)
        return ms_mllog_rec_str(r);
    return strndup(r->raw, r->raw_len);
}

static void add_missing(au_logged *o, const char *key)
{
    size_t n = strlen(o->missing);
    snprintf(o->missing + n, sizeof o->missing - n, "%s%s", n ? ", " : "", key);
}

int au_logged_settings(const ms_mllog *log, int compat, au_logged *o, char *why, size_t whysz)
{
    memset(o, 0, sizeof *o);
    lg_settings_default(&o->s);
    char *ver = ms_mllog_get_str(log, "loadgen_version");
    snprintf(o->version, sizeof o->version, "%s", ver ? ver : "");
    free(ver);
    const lg_version_rules *vr = lg_version_rules_of(o->version);
    /* the loaded-set rule of the log's release (an unknown one: the newest's) */
    o->compat = compat >= 0 ? compat : lg_loaded_set_compat(vr ? vr : lg_version_rules_latest());
    o->version_known = vr != NULL;
    o->rules = compat >= 0 ? lg_version_rules_of_compat((lg_compat)compat) : vr ? vr : lg_version_rules_latest();
    o->audit_warning = has_warning(log, "Found Audit Config file");
    o->test05_warning = has_warning(log, "Test05 flag detected");
    char *scen = ms_mllog_get_str(log, "requested_scenario");
    char *mode = ms_mllog_get_str(log, "requested_test_mode");
    int sc = scen ? lg_scenario_parse(scen) : -1, md = mode ? lg_mode_parse(mode) : -1;
    free(scen);
    free(mode);
    if (sc < 0 || md < 0) {
        snprintf(why, whysz, "%s: no usable requested_scenario / requested_test_mode entry", log->path);
        return -1;
    }
    o->s.scenario = (lg_scenario)sc;
    o->s.mode = (lg_mode)md;
    uint64_t tot, perf;
    if (ms_mllog_get_u64(log, "qsl_reported_total_count", &tot) != 0 ||
        ms_mllog_get_u64(log, "qsl_reported_performance_count", &perf) != 0) {
        snprintf(why, whysz, "%s: no qsl_reported_total_count / qsl_reported_performance_count entry", log->path);
        return -1;
    }
    o->have_ms_legacy = 0;
    o->qsl_total = (size_t)tot;
    o->qsl_perf = (size_t)perf;
    for (size_t i = 0; i < log->nrecs; i++) {
        const ms_mllog_rec *r = &log->recs[i];
        if (strncmp(r->key, "requested_", 10) != 0 || ms_mllog_find(log, r->key) != r)
            continue;
        const char *field = r->key + 10;
        if (!strcmp(field, "scenario") || !strcmp(field, "test_mode"))
            continue;
        /* LoadGen 1.x MultiStream settings (TestSettings of that release) */
        if (!strcmp(field, "multi_stream_target_qps")) {
            o->have_ms_legacy |= ms_mllog_rec_double(r, &o->ms_target_qps) == 0 ? 1 : 0;
            continue;
        }
        if (!strcmp(field, "multi_stream_max_async_queries")) {
            o->have_ms_legacy |= ms_mllog_rec_u64(r, &o->ms_max_async) == 0 ? 2 : 0;
            continue;
        }
        if (!strcmp(field, "multi_stream_target_latency_ns"))
            continue; /* MultiStreamFree only */
        char *v = value_text(r);
        ms_err e = {0};
        if (!v || lg_settings_set(&o->s, field, v, &e) != MS_OK)
            add_missing(o, r->key);
        free(v);
    }
    /* the keys every LoadGen since v1.0 logs; their absence means defaults were assumed */
    static const char *const core[] = {"requested_min_duration_ms", "requested_min_query_count",
                                       "requested_qsl_rng_seed", "requested_sample_index_rng_seed",
                                       "requested_schedule_rng_seed", NULL};
    for (const char *const *k = core; *k; k++)
        if (!ms_mllog_find(log, *k))
            add_missing(o, *k);
    return 0;
}

int au_expected_sampling(const ms_mllog *log, double *p, uint64_t *samples, char *why, size_t whysz)
{
    au_logged lg;
    if (au_logged_settings(log, -1, &lg, why, whysz) != 0)
        return -1;
    lg.s.mode = LG_PERFORMANCE_ONLY;
    lg_plan plan;
    ms_err e = {0};
    if (lg_plan_test(&lg.s, lg.qsl_total, lg.qsl_perf, (lg_compat)lg.compat, 0, &plan, &e) != MS_OK) {
        snprintf(why, whysz, "%s: cannot plan the run: %s", log->path, e.msg);
        return -1;
    }
    *p = plan.accuracy_log_probability;
    lg_plan_free(&plan);
    /* samples actually issued (every issued sample completes and may be logged) */
    uint64_t q, spq;
    if (ms_mllog_get_u64(log, "result_query_count", &q) != 0)
        q = 0;
    if (ms_mllog_get_u64(log, "generated_samples_per_query", &spq) != 0 &&
        ms_mllog_get_u64(log, "effective_samples_per_query", &spq) != 0) {
        snprintf(why, whysz, "%s: no generated_samples_per_query entry", log->path);
        return -1;
    }
    if (q == 0) {
        snprintf(why, whysz, "%s: no result_query_count entry (the run did not finish)", log->path);
        return -1;
    }
    *samples = q * spq;
    return 0;
}
