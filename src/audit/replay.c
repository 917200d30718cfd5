/* audit replay: what an unmodified LoadGen would have done with the settings a detail log says
 * were requested (lg_plan_test), compared with what the log says happened. A review-committee
 * tool: edited seeds or loaded sets, a modified LoadGen, or an audit.config that was not
 * applied (the evidence of applied.c) show up as mismatches naming the key and both values.
 *
 * The rules are those of the LoadGen release that wrote the log (lg_version_rules_of its
 * loadgen_version, or --loadgen-compat), and the loaded set is drawn with each C++ standard
 * library's shuffle until one reproduces it (the submitters' builds differ: lg_stdlib).
 *
 * The requested doubles (expected latency, target QPS) are logged with 6 significant digits
 * (std::ostream's default precision). A generated count, samples per query or duration that the
 * logged text does not reproduce is searched for in the interval of doubles that print as that
 * text: a mismatch only when no double there explains every logged figure of the series. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_int.h"
#include "common/acclog.h"
#include "common/fsutil.h"

typedef struct rctx {
    ms_buf *out;
    au_replay_result *res;
    const ms_mllog *log;
    au_logged lg;
    lg_plan plan[3];      /* the logged settings, and the rounded double at its low / high end */
    int nplans;
    int accuracy;         /* the plan is of accuracy series */
    const char *rounded_key;
    const lg_version_rules *vr;
    int stdlib;           /* the standard library whose shuffle reproduced the loaded set */
    int stdlib_found;
} rctx;

static int is_core(const char *text)
{
    return !strncmp(text, "loaded_qsl_set", 14) || !strncmp(text, "generated_", 10);
}

