/* audit replay: what an unmodified LoadGen would have done with the settings a detail log says
 * were requested (lg_plan_test), compared with what the log says happened. A review-committee
 * tool: edited seeds or loaded sets, a modified LoadGen, or an audit.config that was not
 * applied (README, Audits: the STRICT evidence) show up as mismatches naming the key and both
 * values.
 *
 * The requested doubles (expected latency, target QPS) are logged with 6 significant digits;
 * where a derived count depends on one of them, the values at both ends of its rounding
 * interval are also planned, and a logged count between them is a match. */
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
} rctx;

static void line(rctx *c, const char *tag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(rctx *c, const char *tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ms_buf_printf(c->out, "%-9s ", tag);
    ms_buf_vprintf(c->out, fmt, ap);
    ms_buf_putc(c->out, '\n');
    va_end(ap);
    if (!strcmp(tag, "match"))
        c->res->checked++;
    else if (!strcmp(tag, "MISMATCH"))
        c->res->checked++, c->res->mismatches++;
    else
        c->res->notes++;
}

/* The requested double a scenario's counts depend on, and its field. */
static double *rounded_input(lg_test_settings *s, const char **key)
{
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
static int make_plan(rctx *c, const lg_test_settings *s, lg_plan *p, ms_err *e)
{
    lg_compat cp = (lg_compat)c->lg.compat;
    if (s->mode != LG_SUBMISSION_RUN)
        return lg_plan_test(s, c->lg.qsl_total, c->lg.qsl_perf, cp, c->accuracy, p, e);
    lg_plan acc;
    int rc = lg_plan_test(s, c->lg.qsl_total, c->lg.qsl_perf, cp, 1, &acc, e);
    if (rc != MS_OK)
        return rc;
    rc = lg_plan_test(s, c->lg.qsl_total, c->lg.qsl_perf, cp, 0, p, e);
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

/* Plans the two ends of the rounding interval of the scenario's logged double (once). */
static void plan_bounds(rctx *c)
{
    if (c->nplans != 1)
        return;
    lg_test_settings s = c->lg.s;
    const char *key;
    double *x = rounded_input(&s, &key);
    if (!x || !(*x > 0))
        return;
    double h = 0.5 * pow(10, floor(log10(*x)) - 5);
    double v = *x;
    ms_err e = {0};
    *x = v - h;
    if (make_plan(c, &s, &c->plan[1], &e) != MS_OK)
        return;
    *x = v + h;
    if (make_plan(c, &s, &c->plan[2], &e) != MS_OK) {
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
    cmp_double(c, "effective_target_latency_percentile", ef->target_latency_percentile);
    cmp_double(c, "effective_accuracy_log_probability", ef->accuracy_log_probability);
    for (size_t i = 0; i < sizeof ef_keys / sizeof ef_keys[0]; i++) {
        const ms_mllog_rec *r = ms_mllog_find(c->log, ef_keys[i].key);
        if (!r) {
            if (strcmp(ef_keys[i].key, "effective_accuracy_sample_count") != 0 || c->lg.compat == LG_COMPAT_6_0)
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

static uint64_t g_qcount(const lg_plan *p, size_t i) { return i < p->nseries ? p->series[i].query_count : 0; }
static uint64_t g_spq(const lg_plan *p, size_t i) { return i < p->nseries ? p->series[i].samples_per_query : 0; }
static uint64_t g_dur(const lg_plan *p, size_t i) { return i < p->nseries ? (uint64_t)p->series[i].duration_ns : 0; }

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
    const char *rule = c->lg.compat == LG_COMPAT_5_1 ? "<= 6.0.5" : "6.0.6+";
    if (k == n && n == ps->nloaded)
        line(c, "match", "loaded_qsl_set%s (%zu indices, qsl_rng_seed %llu, LoadGen %s loaded-set rule)", label, n,
             (unsigned long long)c->plan[0].ef.qsl_rng_seed, rule);
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

static void check_series(rctx *c)
{
    size_t nl = 0, ng = 0;
    static const char *const gk[3] = {"generated_query_count", "generated_samples_per_query", "generated_query_duration"};
    uint64_t (*const gf[3])(const lg_plan *, size_t) = {g_qcount, g_spq, g_dur};
    size_t gi[3] = {0, 0, 0};
    for (size_t i = 0; i < c->log->nrecs; i++) {
        const ms_mllog_rec *r = &c->log->recs[i];
        if (!strcmp(r->key, "loaded_qsl_set")) {
            if (nl < c->plan[0].nseries)
                check_loaded(c, r, nl);
            else if (nl == c->plan[0].nseries)
                line(c, "note", "loaded_qsl_set (line %zu): more loaded sets than an unmodified LoadGen loads "
                     "(%zu)%s", r->line_no, c->plan[0].nseries,
                     c->lg.s.mode == LG_FIND_PEAK_PERFORMANCE ? " (FindPeakPerformance trials are not replayed)" : "");
            nl++;
            continue;
        }
        for (int k = 0; k < 3; k++) {
            if (strcmp(r->key, gk[k]) != 0)
                continue;
            size_t si = gi[k]++;
            if (si >= c->plan[0].nseries)
                break;
            uint64_t v;
            char key[96];
            snprintf(key, sizeof key, "%s%s", gk[k], c->plan[0].nseries > 1 ? " (series)" : "");
            if (ms_mllog_rec_u64(r, &v) != 0)
                line(c, "MISMATCH", "%s (line %zu): not an unsigned integer", gk[k], r->line_no);
            else
                cmp_u64(c, key, v, gf[k], si);
            ng++;
        }
    }
    if (nl == 0)
        line(c, "note", "no loaded_qsl_set entry: the loaded set cannot be checked");
    else if (nl < c->plan[0].nseries)
        line(c, "MISMATCH", "loaded_qsl_set: the log has %zu loaded sets, an unmodified LoadGen %zu", nl,
             c->plan[0].nseries);
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

/* ---- audit evidence (README, Audits: STRICT) ---- */

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
    char mb[128];
    const char *model = o->model ? o->model : au_model_from_path(r, detail, mb, sizeof mb);
    ms_buf b = MS_BUF_INIT;
    au_rep rep = {&b, 0, 0, 0};
    uint64_t seeds[3];
    const uint64_t *sp = NULL;
    const char *round = au_rules_round_of_version(r, c->lg.version);
    if (t == AU_TEST05 && round && au_rules_test05_seeds(r, round, seeds) == 0)
        sp = seeds;
    au_check_applied(&rep, (au_test)t, c->log, r, au_rules_sampling_target(r, model), sp, -1);
    /* one report line per check: PASS -> match, FAIL -> MISMATCH */
    for (char *s = b.data; s && *s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        if (!strncmp(s, "PASS  ", 6))
            line(c, "match", "%s: %s", au_test_name((au_test)t), s + 6);
        else if (!strncmp(s, "FAIL  ", 6))
            line(c, "MISMATCH", "%s: %s", au_test_name((au_test)t), s + 6);
        s = nl ? nl + 1 : s + strlen(s);
    }
    ms_buf_free(&b);
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
    res->compat_used = c.lg.compat;
    ms_buf_printf(out, "replay of %s\nLoadGen %s -> %s rules (%s loaded-set rule)\n", detail_path,
                  c.lg.version[0] ? c.lg.version : "(no loadgen_version)",
                  c.lg.compat == LG_COMPAT_5_1 ? "5.1" : "6.0",
                  c.lg.compat == LG_COMPAT_5_1 ? "<= 6.0.5" : "6.0.6+");
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
    check_effective(&c);
    check_series(&c);
    check_sampling(&c, detail_path, o ? o->accuracy_log : NULL);
    check_audit(&c, o ? o : &(au_replay_opts){.compat = -1}, r, detail_path);
    ms_buf_printf(out, "replay: %zu checked, %zu mismatch%s, %zu note%s\n", res->checked, res->mismatches,
                  res->mismatches == 1 ? "" : "es", res->notes, res->notes == 1 ? "" : "s");
out:
    for (int i = 0; i < c.nplans; i++)
        lg_plan_free(&c.plan[i]);
    ms_mllog_free(&log);
    return rc;
}