static void line(rctx *c, const char *tag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(rctx *c, const char *tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ms_buf_printf(c->out, "%-9s ", tag);
    size_t at = c->out->len;
    ms_buf_vprintf(c->out, fmt, ap);
    const char *text = c->out->data ? c->out->data + at : "";
    if (!strcmp(tag, "match")) {
        c->res->checked++;
        if (is_core(text))
            c->res->core_matched++;
    } else if (!strcmp(tag, "MISMATCH")) {
        if (!c->res->mismatches)
            snprintf(c->res->first_mismatch, sizeof c->res->first_mismatch, "%s", text);
        c->res->checked++, c->res->mismatches++;
    } else {
        c->res->notes++;
    }
    ms_buf_putc(c->out, '\n');
    va_end(ap);
}

/* The requested double a scenario's counts depend on, and its field. */
static double *rounded_input(lg_test_settings *s, double *ms_qps, const lg_version_rules *vr, const char **key)
{
    if (vr->ms_from_target_qps && s->scenario == LG_MULTI_STREAM) {
        *key = "requested_multi_stream_target_qps";
        return ms_qps;
    }
    switch (s->scenario) {
    case LG_SINGLE_STREAM: *key = "requested_single_stream_expected_latency_ns"; return &s->single_stream_expected_latency_ns;
    case LG_MULTI_STREAM: *key = "requested_multi_stream_expected_latency_ns"; return &s->multi_stream_expected_latency_ns;
    case LG_SERVER: *key = "requested_server_target_qps"; return &s->server_target_qps;
    case LG_OFFLINE: *key = "requested_offline_expected_qps"; return &s->offline_expected_qps;
    }
    return NULL;
}

/* The series an unmodified LoadGen runs: accuracy sets, the performance run, or (SubmissionRun)
 * the accuracy sets followed by the performance run. */
static int plan_one(rctx *c, const lg_test_settings *s, double ms_qps, int accuracy, lg_plan *p, ms_err *e)
{
    lg_plan_request rq = {.s = s, .qsl_total = c->lg.qsl_total, .qsl_perf = c->lg.qsl_perf, .rules = c->vr,
                          .stdlib = c->stdlib, .accuracy = accuracy, .ms_target_qps = ms_qps,
                          .ms_max_async_queries = c->lg.ms_max_async};
    return lg_plan_test_req(&rq, p, e);
}

static int make_plan_q(rctx *c, const lg_test_settings *s, double ms_qps, lg_plan *p, ms_err *e)
{
    if (s->mode != LG_SUBMISSION_RUN)
        return plan_one(c, s, ms_qps, c->accuracy, p, e);
    lg_plan acc;
    int rc = plan_one(c, s, ms_qps, 1, &acc, e);
    if (rc != MS_OK)
        return rc;
    rc = plan_one(c, s, ms_qps, 0, p, e);
    lg_plan_series *all = rc == MS_OK ? calloc(acc.nseries + p->nseries, sizeof *all) : NULL;
    if (!all) {
        if (rc == MS_OK)
            lg_plan_free(p);
        lg_plan_free(&acc);
        return rc == MS_OK ? ms_err_oom(e) : rc;
    }
    memcpy(all, acc.series, acc.nseries * sizeof *all);
    memcpy(all + acc.nseries, p->series, p->nseries * sizeof *all);
    free(acc.series);
    free(p->series);
    p->series = all;
    p->nseries += acc.nseries;
    return MS_OK;
}

static int make_plan(rctx *c, const lg_test_settings *s, lg_plan *p, ms_err *e)
{
    return make_plan_q(c, s, c->lg.ms_target_qps, p, e);
}

/* Plans the two ends of the rounding interval of the scenario's logged double (once). */
static void plan_bounds(rctx *c)
{
    if (c->nplans != 1)
        return;
    lg_test_settings s = c->lg.s;
    double q = c->lg.ms_target_qps;
    const char *key;
    double *x = rounded_input(&s, &q, c->vr, &key);
    if (!x || !(*x > 0))
        return;
    double h = 0.5 * pow(10, floor(log10(*x)) - 5);
    double v = *x;
    ms_err e = {0};
    *x = v - h;
    if (make_plan_q(c, &s, q, &c->plan[1], &e) != MS_OK)
        return;
    *x = v + h;
    if (make_plan_q(c, &s, q, &c->plan[2], &e) != MS_OK) {
        lg_plan_free(&c->plan[1]);
        return;
    }
    c->nplans = 3;
    c->rounded_key = key;
}

/* An integer derived from the plan: match exactly, or within the rounding interval. */
static void cmp_u64(rctx *c, const char *key, uint64_t logv, uint64_t (*get)(const lg_plan *, size_t), size_t series)
{
    uint64_t want = get(&c->plan[0], series);
    if (logv == want) {
        line(c, "match", "%s = %llu", key, (unsigned long long)logv);
        return;
    }
    plan_bounds(c);
    if (c->nplans == 3) {
        uint64_t a = get(&c->plan[1], series), b = get(&c->plan[2], series);
        uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
        lo = lo < want ? lo : want;
        hi = hi > want ? hi : want;
        if (logv >= lo && logv <= hi) {
            line(c, "match", "%s = %llu (within the 6-digit rounding of %s: %llu..%llu)", key,
                 (unsigned long long)logv, c->rounded_key, (unsigned long long)lo, (unsigned long long)hi);
            return;
        }
    }
    line(c, "MISMATCH", "%s: log %llu, unmodified LoadGen %llu", key, (unsigned long long)logv,
         (unsigned long long)want);
}

/* ---- effective_* ---- */

#define EF_U(name) static uint64_t g_##name(const lg_plan *p, size_t i) { (void)i; return (uint64_t)p->ef.name; }
EF_U(samples_per_query) EF_U(target_latency_ns) EF_U(max_async_queries) EF_U(target_duration_ms)
EF_U(min_duration_ms) EF_U(max_duration_ms) EF_U(min_query_count) EF_U(max_query_count) EF_U(min_sample_count)
EF_U(qsl_rng_seed) EF_U(sample_index_rng_seed) EF_U(schedule_rng_seed) EF_U(accuracy_log_rng_seed)
EF_U(accuracy_log_sampling_target) EF_U(print_timestamps) EF_U(performance_issue_unique)
EF_U(performance_issue_same) EF_U(performance_issue_same_index) EF_U(performance_sample_count)
EF_U(accuracy_sample_count) EF_U(sample_concatenate_permutation)
#undef EF_U

static const struct efk {
    const char *key;
    uint64_t (*get)(const lg_plan *, size_t);
    int is_bool;
} ef_keys[] = {
    {"effective_samples_per_query", g_samples_per_query, 0},
    {"effective_target_latency_ns", g_target_latency_ns, 0},
    {"effective_max_async_queries", g_max_async_queries, 0},
    {"effective_target_duration_ms", g_target_duration_ms, 0},
    {"effective_min_duration_ms", g_min_duration_ms, 0},
    {"effective_max_duration_ms", g_max_duration_ms, 0},
    {"effective_min_query_count", g_min_query_count, 0},
    {"effective_max_query_count", g_max_query_count, 0},
    {"effective_min_sample_count", g_min_sample_count, 0},
    {"effective_qsl_rng_seed", g_qsl_rng_seed, 0},
    {"effective_sample_index_rng_seed", g_sample_index_rng_seed, 0},
    {"effective_schedule_rng_seed", g_schedule_rng_seed, 0},
    {"effective_accuracy_log_rng_seed", g_accuracy_log_rng_seed, 0},
    {"effective_accuracy_log_sampling_target", g_accuracy_log_sampling_target, 0},
    {"effective_print_timestamps", g_print_timestamps, 1},
    {"effective_performance_issue_unique", g_performance_issue_unique, 1},
    {"effective_performance_issue_same", g_performance_issue_same, 1},
    {"effective_performance_issue_same_index", g_performance_issue_same_index, 0},
    {"effective_performance_sample_count", g_performance_sample_count, 0},
    {"effective_accuracy_sample_count", g_accuracy_sample_count, 0},
    {"effective_sample_concatenate_permutation", g_sample_concatenate_permutation, 1},
};

static void cmp_str(rctx *c, const char *key, const char *want)
{
    char *v = ms_mllog_get_str(c->log, key);
    if (!v)
        line(c, "note", "%s: not in the log", key);
    else if (!strcmp(v, want))
        line(c, "match", "%s = %s", key, v);
    else
        line(c, "MISMATCH", "%s: log %s, unmodified LoadGen %s", key, v, want);
    free(v);
}

static void cmp_double(rctx *c, const char *key, double want)
{
    double v;
    const ms_mllog_rec *r = ms_mllog_find(c->log, key);
    if (!r) {
        line(c, "note", "%s: not in the log", key);
        return;
    }
    if (ms_mllog_rec_double(r, &v) != 0) {
        line(c, "MISMATCH", "%s: log %.*s is not a number, unmodified LoadGen %g", key, (int)r->raw_len, r->raw, want);
        return;
    }
    /* the log has 6 significant digits, and the inputs were rounded to 6 as well */
    double tol = 2e-5 * fmax(fabs(v), fabs(want));
    if (v == want || fabs(v - want) <= tol)
        line(c, "match", "%s = %.*s", key, (int)r->raw_len, r->raw);
    else
        line(c, "MISMATCH", "%s: log %.*s, unmodified LoadGen %g", key, (int)r->raw_len, r->raw, want);
}

static void check_effective(rctx *c)
{
    const lg_effective *ef = &c->plan[0].ef;
    cmp_str(c, "effective_scenario", lg_scenario_name(ef->scenario));
    cmp_str(c, "effective_test_mode", lg_mode_name(ef->mode));
    cmp_double(c, "effective_target_qps", ef->target_qps);
    if (ef->scenario == LG_OFFLINE && c->vr->offline_percentile_unset) {
        /* unused by Offline; some builds of the release never set it */
        double v;
        if (ms_mllog_get_double(c->log, "effective_target_latency_percentile", &v) == 0 && v != ef->target_latency_percentile)
            line(c, "note", "effective_target_latency_percentile = %g: unused by Offline, and left unset by some "
                 "LoadGen builds of this release (cannot tell)", v);
        else
            cmp_double(c, "effective_target_latency_percentile", ef->target_latency_percentile);
    } else {
        cmp_double(c, "effective_target_latency_percentile", ef->target_latency_percentile);
    }
    cmp_double(c, "effective_accuracy_log_probability", ef->accuracy_log_probability);
    for (size_t i = 0; i < sizeof ef_keys / sizeof ef_keys[0]; i++) {
        const ms_mllog_rec *r = ms_mllog_find(c->log, ef_keys[i].key);
        if (!r) {
            if ((strcmp(ef_keys[i].key, "effective_accuracy_sample_count") != 0 || c->vr->logs_accuracy_sample_count) &&
                (strcmp(ef_keys[i].key, "effective_sample_concatenate_permutation") != 0 || c->vr->logs_concatenation))
                line(c, "note", "%s: not in the log", ef_keys[i].key);
            continue;
        }
        uint64_t v;
        int b;
        if (ef_keys[i].is_bool && ms_mllog_rec_bool(r, &b) == 0)
            v = (uint64_t)b;
        else if (ms_mllog_rec_u64(r, &v) != 0) {
            line(c, "MISMATCH", "%s: log %.*s is not an unsigned integer", ef_keys[i].key, (int)r->raw_len, r->raw);
            continue;
        }
        cmp_u64(c, ef_keys[i].key, v, ef_keys[i].get, 0);
    }
    for (int i = 0; i < ef->n_errors; i++)
        line(c, "note", "an unmodified LoadGen logs error_invalid_test_settings: %s", ef->errors[i]);
}

/* ---- series ---- */


static void check_loaded(rctx *c, const ms_mllog_rec *r, size_t si)
{
    const lg_plan_series *ps = &c->plan[0].series[si];
    uint64_t *v = NULL;
    size_t n = 0;
    if (ms_mllog_rec_u64_list(r, &v, &n) != 0) {
        line(c, "MISMATCH", "loaded_qsl_set (line %zu): not a list of indices", r->line_no);
        return;
    }
    char label[32] = "";
    if (c->plan[0].nseries > 1)
        snprintf(label, sizeof label, " #%zu", si + 1);
    size_t k = 0;
    while (k < n && k < ps->nloaded && v[k] == ps->loaded[k])
        k++;
    char rule[32];
    lg_loaded_set_rule_name(c->vr, rule, sizeof rule);
    if (k == n && n == ps->nloaded)
        line(c, "match", "loaded_qsl_set%s (%zu indices, qsl_rng_seed %llu, LoadGen %s loaded-set rule, %s shuffle)",
             label, n, (unsigned long long)c->plan[0].ef.qsl_rng_seed, rule, lg_stdlib_name((lg_stdlib)c->stdlib));
    else if (k < n && k < ps->nloaded)
        line(c, "MISMATCH", "loaded_qsl_set (line %zu): position %zu: log %llu, unmodified LoadGen %zu "
             "(%zu and %zu indices; LoadGen %s rule, qsl_rng_seed %llu)", r->line_no, k,
             (unsigned long long)v[k], ps->loaded[k], n, ps->nloaded, rule,
             (unsigned long long)c->plan[0].ef.qsl_rng_seed);
    else
        line(c, "MISMATCH", "loaded_qsl_set (line %zu): log has %zu indices, unmodified LoadGen %zu", r->line_no, n,
             ps->nloaded);
    free(v);
}

static int memcmp_u64_size(const uint64_t *a, const size_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != (uint64_t)b[i])
            return 1;
    return 0;
}

/* ---- the rounding interval of a logged double ---- */

/* The doubles that print as the requested value's logged text: [lo, hi] (6 significant digits,
 * or as many as the text has). */
static int rounding_interval(rctx *c, const char *key, double v, double *lo, double *hi)
{
    const ms_mllog_rec *r = ms_mllog_find(c->log, key);
    int nd = 0, started = 0;
    if (r)
        for (size_t i = 0; i < r->raw_len && r->raw[i] != 'e' && r->raw[i] != 'E'; i++) {
            char ch = r->raw[i];
            if (ch >= '1' && ch <= '9')
                started = 1;
            if (started && ch >= '0' && ch <= '9')
                nd++;
        }
    if (nd < 6)
        nd = 6;
    if (!(v > 0) || !isfinite(v))
        return -1;
    double h = 0.5 * pow(10, floor(log10(v)) - nd + 1);
    *lo = v - h;
    *hi = v + h;
    return *lo > 0 ? 0 : -1;
}

static uint64_t dbits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double bitsd(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* count, samples per query, duration of series si with the rounded input set to x */
static int eval_at(rctx *c, uint64_t xb, size_t si, uint64_t out[3])
{
    lg_test_settings s = c->lg.s;
    double q = c->lg.ms_target_qps;
    const char *key;
    double *p = rounded_input(&s, &q, c->vr, &key);
    if (!p)
        return -1;
    *p = bitsd(xb);
    lg_plan pl;
    ms_err e = {0};
    if (make_plan_q(c, &s, q, &pl, &e) != MS_OK)
        return -1;
    int rc = -1;
    if (si < pl.nseries) {
        out[0] = pl.series[si].query_count;
        out[1] = pl.series[si].samples_per_query;
        out[2] = (uint64_t)pl.series[si].duration_ns;
        rc = 0;
    }
    lg_plan_free(&pl);
    return rc;
}

/* Whether a figure v has reached target (past 0) or gone past it (past 1), the figure
 * increasing (inc) or decreasing. */
static int beyond(uint64_t v, uint64_t target, int inc, int past)
{
    if (past)
        return inc ? v > target : v < target;
    return inc ? v >= target : v <= target;
}

/* Bisects [*x, *y] (double bits; beyond() false at *x, true at *y) down to adjacent bits. */
static int bisect(rctx *c, size_t si, int k, uint64_t target, int inc, int past, uint64_t *x, uint64_t *y)
{
    uint64_t m[3];
    while (*y - *x > 1) {
        uint64_t mid = *x + (*y - *x) / 2;
        if (eval_at(c, mid, si, m))
            return -1;
        if (beyond(m[k], target, inc, past))
            *y = mid;
        else
            *x = mid;
    }
    return 0;
}

/* Narrows [*lo, *hi] (double bits) to the doubles where figure k equals target, the figure being
 * monotone there. -1 when no double of the interval gives target. */
static int narrow(rctx *c, size_t si, int k, uint64_t target, uint64_t *lo, uint64_t *hi)
{
    uint64_t a[3], b[3];
    if (eval_at(c, *lo, si, a) || eval_at(c, *hi, si, b))
        return -1;
    int inc = a[k] <= b[k];
    if (!beyond(b[k], target, inc, 0) || beyond(a[k], target, inc, 1))
        return -1;
    uint64_t first = *lo, last = *hi, m[3];
    if (!beyond(a[k], target, inc, 0)) {
        uint64_t x = *lo, y = *hi;
        if (bisect(c, si, k, target, inc, 0, &x, &y))
            return -1;
        first = y;
    }
    if (beyond(b[k], target, inc, 1)) {
        uint64_t x = first, y = *hi;
        if (bisect(c, si, k, target, inc, 1, &x, &y))
            return -1;
        last = x;
    }
    if (eval_at(c, first, si, m) || m[k] != target)
        return -1;
    *lo = first;
    *hi = last;
    return 0;
}

#define EXPLAIN_MAX_SERVER_QUERIES 4000000u

/* Whether a double that prints as the logged requested value gives every logged figure of
 * series si (want[k] for have[k]); *x gets it. 1 yes, 0 no, -1 not searched (too long). */
static int explain(rctx *c, size_t si, const uint64_t want[3], const int have[3], double *x, const char **key)
{
    lg_test_settings s = c->lg.s;
    double q = c->lg.ms_target_qps;
    double *p = rounded_input(&s, &q, c->vr, key);
    double lo, hi;
    if (!p || rounding_interval(c, *key, *p, &lo, &hi) != 0)
        return 0;
    /* about 150 plans: a Server schedule of millions of exponential draws each is minutes */
    if (c->lg.s.scenario == LG_SERVER && c->plan[0].series[si].query_count > EXPLAIN_MAX_SERVER_QUERIES)
        return -1;
    uint64_t bl = dbits(lo), bh = dbits(hi);
    /* Offline: the query size decides first, then the period; elsewhere the count, then the
     * schedule's length */
    static const int order_off[3] = {1, 2, 0}, order_other[3] = {0, 2, 1};
    const int *order = c->lg.s.scenario == LG_OFFLINE ? order_off : order_other;
    for (int i = 0; i < 3; i++) {
        int k = order[i];
        if (have[k] && narrow(c, si, k, want[k], &bl, &bh) != 0)
            return 0;
    }
    uint64_t m[3];
    uint64_t cand[3] = {bl, bh, bl + (bh - bl) / 2};
    for (int j = 0; j < 3; j++) {
        if (eval_at(c, cand[j], si, m))
            continue;
        int ok = 1;
        for (int k = 0; k < 3; k++)
            if (have[k] && m[k] != want[k])
                ok = 0;
        if (ok) {
            *x = bitsd(cand[j]);
            return 1;
        }
    }
    return 0;
}

static void check_generated(rctx *c, size_t si, const uint64_t want[3], const int have[3])
{
    static const char *const gk[3] = {"generated_query_count", "generated_samples_per_query", "generated_query_duration"};
    const lg_plan_series *ps = &c->plan[0].series[si];
    uint64_t plan[3] = {ps->query_count, ps->samples_per_query, (uint64_t)ps->duration_ns};
    char label[32] = "";
    if (c->plan[0].nseries > 1)
        snprintf(label, sizeof label, " (series %zu)", si + 1);
    int same = 1;
    for (int k = 0; k < 3; k++)
        if (have[k] && want[k] != plan[k])
            same = 0;
    double x = 0;
    const char *key = NULL;
    int expl = same ? 0 : explain(c, si, want, have, &x, &key);
    for (int k = 0; k < 3; k++) {
        if (!have[k])
            continue;
        if (want[k] == plan[k])
            line(c, "match", "%s%s = %llu", gk[k], label, (unsigned long long)want[k]);
        else if (expl < 0)
            line(c, "note", "%s%s: log %llu, LoadGen with the logged text of %s %llu; the doubles that print as "
                 "that text were not searched (a Server schedule of over %u queries): cannot tell", gk[k], label,
                 (unsigned long long)want[k], key, (unsigned long long)plan[k], EXPLAIN_MAX_SERVER_QUERIES);
        else if (expl > 0)
            line(c, "match", "%s%s = %llu (within the 6-digit rounding of %s: %s = %.17g prints as the logged "
                 "text and gives every figure of the series)", gk[k], label, (unsigned long long)want[k], key,
                 key, x);
        else
            line(c, "MISMATCH", "%s%s: log %llu, unmodified LoadGen %llu%s%s%s", gk[k], label,
                 (unsigned long long)want[k], (unsigned long long)plan[k], key ? " (no double that prints as the "
                 "logged " : "", key ? key : "", key ? " explains the series)" : "");
    }
}

static void check_series(rctx *c)
{
    size_t nl = 0, ng = 0;
    static const char *const gk[3] = {"generated_query_count", "generated_samples_per_query", "generated_query_duration"};
    size_t gi[3] = {0, 0, 0};
    size_t ns = c->plan[0].nseries;
    uint64_t (*want)[3] = calloc(ns ? ns : 1, sizeof *want);
    int (*have)[3] = calloc(ns ? ns : 1, sizeof *have);
    if (!want || !have) {
        free(want);
        free(have);
        line(c, "note", "out of memory: the generated queries are not checked");
        return;
    }
    for (size_t i = 0; i < c->log->nrecs; i++) {
        const ms_mllog_rec *r = &c->log->recs[i];
        if (!strcmp(r->key, "loaded_qsl_set")) {
            if (nl < ns)
                check_loaded(c, r, nl);
            else if (nl == ns)
                line(c, "note", "loaded_qsl_set (line %zu): more loaded sets than an unmodified LoadGen loads "
                     "(%zu)%s", r->line_no, ns,
                     c->lg.s.mode == LG_FIND_PEAK_PERFORMANCE ? " (FindPeakPerformance trials are not replayed)" : "");
            nl++;
            continue;
        }
        for (int k = 0; k < 3; k++) {
            if (strcmp(r->key, gk[k]) != 0)
                continue;
            size_t si = gi[k]++;
            if (si >= ns)
                break;
            uint64_t v;
            if (ms_mllog_rec_u64(r, &v) != 0)
                line(c, "MISMATCH", "%s (line %zu): not an unsigned integer", gk[k], r->line_no);
            else
                want[si][k] = v, have[si][k] = 1;
            ng++;
        }
    }
    for (size_t si = 0; si < ns; si++)
        if (have[si][0] || have[si][1] || have[si][2])
            check_generated(c, si, want[si], have[si]);
    free(want);
    free(have);
    if (nl == 0)
        line(c, "note", "no loaded_qsl_set entry: the loaded set cannot be checked");
    else if (nl < ns)
        line(c, "MISMATCH", "loaded_qsl_set: the log has %zu loaded sets, an unmodified LoadGen %zu", nl, ns);
    if (ng == 0)
        line(c, "note", "no generated_query_count entries: the query generation cannot be checked");
}

/* ---- accuracy-log sampling ---- */

static char *find_accuracy_log(const char *detail, const char *given)
{
    if (given)
        return strdup(given);
    char *dir = strdup(detail);
    if (!dir)
        return NULL;
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    char *p = au_path3(dir, "mlperf_log_accuracy.json", NULL);
    if (p && !ms_is_regular_file(p)) {
        /* a placed TESTxx directory: TESTxx/performance/run_1/ -> TESTxx/accuracy/ */
        size_t n = strlen(dir);
        if (n >= 18 && !strcmp(dir + n - 18, "/performance/run_1")) {
            dir[n - 18] = '\0';
            free(p);
            p = au_path3(dir, "accuracy/mlperf_log_accuracy.json", NULL);
        }
    }
    free(dir);
    return p;
}

static void check_sampling(rctx *c, const char *detail, const char *given)
{
    if (c->accuracy || c->lg.s.mode == LG_SUBMISSION_RUN) {
        line(c, "note", "accuracy-mode run: every response is logged (no sampling to check)");
        return;
    }
    double p = c->plan[0].accuracy_log_probability;
    uint64_t q, spq;
    if (ms_mllog_get_u64(c->log, "result_query_count", &q) != 0 ||
        (ms_mllog_get_u64(c->log, "generated_samples_per_query", &spq) != 0 &&
         ms_mllog_get_u64(c->log, "effective_samples_per_query", &spq) != 0)) {
        line(c, "note", "accuracy-log sampling: p = %.6g; no result_query_count, so the expected count is unknown", p);
        return;
    }
    uint64_t n = q * spq;
    double mean = p >= 1 ? (double)n : p * (double)n;
    char *path = find_accuracy_log(detail, given);
    if (!path || !ms_is_regular_file(path)) {
        line(c, "note", "accuracy-log sampling: p = %.6g, %llu samples issued, %.1f records expected; no accuracy "
             "log found to count", p, (unsigned long long)n, mean);
        free(path);
        return;
    }
    ms_err e = {0};
    ms_acclog *r = ms_acclog_open(path, 0, &e);
    ms_acc_entry a;
    int rc = -1;
    if (r)
        while ((rc = ms_acclog_next(r, &a, &e)) == 1)
            ;
    size_t count = r ? ms_acclog_count(r) : 0;
    ms_acclog_close(r);
    if (rc < 0) {
        char why[2048];
        au_explain_acclog_error(path, &e, why, sizeof why);
        line(c, "note", "accuracy-log sampling: p = %.6g, %.1f records expected; cannot count: %s", p, mean, why);
        free(path);
        return;
    }
    double lim = p >= 1 || p <= 0 ? 0 : 6 * sqrt(mean);
    if (fabs((double)count - mean) <= lim)
        line(c, "match", "accuracy-log records = %zu (p = %.6g of %llu samples issued: %.1f +- %.1f)", count, p,
             (unsigned long long)n, mean, lim);
    else
        line(c, "MISMATCH", "accuracy-log records: log %zu (%s), unmodified LoadGen %.1f +- %.1f (p = %.6g of %llu "
             "samples issued)", count, path, mean, lim, p, (unsigned long long)n);
    free(path);
}

/* ---- audit evidence: the TESTxx audit.config was applied (applied.c) ---- */

/* The submission run a TESTxx log is compared with: <scenario>/performance/run_1 of results/
 * (compliance/<sys>/<model>/<scenario>/TESTxx/... before v6, results/.../<scenario>/TESTxx/...
 * after). NULL when the path has no TESTxx component. */
static char *reference_log(const char *detail)
{
    const char *t = NULL;
    for (const char *p = detail; (p = strstr(p, "/TEST0")) != NULL; p++)
        t = p;
    if (!t)
        return NULL;
    size_t n = (size_t)(t - detail);
    char *dir = strndup(detail, n);
    if (!dir)
        return NULL;
    char *cpl = NULL;
    for (char *p = dir; (p = strstr(p, "/compliance/")) != NULL; p++)
        cpl = p;
    ms_buf b = MS_BUF_INIT;
    if (cpl) {
        *cpl = '\0';
        ms_buf_printf(&b, "%s/results/%s/performance/run_1/mlperf_log_detail.txt", dir, cpl + 12);
    } else {
        ms_buf_printf(&b, "%s/performance/run_1/mlperf_log_detail.txt", dir);
    }
    free(dir);
    return b.data;
}

/* TEST05 without the "Test05 flag detected" warning: the audit.config of the rounds before the
 * test05 keys (and some after) sets qsl_rng_seed, sample_index_rng_seed and schedule_rng_seed
 * itself. The evidence is then that the seeds differ from the submission run's. */
static void test05_direct_seeds(rctx *c, const char *detail)
{
    static const char *const keys[3] = {"effective_qsl_rng_seed", "effective_sample_index_rng_seed",
                                        "effective_schedule_rng_seed"};
    char *ref = reference_log(detail);
    ms_mllog rl;
    ms_err e = {0};
    if (!ref || !ms_is_regular_file(ref) || ms_mllog_load(&rl, ref, 0, &e) != MS_OK) {
        line(c, "note", "TEST05: no 'Test05 flag detected' warning, and no submission run (%s) to compare the seeds "
             "with (cannot tell)", ref ? ref : "no TESTxx directory");
        free(ref);
        return;
    }
    int same = 0, known = 0;
    char vals[256] = "";
    for (int i = 0; i < 3; i++) {
        uint64_t a, b;
        if (ms_mllog_get_u64(c->log, keys[i], &a) != 0 || ms_mllog_get_u64(&rl, keys[i], &b) != 0)
            continue;
        known++;
        if (a == b) {
            same++;
            size_t l = strlen(vals);
            snprintf(vals + l, sizeof vals - l, "%s%s = %llu", l ? ", " : "", keys[i], (unsigned long long)a);
        }
    }
    if (!known)
        line(c, "note", "TEST05: the seeds are not logged (cannot tell)");
    else if (same)
        line(c, "MISMATCH", "TEST05: no 'Test05 flag detected' warning and the submission run's seeds: %s (as in %s)",
             vals, ref);
    else
        line(c, "match", "TEST05: the audit.config set other seeds than the submission run's (%s; no test05 flag: "
             "the seeds themselves are overridden)", ref);
    ms_mllog_free(&rl);
    free(ref);
}

/* The scenario of the directory holding the log (results|compliance/<sys>/<model>/<scenario>/). */
static void check_directory_scenario(rctx *c, const char *detail)
{
    const char *base = NULL;
    for (const char *p = detail; *p; p++)
        if (!strncmp(p, "/results/", 9) || !strncmp(p, "/compliance/", 12) || (p == detail && (!strncmp(p, "results/", 8) || !strncmp(p, "compliance/", 11))))
            base = p;
    if (!base)
        return;
    const char *base0 = base;
    base = strchr(base + (base[0] == '/'), '/') + 1;
    const char *comp = base;
    for (int i = 0; i < 2 && comp; i++) {
        comp = strchr(comp, '/');
        if (comp)
            comp++;
    }
    if (!comp)
        return;
    const char *end = strchr(comp, '/');
    if (!end)
        return;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(end - comp), comp);
    int sc = lg_scenario_parse(name);
    if (sc < 0)
        return;
    int run = (int)c->lg.s.scenario;
    if (sc == run)
        return;
    /* the result of an edge system may be inferred from a stricter scenario's run, whose logs are
     * then copied in (submission-checker.py of v1.0 on, preprocess_submission.py
     * infer_scenario_results: SingleStream -> MultiStream / Offline, MultiStream -> Offline; the
     * compliance directories too in the closed division only) */
    int inferable = (run == LG_SINGLE_STREAM && (sc == LG_MULTI_STREAM || sc == LG_OFFLINE)) ||
                    (run == LG_MULTI_STREAM && sc == LG_OFFLINE);
    int compliance = !strncmp(base0, "/compliance/", 12) || !strncmp(base0, "compliance/", 11);
    int closed = 0;
    if (compliance && base0 > detail) {
        /* <division>/<submitter>/compliance: the division is two components up */
        const char *p = base0 - 1;
        while (p > detail && *p != '/')
            p--;
        const char *sub = p;
        if (p > detail) {
            p--;
            while (p > detail && *p != '/')
                p--;
            const char *div = *p == '/' ? p + 1 : p;
            size_t dl = (size_t)(sub - div);
            closed = (dl == 6 && !strncmp(div, "closed", 6)) || (dl == 7 && !strncmp(div, "network", 7));
        }
    }
    if (inferable && (!compliance || closed))
        line(c, "note", "scenario: a %s run in a %s directory: the result inferred from %s (allowed for edge systems)",
             lg_scenario_name((lg_scenario)run), lg_scenario_name((lg_scenario)sc), lg_scenario_name((lg_scenario)run));
    else
        line(c, "MISMATCH", "scenario: the log is a %s run in a %s %s directory (%s)", lg_scenario_name((lg_scenario)run),
             lg_scenario_name((lg_scenario)sc), compliance ? "compliance" : "results", detail);
}

static void check_audit(rctx *c, const au_replay_opts *o, const au_rules *r, const char *detail)
{
    int t = o->test ? au_test_parse(o->test) : au_test_from_path(detail);
    if (t <= 0) {
        if (c->lg.audit_warning)
            line(c, "note", "'Found Audit Config file' is logged but the run is not in a TEST01/04/05 directory: "
                 "a compliance run, or an audit.config left in the working directory of a submission run");
        else
            line(c, "match", "no audit.config was found (a submission run)");
        return;
    }
    ms_buf b = MS_BUF_INIT;
    au_rep rep = {&b, 0, 0, 0};
    uint64_t seeds[3];
    const uint64_t *sp = NULL;
    const char *round = au_rules_round_of_version(r, c->lg.version);
    if (t == AU_TEST05 && round && au_rules_test05_seeds(r, round, seeds) == 0)
        sp = seeds;
    /* without --model any TEST01 sampling target > 0: the compliance TEST01 README lets a
     * submitter lower the model's target when sampling costs too much performance, and the
     * targets changed across rounds (a 0 means no audit.config was applied) */
    au_check_applied(&rep, (au_test)t, c->log, r, o->model ? au_rules_sampling_target(r, o->model) : 0, sp, -1);
    /* one report line per check: PASS -> match, FAIL -> MISMATCH */
    for (char *s = b.data; s && *s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        if (t == AU_TEST05 && !c->lg.test05_warning && strstr(s, "Test05 flag detected"))
            test05_direct_seeds(c, detail);
        else if (!strncmp(s, "PASS  ", 6))
            line(c, "match", "%s: %s", au_test_name((au_test)t), s + 6);
        else if (!strncmp(s, "FAIL  ", 6))
            line(c, "MISMATCH", "%s: %s", au_test_name((au_test)t), s + 6);
        s = nl ? nl + 1 : s + strlen(s);
    }
    ms_buf_free(&b);
}

/* The standard library whose shuffle reproduces the first logged loaded set (the default first);
 * its loaded sets replace the plan's. When loadgen_version named no release (and no
 * --loadgen-compat), the loaded-set rule before 6.0.6 is tried as well. Nothing changes when none
 * reproduces it (the check reports it). */
static void pick_stdlib(rctx *c, int forced)
{
    const ms_mllog_rec *r = ms_mllog_find(c->log, "loaded_qsl_set");
    if (!r || c->plan[0].nseries == 0)
        return;
    uint64_t *v = NULL;
    size_t n = 0;
    if (ms_mllog_rec_u64_list(r, &v, &n) != 0)
        return;
    const lg_version_rules *rows[2] = {c->vr, NULL};
    if (!forced && !c->lg.version_known)
        rows[1] = lg_version_rules_of_compat(lg_loaded_set_compat(lg_version_rules_at(0))); /* the rule
                                                                                    before it changed */
    for (int ri = 0; ri < 2 && rows[ri]; ri++) {
        for (int lib = 0; lib < LG_STDLIB_COUNT; lib++) {
            if (ri == 0 && lib == 0) {
                const lg_plan_series *ps = &c->plan[0].series[0];
                if (ps->nloaded == n && !memcmp_u64_size(v, ps->loaded, n)) {
                    free(v);
                    return;
                }
                continue;
            }
            lg_plan p;
            ms_err e = {0};
            lg_plan_request rq = {.s = &c->lg.s, .qsl_total = c->lg.qsl_total, .qsl_perf = c->lg.qsl_perf,
                                  .rules = rows[ri], .stdlib = lib,
                                  .accuracy = c->accuracy || c->lg.s.mode == LG_SUBMISSION_RUN, .sets_only = 1,
                                  .ms_target_qps = c->lg.ms_target_qps, .ms_max_async_queries = c->lg.ms_max_async};
            if (lg_plan_test_req(&rq, &p, &e) != MS_OK)
                continue;
            int hit = p.nseries > 0 && p.series[0].nloaded == n && !memcmp_u64_size(v, p.series[0].loaded, n);
            lg_plan_free(&p);
            if (!hit)
                continue;
            const lg_version_rules *old_vr = c->vr;
            c->stdlib = lib;
            c->vr = rows[ri];
            lg_plan fresh;
            ms_err e2 = {0};
            if (make_plan(c, &c->lg.s, &fresh, &e2) == MS_OK) {
                lg_plan_free(&c->plan[0]);
                c->plan[0] = fresh;
                char rn[64];
                if (c->vr != old_vr)
                    line(c, "note", "loadgen_version names no release: the loaded set is that of the rules %s",
                         lg_loaded_set_rule_name(c->vr, rn, sizeof rn));
            } else {
                c->stdlib = 0;
                c->vr = old_vr;
            }
            free(v);
            return;
        }
    }
    free(v);
}

/* How many of the logged generation figures a plan gives. */
static int plan_agreement(const rctx *c, const lg_plan *p)
{
    static const char *const keys[5] = {"effective_min_query_count", "effective_samples_per_query",
                                        "generated_query_count", "generated_samples_per_query",
                                        "generated_query_duration"};
    if (p->nseries == 0)
        return 0;
    uint64_t want[5] = {p->ef.min_query_count, p->ef.samples_per_query, p->series[0].query_count,
                        p->series[0].samples_per_query, (uint64_t)p->series[0].duration_ns};
    int n = 0;
    for (int i = 0; i < 5; i++) {
        uint64_t v;
        if (ms_mllog_get_u64(c->log, keys[i], &v) == 0 && v == want[i])
            n++;
    }
    return n;
}

/* The releases from 2.0 to 4.0 apply sample_concatenate_permutation (mlperf.conf turns it on for
 * 3d-unet, and in 4.0 gptj and llama2-70b) without logging it: when the key is absent, the
 * replay takes the setting whose plan gives more of the logged figures. */
static void infer_concatenation(rctx *c)
{
    if (!c->vr->equal_issue || c->vr->logs_concatenation ||
        ms_mllog_find(c->log, "requested_sample_concatenate_permutation") ||
        c->lg.s.sample_concatenate_permutation)
        return;
    int off = plan_agreement(c, &c->plan[0]);
    lg_test_settings s = c->lg.s;
    s.sample_concatenate_permutation = 1;
    lg_plan p;
    ms_err e = {0};
    if (make_plan(c, &s, &p, &e) != MS_OK)
        return;
    if (plan_agreement(c, &p) > off) {
        lg_plan_free(&c->plan[0]);
        c->plan[0] = p;
        c->lg.s = s;
        line(c, "note", "sample_concatenate_permutation is not logged by this release; the logged figures are those "
             "of its equal-issue generation (on)");
    } else {
        lg_plan_free(&p);
    }
}

int au_replay(const char *detail_path, const au_replay_opts *o, const au_rules *r, ms_buf *out,
              au_replay_result *res, ms_err *e)
{
    memset(res, 0, sizeof *res);
    ms_mllog log;
    char why[2048];
    /* malformed records do not stop a replay (it needs only the settings and generation keys) */
    if (ms_mllog_load(&log, detail_path, 0, e) != MS_OK)
        return e->code;
    if (log.nrecs == 0 || !log.first_line_is_record) {
        ms_mllog_free(&log);
        return ms_err_set(e, MS_EINPUT, "%s: %s", detail_path,
                          log.len == 0 ? "the file is empty (expected :::MLLOG records)"
                                       : "the first line is not a ':::MLLOG {...}' record");
    }
    rctx c = {.out = out, .res = res, .log = &log};
    int rc = MS_OK;
    if (au_logged_settings(&log, o ? o->compat : -1, &c.lg, why, sizeof why) != 0) {
        rc = ms_err_set(e, MS_EINPUT, "%s", why);
        goto out;
    }
    c.vr = o && o->rules ? o->rules : c.lg.rules;
    c.lg.compat = lg_loaded_set_compat(c.vr);
    res->compat_used = c.lg.compat;
    lg_version_rules_name(c.vr, res->rules_used, sizeof res->rules_used);
    char upto[32] = "on", rulename[32];
    const lg_version_rules *next = lg_version_rules_next_change(c.vr);
    if (next) {
        char nb[16];
        snprintf(upto, sizeof upto, "until %s", lg_version_rules_name(next, nb, sizeof nb));
    }
    ms_buf_printf(out, "replay of %s\nLoadGen %s -> the rules of LoadGen %s %s%s (%s loaded-set rule)\n", detail_path,
                  c.lg.version[0] ? c.lg.version : "(no loadgen_version)", res->rules_used, upto,
                  o && o->rules ? " (--loadgen-compat)" : c.lg.version_known ? "" : " (version not recognised: the newest)",
                  lg_loaded_set_rule_name(c.vr, rulename, sizeof rulename));
    if (c.vr->ms_from_target_qps && c.lg.s.scenario == LG_MULTI_STREAM && c.lg.have_ms_legacy != 3)
        line(&c, "note", "requested_multi_stream_target_qps / requested_multi_stream_max_async_queries absent: the "
             "MultiStream schedule of this release cannot be rebuilt (cannot tell)");
    if (log.nbad)
        line(&c, "note", "%zu malformed record%s skipped (first: line %zu, %s); the MLCommons log parser rejects "
             "this log", log.nbad, log.nbad == 1 ? "" : "s", log.first_bad_line, log.first_bad_msg);
    if (c.lg.missing[0])
        line(&c, "note", "requested keys absent or unusable (defaults assumed): %s", c.lg.missing);
    c.accuracy = c.lg.s.mode == LG_ACCURACY_ONLY;
    if (make_plan(&c, &c.lg.s, &c.plan[0], e) != MS_OK) {
        rc = ms_err_prefix(e, "%s: cannot plan the run", detail_path);
        goto out;
    }
    c.nplans = 1;
    infer_concatenation(&c);
    pick_stdlib(&c, o && o->rules);
    check_directory_scenario(&c, detail_path);
    check_effective(&c);
    check_series(&c);
    check_sampling(&c, detail_path, o ? o->accuracy_log : NULL);
    check_audit(&c, o ? o : &(au_replay_opts){.compat = -1}, r, detail_path);
    res->verdict = res->mismatches ? AU_REPLAY_MISMATCH : res->core_matched ? AU_REPLAY_MATCH : AU_REPLAY_CANNOT_TELL;
    ms_buf_printf(out, "replay: %zu checked, %zu mismatch%s, %zu note%s\n", res->checked, res->mismatches,
                  res->mismatches == 1 ? "" : "es", res->notes, res->notes == 1 ? "" : "s");
out:
    for (int i = 0; i < c.nplans; i++)
        lg_plan_free(&c.plan[i]);
    ms_mllog_free(&log);
    return rc;
}
