/* Per-scenario checks (one task per results/<sys>/<model>/<scenario> directory): measurements
 * (E), accuracy (A), performance and inference (P, I), power (W) and compliance (C), in both
 * behaviour profiles. A task only reads files below its own scenario (and the submitter's
 * code/measurements/compliance directories) and writes only its ck_scen, so tasks run in
 * parallel. Every failure is a finding; a check group is valid when none of its findings
 * counts against the verdict (errors, and warnings under --strict, unless waived). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checker/internal.h"
#include "common/pyfmt.h"

#define TEXT_MAX (64u * 1024 * 1024)

typedef struct sctx {
    ck_state *run;
    ck_scen *s;
    ck_where w;
    const ck_rules *r;
    int unified;
    int raises; /* a check met input on which the MLCommons checker raises (no verdict) */
} sctx;

static int counting(const ck_state *run, const ck_finding *f)
{
    if (f->waived)
        return 0;
    return f->sev == CK_SEV_ERROR || (f->sev == CK_SEV_WARNING && run->o->strict);
}

/* 1 if a finding from index `from` on counts against the verdict */
static int any_counting(const ck_state *run, const ck_flist *l, size_t from)
{
    for (size_t i = from; i < l->n; i++)
        if (counting(run, &l->v[i]))
            return 1;
    return 0;
}

#define FIND(c, id, sev, file, line, exp, found, ...)                                         \
    ck_report_finding((c)->run, &(c)->s->f, &(c)->w, id, sev, file, line, NULL, exp, found,  \
                      __VA_ARGS__)

static char *absof(const sctx *c, const char *rel)
{
    return ck_join(c->run->root, rel);
}

/* Python "%f" */
static void pct_f(char *buf, size_t n, double d)
{
    snprintf(buf, n, "%f", d);
}

/* -------------------------------------------------------------- text files ---- */

typedef struct textfile {
    char *text;
    size_t len;
    int ok;        /* read and valid UTF-8 (or, read with lenient_utf8, read) */
    int missing;
    int bad_utf8;  /* lenient_utf8: not valid UTF-8 as a whole, bad_off the first invalid byte */
    size_t bad_off;
} textfile;

/* Reads a text file; reports R1/ L-style problems under `id` when report is set. */
static void read_textfile_ex(sctx *c, const char *rel, const char *id, int report,
                             int lenient_utf8, textfile *t)
{
    memset(t, 0, sizeof *t);
    char *abs = absof(c, rel);
    if (!abs) {
        c->run->oom = 1;
        return;
    }
    ms_err e;
    if (!ck_isfile(abs)) {
        t->missing = 1;
        free(abs);
        return;
    }
    if (ck_read_text(abs, TEXT_MAX, &t->text, &t->len, &e)) {
        if (report)
            FIND(c, id, CK_SEV_ERROR, rel, 0, NULL, NULL, "cannot read the file: %s", e.msg);
        free(abs);
        return;
    }
    free(abs);
    size_t off;
    if (!ms_utf8_valid(t->text, t->len, &off)) {
        if (lenient_utf8) { /* the caller decides how far Python's reading gets */
            t->bad_utf8 = 1;
            t->bad_off = off;
            t->ok = 1;
            return;
        }
        if (report)
            FIND(c, id, CK_SEV_ERROR, rel, 0, "UTF-8 text", "an invalid byte",
                 "the file is not valid UTF-8 (byte offset %zu); the MLCommons checker cannot "
                 "decode it", off);
        return;
    }
    t->ok = 1;
}

static void read_textfile(sctx *c, const char *rel, const char *id, int report, textfile *t)
{
    read_textfile_ex(c, rel, id, report, 0, t);
}

/* 1 if some line of the text contains s (stripped = 0), or equals s after Python's strip()
 * (stripped = 1) */
static int text_has_line(const textfile *t, const char *s, int stripped)
{
    ms_lines it;
    ms_lines_init(&it, t->text, t->len);
    const char *line;
    size_t len;
    int nl;
    size_t slen = strlen(s);
    while (ms_lines_next(&it, &line, &len, &nl)) {
        if (stripped) {
            size_t n = len;
            const char *p = ms_py_strip(line, &n);
            if (n == slen && !memcmp(p, s, n))
                return 1;
        } else if (len >= slen && memmem(line, len, s, slen)) {
            return 1;
        }
    }
    return 0;
}

static int text_has_substring_line(const textfile *t, const char *needle)
{
    return text_has_line(t, needle, 0);
}

static int text_has_stripped_line(const textfile *t, const char *s)
{
    return text_has_line(t, s, 1);
}

/* ---------------------------------------------------------------- detail logs ---- */

/* Loads a detail log and reports L1 problems. Returns 1 if usable. */
static int load_dlog(sctx *c, const char *rel, const char *id, ck_dlog *d)
{
    char *abs = absof(c, rel);
    if (!abs) {
        c->run->oom = 1;
        return 0;
    }
    ms_err e;
    int rc = ck_dlog_load(d, abs, &e);
    if (!rc && !d->n && !d->nbad && !d->first_line_is_record)
        rc = ck_dlog_text_errors(d, abs, &e);  /* LoadGen 0.5/0.7 text log (textlog.h) */
    free(abs);
    if (rc) {
        FIND(c, id, CK_SEV_ERROR, rel, 0, NULL, NULL, "%s", e.msg);
        return 0;
    }
    if (d->nbad) {
        FIND(c, "L1", CK_SEV_ERROR, rel, (long)d->first_bad_line, "valid JSON after :::MLLOG",
             d->bad_msg, "malformed :::MLLOG record (%s); %zu such line(s) make the whole log "
             "unparsable", d->bad_msg, d->nbad);
        return 0;
    }
    if (d->bad_utf8) {
        FIND(c, "L1", CK_SEV_ERROR, rel, (long)d->bad_utf8_line, "UTF-8 text", "an invalid byte",
             "the detail log is not valid UTF-8");
        return 0;
    }
    if (c->unified && !d->first_line_is_record) {
        FIND(c, "L1", CK_SEV_ERROR, rel, 1, ":::MLLOG record", "another line",
             "the first line must be a :::MLLOG record (the unified checker rejects the log)");
        return 0;
    }
    return 1;
}

/* "uncommitted changes" (and, for the unified checker, "Multiple conf files") tolerance */
static int error_tolerated(const sctx *c, const char *text, int compliance)
{
    if (!c->run->o->submission_exceptions)
        return 0;
    if (strstr(text, "Loadgen built with uncommitted changes!"))
        return 1;
    if (c->unified && strstr(text, "Multiple conf files are used"))
        return compliance;
    return 0;
}

/* Error entries of a detail log (A6 / P5). Returns 1 if an error counts. */
static void check_log_errors(sctx *c, const ck_dlog *d, const char *rel, const char *id,
                             int compliance, const char *tag)
{
    size_t nerr = d->n_error_recs;
    int64_t numerr;
    /* the legacy log parser's has_error() is num_errors != 0: a negative count is an error too */
    if (!c->unified && ck_dlog_i64(d, "num_errors", &numerr) == 0)
        nerr = numerr > 0 ? (size_t)numerr : numerr < 0 ? 1 : 0;
    if (!nerr)
        return;
    int fatal = 0;
    for (size_t i = 0; i < d->nerror_texts; i++)
        if (!error_tolerated(c, d->errors[i], compliance))
            fatal = 1;
    if (d->n_error_recs > d->nerror_texts)
        fatal = 1;  /* texts not kept: assume not tolerated */
    if (d->n_error_recs == 0 && nerr)
        fatal = !c->run->o->submission_exceptions;
    ck_sev sev = CK_SEV_ERROR;
    if (c->unified && !c->run->o->submission_exceptions)
        sev = CK_SEV_WARNING;  /* unified quirk: not fatal without --submission-exceptions */
    if (!fatal && sev == CK_SEV_ERROR)
        sev = CK_SEV_INFO;
    ms_buf b = MS_BUF_INIT;
    for (size_t i = 0; i < d->nerror_texts && i < 5; i++)
        if ((i && ms_buf_puts(&b, " | ")) || ms_buf_puts(&b, d->errors[i]))
            break;
    FIND(c, id, sev, rel, 0, "no LoadGen errors", b.data ? b.data : "",
         "%s%scontains %zu LoadGen error(s): %s%s", tag ? tag : "", tag ? ": " : "", nerr,
         b.data ? b.data : "", sev == CK_SEV_INFO ? " (tolerated by --submission-exceptions)"
                             : sev == CK_SEV_WARNING ? " (not fatal for the unified checker "
                                                   "without --submission-exceptions)" : "");
    ms_buf_free(&b);
}

/* -------------------------------------------------------------- performance ---- */

typedef struct pctx {
    sctx *c;
    const char *tag;       /* NULL main run; "TEST01"... compliance (C3); "ranging" (W3) */
    const char *fixed;     /* F: canonical scenario of the directory */
    const char *file;      /* detail log, relative */
    int compliance;
} pctx;

static int pf(pctx *p, const char *pid, ck_sev sev, long line, const char *exp,
              const char *found, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int pf(pctx *p, const char *pid, ck_sev sev, long line, const char *exp,
              const char *found, const char *fmt, ...)
{
    if (ck_skipped(p->c->run, pid))
        return 0;
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    const char *id = pid;
    char prefix[64] = "";
    if (p->tag && !strcmp(p->tag, "ranging")) {
        id = "W3";
        snprintf(prefix, sizeof prefix, "ranging run (%s): ", pid);
    } else if (p->tag) {
        id = "C3";
        snprintf(prefix, sizeof prefix, "%s performance run (%s): ", p->tag, pid);
    }
    int rc = ck_report_finding(p->c->run, &p->c->s->f, &p->c->w, id, sev, p->file, line, NULL,
                               exp, found, "%s%s", prefix, msg ? msg : "");
    free(msg);
    return rc;
}

/* The severity of a performance check the round's checker may only log: a warning when the
 * rules list its id in performance_findings_logged_only (check_performance_dir of tag v3.0
 * logs wrong seeds, a missed latency bound, too few queries, samples per query or too short a
 * run without making the run invalid), else an error. */
static ck_sev logged_only_sev(const pctx *p, const char *pid)
{
    const json_t *l = ck_rget(p->c->r, "performance_findings_logged_only");
    for (size_t i = 0; !p->c->unified && i < json_array_size(l); i++)
        if (!strcmp(json_string_value(json_array_get(l, i)) ?: "", pid))
            return CK_SEV_WARNING;
    return CK_SEV_ERROR;
}

static long kline(const ck_dlog *d, const char *key)
{
    const ck_dval *v = ck_dlog_get(d, key);
    return v ? (long)v->line : 0;
}

static int need_num(pctx *p, const ck_dlog *d, const char *pid, const char *key, double *out)
{
    if (ck_dlog_num(d, key, out) == 0)
        return 1;
    char *t = ck_dlog_text(d, key);
    pf(p, pid, CK_SEV_ERROR, kline(d, key), "a number", t ? t : "None",
       "%s is missing or not a number (the MLCommons checker raises an exception)", key);
    free(t);
    return 0;
}

static const char *canon_or_raw(const ck_rules *r, const char *s)
{
    const char *c = s ? ru_scenario_canon(r->j, s) : NULL;
    return c ? c : s;
}

/* Checks one LoadGen performance run (P2-P16 and inference). Fills the value. Returns 1 if
 * the log could be evaluated (validity is in the findings). */
static int check_perf_log(pctx *p, const ck_dlog *d, ck_value *val, int *inferred,
                          char **eff_out)
{
    sctx *c = p->c;
    const ck_rules *r = c->r;
    const ck_scen *s = c->s;
    const char *model = s->mlperf_model;
    const json_t *smoke = r->smoke;
    char e1[64], e2[64];

    /* P2 */
    char *validity = ck_dlog_str(d, "result_validity");
    int valid_ok = validity && !strcmp(validity, "VALID");
    if (!valid_ok && smoke && json_is_true(json_object_get(smoke, "accept_invalid_if_perf_constraints_met")) &&
        ck_dlog_truthy(d, "result_perf_constraints_met"))
        valid_ok = 1;
    if (!valid_ok)
        pf(p, "P2", c->unified ? CK_SEV_WARNING : CK_SEV_ERROR, kline(d, "result_validity"), "VALID",
           validity ? validity : "None", "result_validity is %s%s", validity ? validity : "missing",
           c->unified ? " (the unified checker does not check it)" : "");
    free(validity);

    char *S = ck_dlog_str(d, "effective_scenario");
    if (!S) {
        pf(p, "P8", CK_SEV_ERROR, 0, "a scenario", "None",
           "effective_scenario is missing (the MLCommons checker raises an exception)");
        return 0;
    }
    const char *Sc = canon_or_raw(r, S);
    if (eff_out)
        *eff_out = strdup(S);

    /* P8: result value */
    const char *field = json_string_value(ck_rget3(r, "result_field_overrides", model, S));
    if (!field)
        field = json_string_value(ck_rget2(r, "result_field", S));
    double res = NAN;
    int have_res = 0;
    if (!field) {
        pf(p, "P8", CK_SEV_ERROR, kline(d, "effective_scenario"), "a known scenario", S,
           "no result field for scenario %s in %s rules", S, r->version);
    } else if (need_num(p, d, "P8", field, &res)) {
        have_res = 1;
    }
    const json_t *to_ms = ck_rget(r, "result_ns_to_ms_scenarios");
    if (have_res && (to_ms ? ck_jlist_has(to_ms, S)
                           : (!strcmp(S, "SingleStream") || !strcmp(S, "MultiStream")))) {
        res /= 1000000.0;
        double div = json_number_value(ck_rget2(r, "result_extra_divisor", model));
        if (div > 0)
            res /= div;
    }
    if (have_res) {
        val->set = 1;
        val->d = res;
        ms_py_float_repr(res, val->text);
    }

    /* P3: LLM token latencies */
    if (ck_rlist_has(r, "llm_models", model)) {
        if (!ck_dlog_truthy(d, "requested_use_token_latencies")) {
            pf(p, "P3", CK_SEV_ERROR, kline(d, "requested_use_token_latencies"), "true",
               "false", "use_token_latencies flag needs to be enabled for LLM benchmarks");
        } else {
            const char *lim_scen = c->unified ? S : p->fixed;
            if (lim_scen && (!strcmp(lim_scen, "Server") || !strcmp(lim_scen, "Interactive"))) {
                const json_t *lim = ck_rget3(r, "llm_token_latency_limits_ns", model, lim_scen);
                double ttft, tpot;
                if (!lim) {
                    pf(p, "P3", CK_SEV_ERROR, 0, "a TTFT/TPOT limit", "none",
                       "no TTFT/TPOT limits for %s %s in %s (the MLCommons checker fails it)",
                       model, lim_scen, r->version);
                } else if (need_num(p, d, "P3", "result_first_token_99.00_percentile_latency_ns", &ttft) &&
                           need_num(p, d, "P3", "result_time_per_output_token_99.00_percentile_ns", &tpot)) {
                    double lt = json_number_value(json_object_get(lim, "ttft"));
                    double lp = json_number_value(json_object_get(lim, "tpot"));
                    if (!(ttft < lt && tpot < lp)) {
                        snprintf(e1, sizeof e1, "TTFT < %.0f, TPOT < %.0f", lt, lp);
                        snprintf(e2, sizeof e2, "TTFT %.0f, TPOT %.0f", ttft, tpot);
                        pf(p, "P3", CK_SEV_ERROR, kline(d, "result_first_token_99.00_percentile_latency_ns"),
                           e1, e2, "Failed extra check for TTFT and TPOT (%s limits of %s): "
                           "obtained TTFT 99-tile %.4f, TPOT 99-tile %.4f",
                           lim_scen, model, ttft, tpot);
                    }
                }
            }
        }
    }

    /* P4: equal-issue mode (rules list; empty in the unified rounds) */
    if (ck_rlist_has(r, "equal_issue_required_models", model) &&
        !ck_dlog_truthy(d, "effective_sample_concatenate_permutation"))
        pf(p, "P4", CK_SEV_ERROR, kline(d, "effective_sample_concatenate_permutation"), "true",
           "false", "%s requires equal issue mode (sample_concatenate_permutation)", model);

    /* P5 */
    {
        size_t before = c->s->f.n;
        check_log_errors(c, d, p->file, "P5", p->compliance, p->tag);
        if (p->tag && c->s->f.n > before) {
            /* compliance / ranging runs report under their own IDs */
            ck_finding *f = &c->s->f.v[c->s->f.n - 1];
            f->id = !strcmp(p->tag, "ranging") ? "W3" : "C3";
        }
    }

    /* P6 */
    const json_t *psc = ck_rget2(r, "performance_sample_count", model);
    double pscv;
    if (!psc) {
        pf(p, "P6", CK_SEV_ERROR, 0, "a known model", model,
           "model %s has no performance_sample_count in %s rules", model, r->version);
    } else if (need_num(p, d, "P6", "effective_performance_sample_count", &pscv) &&
               pscv < json_number_value(psc)) {
        snprintf(e1, sizeof e1, ">= %.0f", json_number_value(psc));
        snprintf(e2, sizeof e2, "%.0f", pscv);
        pf(p, "P6", CK_SEV_ERROR, kline(d, "effective_performance_sample_count"), e1, e2,
           "performance_sample_count, found %.0f, needs to be >= %.0f", pscv,
           json_number_value(psc));
    }

    /* P7: seeds as exact unsigned 64-bit integers */
    static const char *const seed_keys[3] = {"effective_qsl_rng_seed",
                                             "effective_sample_index_rng_seed",
                                             "effective_schedule_rng_seed"};
    static const char *const seed_names[3] = {"qsl_rng_seed", "sample_index_rng_seed",
                                              "schedule_rng_seed"};
    const uint64_t *seeds = p->tag && strstr(p->tag, "TEST05") && r->sw.has_test05_seeds
                                ? r->sw.test05_seeds : r->seeds;
    for (int i = 0; i < 3; i++) {
        uint64_t v;
        snprintf(e1, sizeof e1, "%llu", (unsigned long long)seeds[i]);
        if (ck_dlog_u64(d, seed_keys[i], &v) != 0) {
            char *t = ck_dlog_text(d, seed_keys[i]);
            pf(p, "P7", t ? logged_only_sev(p, "P7") : CK_SEV_ERROR, kline(d, seed_keys[i]), e1,
               t ? t : "None",
               "%s is wrong, expected=%s, found=%s", seed_names[i], e1, t ? t : "None");
            free(t);
        } else if (v != seeds[i]) {
            snprintf(e2, sizeof e2, "%llu", (unsigned long long)v);
            pf(p, "P7", logged_only_sev(p, "P7"), kline(d, seed_keys[i]), e1, e2,
               "%s is wrong, expected=%s, found=%s", seed_names[i], e1, e2);
        }
    }

    /* P9 / P10 / P11 */
    int early = r->sw.early_stopping &&
                (!strcmp(S, "SingleStream") || !strcmp(S, "MultiStream") || !strcmp(S, "Server"));
    int ignore_es = smoke && json_is_true(json_object_get(smoke, "ignore_early_stopping"));
    if (early) {
        int met = ck_dlog_truthy(d, "early_stopping_met");
        if (!met && !ignore_es) {
            char *msg = ck_dlog_text(d, "early_stopping_result");
            pf(p, "P9", c->unified ? CK_SEV_ERROR : CK_SEV_WARNING, kline(d, "early_stopping_met"),
               "true", "false", "Early stopping condition was not met, msg=%s%s",
               msg ? msg : "None", c->unified ? "" : " (the legacy checker only logs this)");
            free(msg);
        }
        const json_t *lc = ck_rget3(r, "latency_constraint_ns", model, S);
        double tl;
        if ((met || !c->unified) && json_is_number(lc) && json_number_value(lc) != 0 &&
            need_num(p, d, "P10", "effective_target_latency_ns", &tl) &&
            tl > json_number_value(lc)) {
            snprintf(e1, sizeof e1, "<= %.0f", json_number_value(lc));
            snprintf(e2, sizeof e2, "%.0f", tl);
            pf(p, "P10", logged_only_sev(p, "P10"), kline(d, "effective_target_latency_ns"), e1, e2,
               "Latency constraint with early stopping not met, expected=%.0f, found=%.0f",
               json_number_value(lc), tl);
        }
    } else {
        const json_t *lc = ck_rget3(r, "latency_constraint_ns", model, c->unified ? p->fixed : S);
        double l99;
        if (json_is_number(lc) && json_number_value(lc) != 0 &&
            need_num(p, d, "P11", "result_99.00_percentile_latency_ns", &l99) &&
            l99 > json_number_value(lc)) {
            snprintf(e1, sizeof e1, "<= %.0f", json_number_value(lc));
            snprintf(e2, sizeof e2, "%.0f", l99);
            pf(p, "P11", c->unified ? CK_SEV_ERROR : CK_SEV_WARNING,
               kline(d, "result_99.00_percentile_latency_ns"), e1, e2,
               "Latency constraint not met, expected=%.0f, found=%.0f", json_number_value(lc), l99);
        }
        /* P12 */
        const json_t *mq = ck_rget2(r, "min_queries", model);
        double mqc;
        if (!mq) {
            pf(p, "P12", CK_SEV_ERROR, 0, "a known model", model,
               "model %s has no min_queries entry in %s rules (the MLCommons checker raises)",
               model, r->version);
        } else {
            const json_t *req = json_object_get(mq, S);
            double need = json_number_value(req);
            if (smoke && json_is_number(json_object_get(smoke, "min_query_count")) &&
                need > json_number_value(json_object_get(smoke, "min_query_count")))
                need = json_number_value(json_object_get(smoke, "min_query_count"));
            if (req && need && need_num(p, d, "P12", "effective_min_query_count", &mqc) &&
                mqc < need) {
                snprintf(e1, sizeof e1, ">= %.0f", need);
                snprintf(e2, sizeof e2, "%.0f", mqc);
                pf(p, "P12", logged_only_sev(p, "P12"), kline(d, "effective_min_query_count"), e1, e2,
                   "Required minimum Query Count not met by user config, Expected=%.0f, Found=%.0f",
                   need, mqc);
            }
        }
    }
    /* P13 */
    if (!strcmp(S, "Offline") || (c->unified && !strcasecmp(S, "offline"))) {
        const json_t *spq = ck_rget2(r, "offline_min_samples_per_query", model);
        double v;
        if (!spq) {
            pf(p, "P13", CK_SEV_ERROR, 0, "a known model", model,
               "model %s has no Offline minimum samples per query in %s rules (the MLCommons "
               "checker raises)", model, r->version);
        } else if ((!c->unified || !strcmp(s->division, "closed")) &&
                   need_num(p, d, "P13", "effective_samples_per_query", &v) &&
                   v < json_number_value(spq)) {
            snprintf(e1, sizeof e1, ">= %.0f", json_number_value(spq));
            snprintf(e2, sizeof e2, "%.0f", v);
            pf(p, "P13", logged_only_sev(p, "P13"), kline(d, "effective_samples_per_query"), e1, e2,
               "Required minimum samples per query not met by user config, Expected=%.0f, Found=%.0f",
               json_number_value(spq), v);
        }
    }
    /* P14 */
    if (!ck_rlist_has(r, "min_duration_exempt_models", model)) {
        double need = json_number_value(ck_rget(r, "min_test_duration_ms"));
        if (smoke && json_is_number(json_object_get(smoke, "min_duration_ms")))
            need = json_number_value(json_object_get(smoke, "min_duration_ms"));
        double v;
        if (need_num(p, d, "P14", "effective_min_duration_ms", &v) && v < need) {
            snprintf(e1, sizeof e1, ">= %.0f", need);
            snprintf(e2, sizeof e2, "%.0f", v);
            pf(p, "P14", logged_only_sev(p, "P14"), kline(d, "effective_min_duration_ms"), e1, e2,
               "Test duration less than 600s in user config. expected=%.0f, found=%.0f", need, v);
        }
    }
    /* P15 */
    if (s->sys) {
        int net = s->sys->is_network;
        int want = !strcmp(s->division, "network") ? 1 : !strcmp(s->division, "closed") ? 0 : -1;
        if (want >= 0 && want != net)
            pf(p, "P15", CK_SEV_ERROR, 0, want ? "a network system" : "a non-network system",
               net ? "network" : "not network", "incorrect network mode (=%s) for division '%s'",
               net ? "True" : "False", s->division);
        if (net) {
            char *sut = ck_dlog_str(d, "sut_name");
            const char *sub = json_string_value(ck_rget(r, "network_sut_name_substring"));
            if (!sut || !sub || !strstr(sut, sub))
                pf(p, "P15", CK_SEV_ERROR, kline(d, "sut_name"), sub ? sub : "Network SUT",
                   sut ? sut : "None",
                   "invalid sut name for network mode. expecting the substring '%s' got '%s'",
                   sub ? sub : "", sut ? sut : "None");
            free(sut);
        }
    }
    /* P17 (stricter): test mode */
    {
        char *mode = ck_dlog_str(d, "effective_test_mode");
        if (mode && strcmp(mode, "PerformanceOnly") && !p->tag)
            pf(p, "P17", CK_SEV_WARNING, kline(d, "effective_test_mode"), "PerformanceOnly", mode,
               "the performance run was made in %s mode", mode);
        free(mode);
    }

    /* P16 / I: inference */
    const char *F = p->fixed;
    *inferred = 0;
    int differs = c->unified ? (F && strcasecmp(S, F) != 0) : (F && strcmp(Sc ? Sc : S, F) != 0);
    if (F && differs && !(c->unified && !strcasecmp(S, "Server") && !strcasecmp(F, "Interactive"))) {
        const char *Fc = canon_or_raw(r, F);
        const char *Scn = Sc ? Sc : S;
        int pair_ss_ms = !strcmp(Fc, "MultiStream") && !strcmp(Scn, "SingleStream");
        int pair_ms_off = !strcmp(Fc, "Offline") && !strcmp(Scn, "MultiStream");
        int pair_ss_off = !strcmp(Fc, "Offline") && !strcmp(Scn, "SingleStream");
        int allowed = pair_ss_ms || pair_ms_off || pair_ss_off;
        if (c->unified) {
            const char *st = s->sys ? s->sys->category : NULL;
            if (!st || !strstr(st, "edge")) {
                pf(p, "P16", CK_SEV_ERROR, kline(d, "effective_scenario"), "an edge system",
                   st ? st : "None", "Result can not be inferred for %s suite. Scenario: %s, "
                   "Scenario fixed: %s", st ? st : "None", S, F);
                allowed = 0;
            } else if (!allowed) {
                pf(p, "P16", CK_SEV_ERROR, kline(d, "effective_scenario"), "an allowed inference",
                   S, "Result for scenario %s can not be inferred from %s", F, S);
            }
        }
        if (c->unified && !allowed) {
            /* the unified checker rejects the result before computing a value */
        } else if (pair_ss_off) {
            *inferred = 1;
            const ck_dval *q = ck_dlog_get(d, "result_qps_without_loadgen_overhead");
            double v;
            if (!q || !q->raw || ck_dlog_num(d, "result_qps_without_loadgen_overhead", &v)) {
                pf(p, "I1", CK_SEV_ERROR, 0, "a number", "None",
                   "result_qps_without_loadgen_overhead is missing (Offline inferred from "
                   "SingleStream)");
                val->set = 0;
            } else {
                val->set = 1;
                val->d = v;
                ms_buf b = MS_BUF_INIT;
                if (ms_py_str_lexeme(&b, q->kind, q->raw, q->raw_len) == 0 && b.data)
                    snprintf(val->text, sizeof val->text, "%s", b.data);
                ms_buf_free(&b);
            }
        } else if (pair_ms_off) {
            *inferred = 1;
            double spq, lat;
            if (need_num(p, d, "I2", "effective_samples_per_query", &spq) &&
                need_num(p, d, "I2", "result_mean_query_latency_ns", &lat)) {
                val->set = 1;
                val->d = (spq * 1000) / (lat / 1000000.0);
                ms_py_float_repr(val->d, val->text);
            } else {
                val->set = 0;
            }
        } else if (pair_ss_ms) {
            *inferred = 1;
            double es;
            if (need_num(p, d, "I3", "early_stopping_latency_ms", &es)) {
                if (es == 0)
                    pf(p, "I3", CK_SEV_ERROR, kline(d, "early_stopping_latency_ms"), "> 0", "0",
                       "Not enough samples were processed for early stopping to make an estimate");
                val->set = 1;
                val->d = (es * 8) / 1000000.0;
                ms_py_float_repr(val->d, val->text);
            } else {
                val->set = 0;
            }
        } else if (!strcmp(Fc, "Interactive") && strcmp(Scn, "Server")) {
            pf(p, "I4", CK_SEV_ERROR, kline(d, "effective_scenario"), "Server", S,
               "an Interactive result needs a Server-scenario log, found %s", S);
        }
    } else if (c->unified && F && strcmp(F, "Interactive") == 0 && strcmp(S, "Server") != 0) {
        /* unreachable: differs would be set */
    }
    free(S);
    return 1;
}

/* Performance of the main run (P0/P1 + the log). */
static void group_performance(sctx *c, const char *scen_rel, ck_dlog *log_out, int *log_ok)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    char *run_rel = ck_join3(scen_rel, "performance", "run_1");
    char *run_abs = absof(c, run_rel);
    char *log_rel = ck_join(run_rel, "mlperf_log_detail.txt");
    *log_ok = 0;
    if (!run_rel || !run_abs || !log_rel) {
        c->run->oom = 1;
        goto out;
    }
    if (!ck_pexists(run_abs)) {
        if (c->unified)
            FIND(c, "P0", CK_SEV_ERROR, log_rel, 0, NULL, NULL,
                 "performance log missing (the unified checker crashes on a loadgen submission "
                 "without it)");
        else
            FIND(c, "P0", CK_SEV_ERROR, run_rel, 0, NULL, NULL, "%s is missing", run_rel);
        goto out;
    }
    if (!c->unified) {
        const char *extra[2] = {s->has_power ? "spl.txt" : NULL, NULL};
        char *diff = NULL;
        if (ck_files_diff(r, run_abs, ck_rget(r, "perf_dir_required_files"),
                          ck_rget(r, "perf_dir_optional_files"), extra, &diff))
            c->run->oom = 1;
        if (diff) {
            /* with performance_file_list_stops off (check_results_dir of tag v3.0) the mismatch
             * is only logged and check_performance_dir still reads the detail log */
            int stops = r->sw.performance_file_list_stops;
            FIND(c, s->has_power && strstr(diff, "spl.txt") ? "W1" : "P1",
                 stops ? CK_SEV_ERROR : CK_SEV_WARNING, run_rel, 0, NULL, diff,
                 "%s has file list mismatch (%s)%s", run_rel, diff,
                 stops ? "" : " (this round's checker only logs this)");
            free(diff);
            if (stops)
                goto out;
        }
    }
    s->perf_ran = 1;
    if (!load_dlog(c, log_rel, "P8", log_out))
        goto out;
    *log_ok = 1;
    pctx p = {c, NULL, s->scen_fixed, log_rel, 0};
    check_perf_log(&p, log_out, &s->value, &s->inferred, &s->effective_scenario);
out:
    free(run_rel);
    free(run_abs);
    free(log_rel);
}

/* ------------------------------------------- results from the summary file ---- */

/* check_performance_dir of the v0.7.1 checker (switch result_from_summary, v0.5/v0.7): the
 * summary's "key : value" lines as its regex ^\s*([\w\s.\(\)\/]+)\s*\:\s*([\w\+\.]+) reads
 * them (the value stops at the first other character: "Scenario : Single Stream" gives
 * "Single"), VALID from ^Result\s+is\s*\:\s+VALID, the result from summary_result_field (never
 * converted to ms: the checker compared "Single" with "Single Stream"). */
typedef struct sumkv {
    char *k, *v;
} sumkv;

static int sum_word(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           ch == '_' || ch >= 0x80;
}

static int sum_ws(unsigned char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* one line (no newline): 1 and malloc'd key/value when it matches the checker's regex */
static int sum_kv(const char *l, size_t n, char **k, char **v)
{
    size_t i = 0;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    size_t ks = i;
    while (i < n && (sum_word((unsigned char)l[i]) || sum_ws((unsigned char)l[i]) || l[i] == '.' ||
                     l[i] == '(' || l[i] == ')' || l[i] == '/'))
        i++;
    if (i == ks || i >= n || l[i] != ':')
        return 0;
    size_t ke = i++;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    size_t vs = i;
    while (i < n && (sum_word((unsigned char)l[i]) || l[i] == '+' || l[i] == '.'))
        i++;
    if (i == vs)
        return 0;
    while (ke > ks && sum_ws((unsigned char)l[ke - 1]))
        ke--;
    *k = strndup(l + ks, ke - ks);
    *v = strndup(l + vs, i - vs);
    return *k && *v ? 1 : -1;
}

static int sum_valid_line(const char *l, size_t n)
{
    size_t i = 6;
    if (n < 6 || memcmp(l, "Result", 6))
        return 0;
    size_t w = i;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    if (i == w || n - i < 2 || memcmp(l + i, "is", 2))
        return 0;
    i += 2;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    if (i >= n || l[i] != ':')
        return 0;
    w = ++i;
    while (i < n && sum_ws((unsigned char)l[i]))
        i++;
    return i > w && n - i >= 5 && !memcmp(l + i, "VALID", 5);
}

static const char *sum_get(const sumkv *kv, size_t n, const char *key)
{
    for (size_t i = n; i-- > 0;)  /* a later line overwrites an earlier one (dict assignment) */
        if (!strcmp(kv[i].k, key))
            return kv[i].v;
    return NULL;
}

/* Python int(text) of a non-negative decimal below 2^64 (seeds reach 2^64-1) */
static int sum_int(const char *t, unsigned long long *out)
{
    if (!t || *t < '0' || *t > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(t, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* one run_N: 1 valid (value set), 0 not */
static int summary_run(sctx *c, const char *run_rel, ck_value *val)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    char *sum_rel = ck_join(run_rel, "mlperf_log_summary.txt");
    char *log_rel = ck_join(run_rel, "mlperf_log_detail.txt");
    char *sum_abs = sum_rel ? absof(c, sum_rel) : NULL;
    char *text = NULL;
    size_t len = 0, nkv = 0, cap = 0;
    sumkv *kv = NULL;
    int valid = 0, ok = 0;
    ms_err e;
    if (!sum_abs || !log_rel) {
        c->run->oom = 1;
        goto out;
    }
    if (ck_read_text(sum_abs, (size_t)64 << 20, &text, &len, &e)) {
        FIND(c, "P8", CK_SEV_ERROR, sum_rel, 0, NULL, NULL, "%s (the checker's exception: no result)",
             e.msg);
        goto out;
    }
    /* `for line in f` reads the whole file in text mode: invalid UTF-8 anywhere raises
     * UnicodeDecodeError, which check_results_dir's bare `except:` turns into no result */
    size_t bad = 0;
    if (!ms_utf8_valid(text, len, &bad) && ms_py_utf8_read_raises(text, len, MS_PY_READ_TO_EOF)) {
        FIND(c, "P8", CK_SEV_ERROR, sum_rel, 0, "UTF-8 text", "an invalid byte",
             "the file is not valid UTF-8 (byte offset %zu): the checker's exception, no result",
             bad);
        goto out;
    }
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        valid |= sum_valid_line(p, n);
        char *k = NULL, *v = NULL;
        int m = sum_kv(p, n, &k, &v);
        if (m == 1 && nkv == cap) {
            size_t nc = cap ? cap * 2 : 64;
            sumkv *nv = realloc(kv, nc * sizeof *nv);
            if (!nv)
                m = -1;
            else
                kv = nv, cap = nc;
        }
        if (m == 1) {
            kv[nkv++] = (sumkv){k, v};
        } else {
            free(k);
            free(v);
            if (m < 0) {
                c->run->oom = 1;
                goto out;
            }
        }
        p = nl ? nl + 1 : end;
    }
    /* performance_sample_count (int(), a KeyError or ValueError is the checker's exception) */
    unsigned long long psc;
    const json_t *need = ck_rget2(r, "performance_sample_count", s->mlperf_model);
    if (!need || sum_int(sum_get(kv, nkv, "performance_sample_count"), &psc)) {
        FIND(c, "P8", CK_SEV_ERROR, sum_rel, 0, "performance_sample_count", "None",
             "%s: no performance_sample_count (or no rule for %s): the checker's exception",
             sum_rel, s->mlperf_model);
        goto out;
    }
    if ((double)psc < json_number_value(need)) {
        FIND(c, "P6", CK_SEV_ERROR, sum_rel, 0, NULL, NULL,
             "%s performance_sample_count, found %.0f, needs to be > %llu", log_rel,
             json_number_value(need), psc);
        valid = 0;
    }
    /* the detail log: any ERROR record (load_dlog reads both formats) */
    {
        ck_dlog d;
        memset(&d, 0, sizeof d);
        if (!load_dlog(c, log_rel, "P8", &d)) {
            ck_dlog_free(&d);
            goto out;
        }
        const json_t *ign = ck_rget(r, "detail_log_ignored_errors");
        for (size_t i = 0; i < d.nerror_texts; i++) {
            int ignored = 0;
            for (size_t k = 0; k < json_array_size(ign) && !ignored; k++) {
                const char *t = json_string_value(json_array_get(ign, k));
                ignored = t && strstr(d.errors[i], t);
            }
            if (!ignored) {
                FIND(c, "P5", CK_SEV_ERROR, log_rel, 0, "no LoadGen errors", d.errors[i],
                     "%s contains error: %s", log_rel, d.errors[i]);
                valid = 0;
            }
        }
        ck_dlog_free(&d);
    }
    static const char *const seeds[3] = {"qsl_rng_seed", "sample_index_rng_seed",
                                         "schedule_rng_seed"};
    for (int i = 0; i < 3; i++) {
        const char *t = sum_get(kv, nkv, seeds[i]);
        unsigned long long sv;
        if (sum_int(t, &sv)) {
            FIND(c, "P8", CK_SEV_ERROR, sum_rel, 0, seeds[i], "None",
                 "%s: %s is missing (the checker's exception)", sum_rel, seeds[i]);
            goto out;
        }
        if ((uint64_t)sv != r->seeds[i])
            FIND(c, "P7", CK_SEV_WARNING, sum_rel, 0, NULL, t, "%s %s is wrong, expected=%llu, found=%s",
                 log_rel, seeds[i], (unsigned long long)r->seeds[i], t);
    }
    const char *scen = sum_get(kv, nkv, "Scenario");
    const char *field = scen ? json_string_value(ck_rget2(r, "summary_result_field", scen)) : NULL;
    const char *rt = field ? sum_get(kv, nkv, field) : NULL;
    double res;
    if (!rt || ms_py_float_parse(rt, strlen(rt), &res)) {
        FIND(c, "P8", CK_SEV_ERROR, sum_rel, 0, field ? field : "a known Scenario", "None",
             "%s: no result for scenario %s (the checker's exception)", sum_rel,
             scen ? scen : "None");
        goto out;
    }
    if (r->sw.perf_constraints) {
        /* logged only (no verdict change), except a model without min_queries: its exception */
        const json_t *mq = ck_rget2(r, "min_queries", s->mlperf_model);
        if (!mq) {
            FIND(c, "P12", CK_SEV_ERROR, sum_rel, 0, "a known model", s->mlperf_model,
                 "model %s has no min_queries entry in %s rules (the checker raises)",
                 s->mlperf_model, r->version);
            goto out;
        }
        /* get_min_query_count(model, scenario) is looked up with the summary's scenario word
         * ("Single", "Multi"): None, and int < None raises, so such a run has no result */
        const json_t *need_q = json_object_get(mq, scen);
        unsigned long long mqc;
        if (!json_is_number(need_q) || sum_int(sum_get(kv, nkv, "min_query_count"), &mqc)) {
            FIND(c, "P12", CK_SEV_ERROR, sum_rel, 0, "a minimum query count for this scenario",
                 scen, "%s: no minimum query count for scenario '%s' of %s (the checker raises)",
                 sum_rel, scen, s->mlperf_model);
            goto out;
        }
        if ((double)mqc < json_number_value(need_q))
            FIND(c, "P12", CK_SEV_WARNING, sum_rel, 0, NULL, NULL,
                 "%s Required minimum Query Count not met by user config, Expected=%.0f, Found=%llu",
                 log_rel, json_number_value(need_q), mqc);
    }
    val->set = 1;
    val->d = res;
    ms_py_float_repr(res, val->text);
    ok = valid;
out:
    for (size_t i = 0; i < nkv; i++) {
        free(kv[i].k);
        free(kv[i].v);
    }
    free(kv);
    free(text);
    free(sum_rel);
    free(sum_abs);
    free(log_rel);
    return ok;
}

static void group_performance_summary(sctx *c, const char *scen_rel)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    int nruns = !strcmp(s->scen_fixed, "Server") ? r->sw.server_runs : 1;
    int any_valid = 0;
    for (int i = 1; i <= nruns; i++) {
        char *run_rel = ck_fmt("%s/performance/run_%d", scen_rel, i);
        char *run_abs = run_rel ? absof(c, run_rel) : NULL;
        if (!run_abs) {
            c->run->oom = 1;
            free(run_rel);
            return;
        }
        if (!ck_pexists(run_abs)) {
            FIND(c, "P0", CK_SEV_ERROR, run_rel, 0, NULL, NULL, "%s is missing", run_rel);
        } else {
            char *diff = NULL;
            if (ck_files_diff(r, run_abs, ck_rget(r, "perf_dir_required_files"),
                              ck_rget(r, "perf_dir_optional_files"), NULL, &diff))
                c->run->oom = 1;
            if (diff)
                FIND(c, "P1", CK_SEV_WARNING, run_rel, 0, NULL, diff,
                     "%s has file list mismatch (%s)", run_rel, diff);
            free(diff);
            s->perf_ran = 1;
            ck_value v = {0};
            size_t before = s->f.n;
            if (summary_run(c, run_rel, &v)) {
                s->value = v;  /* results[name] = r: the last valid run's */
                any_valid = 1;
            } else {
                FIND(c, "P2", CK_SEV_ERROR, run_rel, 0, NULL, NULL, "%s has issues", run_rel);
                (void)before;
            }
        }
        free(run_rel);
        free(run_abs);
    }
    s->perf_ok = any_valid;
}

/* ------------------------------------------------------------------- power ---- */

/* "MM-DD-YYYY HH:MM:SS.ffffff" (fraction 1-6 digits) -> microseconds since 1970 */
static int parse_ptd_time(const char *s, long long *us)
{
    int mo, dd, yy, hh, mi, ss, n = 0;
    if (sscanf(s, "%2d-%2d-%4d %2d:%2d:%2d%n", &mo, &dd, &yy, &hh, &mi, &ss, &n) != 6)
        return -1;
    const char *p = s + n;
    long frac = 0;
    if (*p != '.')
        return -1;
    p++;
    int digits = 0;
    while (*p >= '0' && *p <= '9' && digits < 6) {
        frac = frac * 10 + (*p - '0');
        p++;
        digits++;
    }
    if (!digits)
        return -1;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    if (*p)
        return -1;
    for (int i = digits; i < 6; i++)
        frac *= 10;
    if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 59)
        return -1;
    /* days from civil (proleptic Gregorian) */
    int y = yy - (mo <= 2);
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long long days = era * 146097 + doe - 719468;
    *us = ((days * 86400 + hh * 3600 + mi * 60 + ss) * 1000000LL) + frac;
    return 0;
}

static void group_power(sctx *c, const char *scen_rel, const ck_dlog *run_log, int run_log_ok)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    char *perf_rel = ck_join(scen_rel, "performance");
    char *rng_rel = ck_join(perf_rel, "ranging");
    char *pwr_rel = ck_join(perf_rel, "power");
    char *run_rel = ck_join(perf_rel, "run_1");
    char *rng_abs = absof(c, rng_rel), *pwr_abs = absof(c, pwr_rel);
    char *spl_rel = ck_join(run_rel, "spl.txt");
    if (!perf_rel || !rng_rel || !pwr_rel || !run_rel || !rng_abs || !pwr_abs || !spl_rel) {
        c->run->oom = 1;
        goto out;
    }
    /* W1 (unified; the legacy profile checks it with P1): run_1 holds spl.txt. Where the round
     * only logs P1 (performance_file_list_stops off), check_power_dir of tags v1.0.1-v3.0 still
     * fails the power result on the same run_1 file list mismatch (`is_valid = False`). */
    const char *spl[2] = {"spl.txt", NULL};
    char *diff = NULL;
    if (c->unified || !r->sw.performance_file_list_stops) {
        char *run_abs = absof(c, run_rel);
        if (!run_abs || ck_files_diff(r, run_abs, ck_rget(r, "perf_dir_required_files"),
                                      ck_rget(r, "perf_dir_optional_files"), spl, &diff))
            c->run->oom = 1;
        if (diff)
            FIND(c, "W1", CK_SEV_ERROR, run_rel, 0, NULL, diff, "%s has file list mismatch (%s)",
                 run_rel, diff);
        free(diff);
        diff = NULL;
        free(run_abs);
    }
    /* W2: file sets */
    if (ck_files_diff(r, rng_abs, ck_rget(r, "perf_dir_required_files"),
                      ck_rget(r, "perf_dir_optional_files"), spl, &diff) == 0 && diff) {
        FIND(c, "W2", CK_SEV_ERROR, rng_rel, 0, NULL, diff, "%s has file list mismatch (%s)", rng_rel,
             diff);
        free(diff);
        diff = NULL;
    }
    if (ck_files_diff(r, pwr_abs, ck_rget(r, "power_dir_required_files"), NULL, NULL, &diff) == 0 &&
        diff) {
        FIND(c, "W2", CK_SEV_ERROR, pwr_rel, 0, NULL, diff, "%s has file list mismatch (%s)", pwr_rel,
             diff);
        free(diff);
        diff = NULL;
    }
    /* W3: ranging result computable */
    {
        char *rlog = ck_join(rng_rel, "mlperf_log_detail.txt");
        ck_dlog d;
        memset(&d, 0, sizeof d);
        size_t before = s->f.n;
        if (rlog && load_dlog(c, rlog, "W3", &d)) {
            char *S = ck_dlog_str(&d, "effective_scenario");
            const char *field = S ? json_string_value(ck_rget3(r, "result_field_overrides",
                                                               s->mlperf_model, S)) : NULL;
            if (S && !field)
                field = json_string_value(ck_rget2(r, "result_field", S));
            double v;
            if (!field || ck_dlog_num(&d, field, &v))
                FIND(c, "W3", CK_SEV_ERROR, rlog, 0, field ? field : "a result field", "None",
                     "%s caused exception in check_ranging_dir: %s is missing", rng_rel,
                     field ? field : "effective_scenario");
            free(S);
        }
        for (size_t i = before; i < s->f.n; i++)
            s->f.v[i].id = "W3";
        ck_dlog_free(&d);
        free(rlog);
    }
    /* W5: power metric */
    if (run_log_ok) {
        char *pb = ck_dlog_str(run_log, "power_begin"), *pe = ck_dlog_str(run_log, "power_end");
        long long b_us, e_us;
        char *run_log_rel = ck_join(run_rel, "mlperf_log_detail.txt");
        if (!pb || !pe || parse_ptd_time(pb, &b_us) || parse_ptd_time(pe, &e_us)) {
            FIND(c, "W5", CK_SEV_ERROR, run_log_rel, kline(run_log, "power_begin"),
                 "power_begin/power_end as MM-DD-YYYY HH:MM:SS.ffffff",
                 pb ? pb : "None", "power_begin/power_end missing or malformed");
        } else {
            textfile t;
            read_textfile(c, spl_rel, "W5", 1, &t);
            double sum = 0;
            size_t nsamp = 0;
            if (t.ok) {
                ms_lines it;
                ms_lines_init(&it, t.text, t.len);
                const char *line;
                size_t len;
                int nl;
                char *lb = NULL;
                while (ms_lines_next(&it, &line, &len, &nl)) {
                    if (len < 4 || memcmp(line, "Time", 4))
                        continue;
                    free(lb);
                    lb = malloc(len + 1);
                    if (!lb)
                        break;
                    memcpy(lb, line, len);
                    lb[len] = '\0';
                    char *fields[8] = {0};
                    int nf = 0;
                    for (char *q = lb, *tok; nf < 8 && (tok = strsep(&q, ","));)
                        fields[nf++] = tok;
                    long long ts;
                    double w;
                    if (nf < 4 || parse_ptd_time(fields[1], &ts) ||
                        ms_py_float_parse(fields[3], strlen(fields[3]), &w)) {
                        FIND(c, "W5", CK_SEV_ERROR, spl_rel, (long)it.line_no, "Time,<timestamp>,..,<watts>",
                             NULL, "malformed power sample line");
                        continue;
                    }
                    if (ts > b_us && ts < e_us && w > 0) {
                        sum += w;
                        nsamp++;
                    }
                }
                free(lb);
            } else if (t.missing) {
                FIND(c, "W5", CK_SEV_ERROR, spl_rel, 0, NULL, NULL, "%s is missing", spl_rel);
            }
            free(t.text);
            if (t.ok && nsamp == 0) {
                FIND(c, "W5", CK_SEV_ERROR, spl_rel, 0, "samples between power_begin and power_end",
                     "none", "%s has no power samples falling in power range: %s - %s", spl_rel,
                     pb, pe);
            } else if (t.ok) {
                double avg = sum / (double)nsamp;
                double dur = (double)(e_us - b_us) / 1e6;
                const char *F = canon_or_raw(r, s->scen_fixed);
                const char *S = s->effective_scenario ? s->effective_scenario : F;
                if (!strcmp(F, "Offline") || !strcmp(F, "Server") || !strcmp(F, "Interactive")) {
                    s->power_metric = avg;
                    s->power_eff = s->value.set ? s->value.d / avg : 0;
                } else {
                    /* power_energy_scale: J per query before v3.0 (1), mJ from v3.0 on (1000);
                     * before v2.0 the log has no result_query_count (check_power_dir of
                     * v2.0: generated queries for MultiStream, QPS x duration for SingleStream) */
                    const json_t *jsc = ck_rget(r, "power_energy_scale");
                    double scale = json_is_number(jsc) ? json_number_value(jsc) : 1000;
                    int64_t nq = 0;
                    double nqd = 0;
                    if (!r->sw.detail_log_query_count) {
                        int64_t g = 0, spq = 0;
                        double qps = 0;
                        if (!strcmp(F, "MultiStream") &&
                            !ck_dlog_i64(run_log, "generated_query_count", &g) &&
                            !ck_dlog_i64(run_log, "generated_samples_per_query", &spq))
                            nqd = (double)g * (double)spq;
                        else if (!strcmp(F, "SingleStream") &&
                                 !ck_dlog_num(run_log, "result_qps_with_loadgen_overhead", &qps))
                            nqd = qps * dur;
                    } else if (!ck_dlog_i64(run_log, "result_query_count", &nq)) {
                        nqd = (double)nq;
                    }
                    if (nqd == 0) {
                        FIND(c, "W5", CK_SEV_ERROR, run_log_rel, 0, "result_query_count", "None",
                             "result_query_count is missing or zero");
                    } else if (!strcmp(F, "MultiStream") && !strcmp(S, "SingleStream") &&
                               r->sw.early_stopping) {
                        s->power_metric = avg * dur * 8 * scale / nqd;
                        s->power_eff = 8000 / s->power_metric;
                    } else {
                        s->power_metric = avg * dur * scale / nqd;
                        s->power_eff = (!strcmp(F, "MultiStream") ? 8000 : 1000) / s->power_metric;
                    }
                }
            }
        }
        free(pb);
        free(pe);
        free(run_log_rel);
    }
    /* W4: the Power WG checker (power.c); before v5.0 only with --more-power-check */
    if (r->sw.power_wg_default || c->run->o->more_power_check)
        ck_power_wg_check(c->run, &s->f, &c->w, perf_rel);
out:
    free(perf_rel);
    free(rng_rel);
    free(pwr_rel);
    free(run_rel);
    free(rng_abs);
    free(pwr_abs);
    free(spl_rel);
}

/* ---------------------------------------------------------------- accuracy ---- */

typedef struct accres {
    char *keys[32];
    char *vals[32];
    size_t n;
    int parsed_any;
} accres;

static void accres_free(accres *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->keys[i]);
        free(a->vals[i]);
    }
    a->n = 0;
}

static void accres_put(accres *a, const char *k, const char *v, size_t vlen)
{
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->keys[i], k)) {
            char *nv = strndup(v, vlen);
            if (nv) {
                free(a->vals[i]);
                a->vals[i] = nv;
            }
            return;
        }
    if (a->n >= 32)
        return;
    a->keys[a->n] = strdup(k);
    a->vals[a->n] = strndup(v, vlen);
    if (a->keys[a->n] && a->vals[a->n])
        a->n++;
}

/* The A3/A4 algorithm (submission_checker.py check_accuracy_dir) over accuracy.txt. report: emit
 * A3/A4 findings. */
static void parse_accuracy(sctx *c, const char *rel, const textfile *t, const json_t *targets,
                           const json_t *limits, accres *out, int report, size_t *stop)
{
    if (stop)
        *stop = MS_PY_READ_TO_EOF;
    const ck_rules *r = c->r;
    size_t nt = json_array_size(targets), nl = json_array_size(limits);
    if (nt > 32)
        nt = 32;
    if (nl > 32)
        nl = 32;
    int seen[32] = {0};
    const ms_pyre *pt[32] = {0}, *pl[32] = {0};
    double thr[32], lim[32];
    const char *mt[32], *ml[32];
    int broken = 0;
    for (size_t i = 0; i < nt; i++) {
        const json_t *x = json_array_get(targets, i);
        mt[i] = json_string_value(json_object_get(x, "metric"));
        thr[i] = json_number_value(json_object_get(x, "value"));
        pt[i] = mt[i] ? ck_rules_pattern(r, mt[i]) : NULL;
        if (!pt[i]) {
            if (report)
                FIND(c, "A3", CK_SEV_ERROR, rel, 0, NULL, mt[i] ? mt[i] : "?",
                     "no accuracy pattern for metric %s in %s rules", mt[i] ? mt[i] : "?",
                     r->version);
            broken = 1;
        }
    }
    for (size_t i = 0; i < nl; i++) {
        const json_t *x = json_array_get(limits, i);
        ml[i] = json_string_value(json_object_get(x, "metric"));
        lim[i] = json_number_value(json_object_get(x, "value"));
        pl[i] = ml[i] ? ck_rules_pattern(r, ml[i]) : NULL;
    }
    if (broken)
        return;
    int hash = 0;
    ms_lines it;
    ms_lines_init(&it, t->text, t->len);
    const char *line;
    size_t len;
    int nlf;
    char *scratch = NULL;
    size_t scap = 0;
    ms_err e;
    while (ms_lines_next(&it, &line, &len, &nlf)) {
        for (size_t i = 0; i < nt; i++) {
            const char *g;
            size_t gl;
            int m = ms_pyre_match_line(pt[i], line, len, nlf, &scratch, &scap, &g, &gl, &e);
            if (m <= 0 || !g)
                continue;
            double v;
            accres_put(out, mt[i], g, gl);
            out->parsed_any = 1;
            if (ms_py_float_parse(g, gl, &v)) {
                if (report)
                    FIND(c, "A3", CK_SEV_ERROR, rel, (long)it.line_no, "a number", NULL,
                         "%s value '%.*s' is not a number (the MLCommons checker raises)", mt[i],
                         (int)gl, g);
                continue;
            }
            if (v >= thr[i]) {
                seen[i] = 1;
            } else if (report) {
                char e1[64], e2[64];
                pct_f(e1, sizeof e1, thr[i]);
                snprintf(e2, sizeof e2, "%.*s", (int)gl, g);
                FIND(c, "A3", CK_SEV_ERROR, rel, (long)it.line_no, e1, e2,
                     "accuracy not met: %s expected=%s, found=%s", mt[i], e1, e2);
            }
        }
        for (size_t i = 0; i < nl; i++) {
            const char *g;
            size_t gl;
            if (!pl[i])
                continue;
            int m = ms_pyre_match_line(pl[i], line, len, nlf, &scratch, &scap, &g, &gl, &e);
            double v;
            if (m > 0 && g && ms_py_float_parse(g, gl, &v) == 0 && v > lim[i] && report) {
                char e1[64], e2[64];
                pct_f(e1, sizeof e1, lim[i]);
                snprintf(e2, sizeof e2, "%.*s", (int)gl, g);
                FIND(c, "A3", CK_SEV_ERROR, rel, (long)it.line_no, e1, e2,
                     "accuracy not met: %s upper limit=%s, found=%s", ml[i], e1, e2);
            }
        }
        if (ms_pyre_match_line(&r->hash_re, line, len, nlf, &scratch, &scap, NULL, NULL, &e) > 0)
            hash = 1;
        int all = 1;
        for (size_t i = 0; i < nt; i++)
            all &= seen[i];
        if (all && hash) {
            if (stop)
                *stop = (size_t)(it.p - t->text);
            break;
        }
    }
    free(scratch);
    if (report) {
        for (size_t i = 0; i < nt; i++)
            if (!seen[i] && !ck_skipped(c->run, "A3")) {
                int matched = 0;
                for (size_t k = 0; k < out->n; k++)
                    matched |= !strcmp(out->keys[k], mt[i]);
                if (!matched)
                    FIND(c, "A3", CK_SEV_ERROR, rel, 0, mt[i], "not found",
                         "accuracy metric %s not found in accuracy.txt", mt[i]);
            }
        if (!hash)
            FIND(c, "A4", CK_SEV_ERROR, rel, 0, "hash=<sha256>", "no hash line",
                 "no hash value for mlperf_log_accuracy.json");
    }
}

/* "acc: 76.1  F1: 90.2" (metric names, two spaces between), or only the first metric's
 * value with the csv_accuracy_value_only switch (check_accuracy_dir returned the bare value
 * before v4.1) */
static char *accuracy_string(const accres *a, int value_only)
{
    ms_buf b = MS_BUF_INIT;
    for (size_t i = 0; i < (value_only && a->n ? 1 : a->n); i++)
        if ((i && ms_buf_puts(&b, "  ")) ||
            (value_only ? ms_buf_puts(&b, a->vals[i])
                        : ms_buf_printf(&b, "%s: %s", a->keys[i], a->vals[i]))) {
            ms_buf_free(&b);
            return NULL;
        }
    if (!b.data && ms_buf_puts(&b, ""))
        return NULL;
    return ms_buf_steal(&b);
}

/* returns 0 if the legacy flow stops (A1/A2) */
static int group_accuracy(sctx *c, const char *scen_rel)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    size_t start = s->f.n;
    char *acc_rel = ck_join(scen_rel, "accuracy");
    char *acc_abs = absof(c, acc_rel);
    char *txt_rel = ck_join(acc_rel, "accuracy.txt");
    char *json_rel = ck_join(acc_rel, "mlperf_log_accuracy.json");
    char *det_rel = ck_join(acc_rel, "mlperf_log_detail.txt");
    int cont = 1;
    accres a = {0};
    if (!acc_rel || !acc_abs || !txt_rel || !json_rel || !det_rel) {
        c->run->oom = 1;
        goto out;
    }
    textfile t;
    /* check_accuracy_dir reads accuracy.txt line by line and stops at the line where every
     * metric and the hash were seen: whether invalid UTF-8 raises depends on how far it reads */
    read_textfile_ex(c, txt_rel, "A3", 1, 1, &t);
    if (t.ok && t.bad_utf8) {
        const json_t *tg = ck_targets(r, "accuracy_targets", s->mlperf_model, s->scen_dir);
        const json_t *lm = ck_targets(r, "accuracy_upper_limits", s->mlperf_model, s->scen_dir);
        accres dry = {0};
        size_t stop = MS_PY_READ_TO_EOF;
        if (tg)
            parse_accuracy(c, txt_rel, &t, tg, lm, &dry, 0, &stop);
        accres_free(&dry);
        if (!tg || ms_py_utf8_read_raises(t.text, t.len, stop)) {
            FIND(c, "A3", CK_SEV_ERROR, txt_rel, 0, "UTF-8 text", "an invalid byte",
                 "the file is not valid UTF-8 (byte offset %zu); the MLCommons checker cannot "
                 "decode it", t.bad_off);
            t.ok = 0;
        }
    }
    if (!c->unified) {
        /* with accuracy_failure_stops off (check_results_dir up to tag v4.0), a missing
         * accuracy.txt only makes the accuracy invalid and a file list mismatch is only logged:
         * the performance and compliance checks still run */
        int stops = r->sw.accuracy_failure_stops;
        if (t.missing) {
            FIND(c, "A1", CK_SEV_ERROR, txt_rel, 0, NULL, NULL,
                 "%s has no accuracy.txt. Generate it with accuracy-imagenet.py or "
                 "accuracy-coco.py or process_accuracy.py", acc_rel);
            free(t.text);
            s->acc_ok = 0;
            if (stops) {
                s->stage = 2;
                cont = 0;
            }
            goto out;
        }
        char *diff = NULL;
        if (ck_files_diff(r, acc_abs, ck_rget(r, "accuracy_dir_required_files"), NULL, NULL, &diff))
            c->run->oom = 1;
        if (diff) {
            FIND(c, "A2", stops ? CK_SEV_ERROR : CK_SEV_WARNING, acc_rel, 0, NULL, diff,
                 "%s has file list mismatch (%s)%s", acc_rel, diff,
                 stops ? "" : " (this round's checker only logs this)");
            free(diff);
            if (stops) {
                s->stage = 3;
                cont = 0;
                free(t.text);
                goto out;
            }
        }
    }
    const json_t *targets = ck_targets(r, "accuracy_targets", s->mlperf_model, s->scen_dir);
    const json_t *limits = ck_targets(r, "accuracy_upper_limits", s->mlperf_model, s->scen_dir);
    size_t a3_start = s->f.n;
    if (t.missing) {
        FIND(c, "A3", CK_SEV_ERROR, txt_rel, 0, NULL, NULL, "accuracy.txt is missing");
    } else if (t.ok) {
        if (!targets)
            FIND(c, "A3", CK_SEV_ERROR, txt_rel, 0, "a model with accuracy targets",
                 s->mlperf_model, "model %s has no accuracy target in %s rules (the MLCommons "
                 "checker raises)", s->mlperf_model, r->version);
        else
            parse_accuracy(c, txt_rel, &t, targets, limits, &a, 1, NULL);
    }
    free(t.text);
    if (c->unified && s->open && !t.missing) {
        /* unified: open-division accuracy always passes when accuracy.txt exists */
        for (size_t i = a3_start; i < s->f.n; i++)
            if (!strcmp(s->f.v[i].id, "A3") || !strcmp(s->f.v[i].id, "A4"))
                if (s->f.v[i].sev == CK_SEV_ERROR)
                    s->f.v[i].sev = CK_SEV_WARNING;
    }
    /* A5 */
    {
        char *abs = absof(c, json_rel);
        long long sz = ck_fsize(abs);
        long long max = (long long)json_integer_value(ck_rget(r, "max_truncated_accuracy_log_bytes"));
        if (sz < 0) {
            FIND(c, "A5", CK_SEV_ERROR, json_rel, 0, NULL, NULL, "%s is missing", json_rel);
        } else if (sz > max) {
            char e1[32], e2[32];
            snprintf(e1, sizeof e1, "<= %lld bytes", max);
            snprintf(e2, sizeof e2, "%lld bytes", sz);
            FIND(c, "A5", CK_SEV_ERROR, json_rel, 0, e1, e2, "%s is not truncated", json_rel);
        }
        free(abs);
    }
    /* A6 / A7 */
    {
        ck_dlog d;
        memset(&d, 0, sizeof d);
        char *abs = absof(c, det_rel);
        if (!ck_isfile(abs)) {
            FIND(c, "A6", CK_SEV_ERROR, det_rel, 0, NULL, NULL, "%s is missing", det_rel);
        } else if (load_dlog(c, det_rel, "A6", &d)) {
            check_log_errors(c, &d, det_rel, "A6", 0, NULL);
            /* A7: dataset coverage */
            if (!ck_skipped(c->run, "A7")) {
                double have;
                const char *key = "qsl_reported_total_count";
                if (c->unified && ck_dlog_get(&d, "effective_accuracy_sample_count"))
                    key = "effective_accuracy_sample_count";
                const json_t *want = NULL;
                if (c->unified) {
                    const json_t *asc = ck_rget2(r, "accuracy_sample_count", s->mlperf_model);
                    if (json_is_object(asc)) {
                        want = json_object_get(asc, s->scen_dir);
                        if (!want) {
                            char low[32];
                            snprintf(low, sizeof low, "%s", s->scen_dir);
                            for (char *q = low; *q; q++)
                                *q = (char)((*q >= 'A' && *q <= 'Z') ? *q + 32 : *q);
                            want = json_object_get(asc, low);
                        }
                    } else {
                        want = asc;
                    }
                }
                if (!json_is_number(want))
                    want = ck_rget2(r, "dataset_size", s->mlperf_model);
                if (ck_dlog_num(&d, key, &have) == 0 && json_is_number(want) &&
                    have != json_number_value(want)) {
                    char e1[32], e2[32];
                    snprintf(e1, sizeof e1, "%.0f", json_number_value(want));
                    snprintf(e2, sizeof e2, "%.0f", have);
                    FIND(c, "A7", c->unified ? CK_SEV_ERROR : CK_SEV_WARNING, det_rel,
                         (long)(ck_dlog_get(&d, key) ? ck_dlog_get(&d, key)->line : 0), e1, e2,
                         "accuracy run does not cover all dataset, accuracy samples: %s, dataset "
                         "size: %s%s", e2, e1, c->unified ? "" : " (the legacy checker only logs this)");
                } else if (json_is_number(want) && ck_dlog_num(&d, key, &have) != 0 && c->unified) {
                    char e1[32];
                    snprintf(e1, sizeof e1, "%.0f", json_number_value(want));
                    FIND(c, "A7", CK_SEV_ERROR, det_rel, 0, e1, "None",
                         "%s is missing from the accuracy run's detail log", key);
                }
            }
            /* P17-like stricter check for the accuracy run's mode */
            char *mode = ck_dlog_str(&d, "effective_test_mode");
            if (mode && strcmp(mode, "AccuracyOnly"))
                FIND(c, "P17", CK_SEV_WARNING, det_rel, 0, "AccuracyOnly", mode,
                     "the accuracy run was made in %s mode", mode);
            free(mode);
        }
        ck_dlog_free(&d);
        free(abs);
    }
    /* A8 */
    {
        const json_t *extra = ck_rget2(r, "accuracy_extra_files", s->mlperf_model);
        const char *dname;
        json_t *ids;
        ms_buf missing = MS_BUF_INIT;
        int miss = 0;
        json_object_foreach((json_t *)extra, dname, ids) {
            char *drel = ck_join(acc_rel, dname);
            char *dabs = drel ? absof(c, drel) : NULL;
            if (!dabs) {
                free(drel);
                c->run->oom = 1;
                break;
            }
            if (!ck_isdir(dabs)) {
                ms_buf_printf(&missing, "%s'%s'", miss++ ? ", " : "", drel);
            } else {
                ck_dir dl;
                ck_dir_read(&dl, dabs);
                for (size_t i = 0; i < json_array_size(ids); i++) {
                    const char *id = json_string_value(json_array_get(ids, i));
                    int found = 0;
                    for (size_t k = 0; k < dl.n && !found && id; k++) {
                        if (!dl.v[k].is_file)
                            continue;
                        size_t stem = strcspn(dl.v[k].name, ".");
                        found = stem == strlen(id) && !strncmp(dl.v[k].name, id, stem);
                    }
                    if (!found)
                        ms_buf_printf(&missing, "%s'%s/%s.%s'", miss++ ? ", " : "", drel, id,
                                      !strcmp(dname, "videos") ? "mp4" : "png");
                }
                ck_dir_free(&dl);
            }
            free(drel);
            free(dabs);
        }
        if (miss)
            FIND(c, "A8", CK_SEV_ERROR, acc_rel, 0, NULL, missing.data,
                 "%s expected to have the following extra files ([%s])", acc_rel, missing.data);
        ms_buf_free(&missing);
    }
    s->acc_ok = !any_counting(c->run, &s->f, start);
    /* A9: open-division leniency (legacy) */
    if (!c->unified && !s->acc_ok && s->open && a.parsed_any) {
        /* an unparsable detail log (L1) stays an error: the reference does not get this far,
         * MLPerfLog raises in find_error_in_detail_log (check_accuracy_dir) and the run ends */
        for (size_t i = start; i < s->f.n; i++)
            if (s->f.v[i].sev == CK_SEV_ERROR && strcmp(s->f.v[i].id, "L1"))
                s->f.v[i].sev = CK_SEV_WARNING;
        FIND(c, "A9", CK_SEV_INFO, acc_rel, 0, NULL, NULL,
             "%s, accuracy not valid but taken for open", acc_rel);
        s->acc_ok = !any_counting(c->run, &s->f, start);
    }
    s->acc_str = accuracy_string(&a, r->sw.csv_accuracy_value_only);
out:
    accres_free(&a);
    free(acc_rel);
    free(acc_abs);
    free(txt_rel);
    free(json_rel);
    free(det_rel);
    return cont;
}

/* ------------------------------------------------------------ measurements ---- */

/* The implementation JSON's fields (E4) and, as a stricter check, its schema (E6). */
static void check_impl_json(sctx *c, const char *rel, json_t **keep)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    char *abs = absof(c, rel);
    json_error_t je;
    json_t *j = abs ? json_load_file(abs, 0, &je) : NULL;
    free(abs);
    if (!j) {
        FIND(c, "E4", CK_SEV_ERROR, rel, je.line > 0 ? je.line : 0, "a JSON object", je.text,
             "cannot parse the implementation JSON: %s (the MLCommons checker raises)", je.text);
        c->raises = 1;
        return;
    }
    if (!json_is_object(j)) {
        FIND(c, "E4", CK_SEV_ERROR, rel, 0, "a JSON object", "another JSON value",
             "the implementation JSON must be an object");
        json_decref(j);
        return;
    }
    const json_t *req = ck_rget(r, "measurements_required_fields");
    for (size_t i = 0; i < json_array_size(req); i++) {
        const char *k = json_string_value(json_array_get(req, i));
        const json_t *v = json_object_get(j, k);
        char *ptr = ms_json_pointer_append("", k);
        if (!v)
            ck_report_finding(c->run, &s->f, &c->w, "E4", CK_SEV_ERROR, rel, 0, ptr, "present",
                              "missing", "field %s is missing", k);
        else if (!c->run->o->skip_meaningful_fields_emptiness_check && c->r->sw.emptiness_checks &&
                 !ms_py_truthy(v))
            ck_report_finding(c->run, &s->f, &c->w, "E4", CK_SEV_ERROR, rel, 0, ptr,
                              "a meaningful value", "empty", "field %s is missing meaningful value",
                              k);
        free(ptr);
    }
    const json_t *wdt = json_object_get(j, "weight_data_types");
    if (wdt) {
        s->weight_data_types = json_deep_copy(wdt);
        s->wdt_present = 1;
    }
    if (c->run->meas_schema) {
        ms_jschema_errors errs = {0};
        ms_err e;
        if (ms_jschema_validate(c->run->meas_schema, j, &errs, 20, &e) == 0) {
            for (size_t i = 0; i < errs.n; i++) {
                const char *ptr = errs.v[i].pointer;
                /* E4 already reports absent and empty required fields */
                if (!strcmp(errs.v[i].keyword, "required"))
                    continue;
                const json_t *fv = ptr[0] == '/' ? json_object_get(j, ptr + 1) : NULL;
                if (fv && !ms_py_truthy(fv))
                    continue;
                ck_report_finding(c->run, &s->f, &c->w, "E6", CK_SEV_WARNING, rel, 0, ptr, NULL,
                                  NULL, "%s (%s)", errs.v[i].message, errs.v[i].keyword);
            }
        }
        ms_jschema_errors_free(&errs);
    }
    (void)keep;
    json_decref(j);
}

static void need_nonempty_file(sctx *c, const char *dir_rel, const char *name, const char *id)
{
    char *rel = ck_join(dir_rel, name);
    char *abs = rel ? absof(c, rel) : NULL;
    if (!abs) {
        c->run->oom = 1;
    } else if (!ck_isfile(abs)) {
        FIND(c, id, CK_SEV_ERROR, rel, 0, NULL, NULL, "%s is missing %s", dir_rel, name);
    } else if (!c->run->o->skip_empty_files_check && c->r->sw.emptiness_checks &&
               ck_fsize(abs) == 0) {
        FIND(c, id, CK_SEV_ERROR, rel, 0, "a non-empty file", "0 bytes", "%s is having empty %s",
             dir_rel, name);
    }
    free(rel);
    free(abs);
}

/* E3: power measurement files in the scenario dir or up to measurements/ */
static void check_power_measure_files(sctx *c, const char *mdir_rel)
{
    const json_t *pats = ck_rget(c->r, "power_measure_file_patterns");
    for (size_t pi = 0; pi < json_array_size(pats); pi++) {
        const char *pat = json_string_value(json_array_get(pats, pi));
        ms_pyre re;
        ms_err e;
        if (!pat || ms_pyre_compile(&re, pat, &e))
            continue;
        char *found_rel = NULL;
        char *dir = strdup(mdir_rel);
        for (int level = 0; level < 4 && dir; level++) {
            char *abs = absof(c, dir);
            ck_dir d;
            if (abs && ck_dir_read(&d, abs) == 0) {
                for (size_t i = 0; i < d.n; i++)
                    if (d.v[i].is_file &&
                        ms_pyre_match(&re, d.v[i].name, strlen(d.v[i].name), NULL, NULL, &e) > 0) {
                        free(found_rel);
                        found_rel = ck_join(dir, d.v[i].name);
                    }
                ck_dir_free(&d);
            }
            free(abs);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            else
                break;
        }
        free(dir);
        if (!found_rel) {
            FIND(c, "E3", CK_SEV_ERROR, mdir_rel, 0, pat, NULL, "%s is missing %s", mdir_rel, pat);
        } else if (!c->run->o->skip_empty_files_check && c->r->sw.emptiness_checks) {
            char *abs = absof(c, found_rel);
            if (ck_fsize(abs) == 0)
                FIND(c, "E3", CK_SEV_ERROR, found_rel, 0, "a non-empty file", "0 bytes",
                     "%s is having empty %s", mdir_rel, pat);
            free(abs);
        }
        free(found_rel);
        ms_pyre_free(&re);
    }
}

/* Returns 0 when the legacy flow stops (any E failure). */
static int group_measurements(sctx *c, const char *scen_rel)
{
    ck_scen *s = c->s;
    size_t start = s->f.n;
    int split = !strcmp(json_string_value(ck_rget(c->r, "layout")) ?: "split", "split");
    char *sub_rel = ck_join(s->division, s->submitter);
    char *mdir_rel = split ? ck_fmt("%s/measurements/%s/%s/%s", sub_rel, s->system, s->model_dir,
                                    s->scen_dir)
                           : strdup(scen_rel);
    char *mdir_abs = mdir_rel ? absof(c, mdir_rel) : NULL;
    if (!sub_rel || !mdir_rel || !mdir_abs) {
        c->run->oom = 1;
        goto out;
    }
    if (split && !ck_pexists(mdir_abs)) {
        FIND(c, "E1", CK_SEV_ERROR, mdir_rel, 0, NULL, NULL, "no measurement_dir for %s", mdir_rel);
        goto out;
    }
    /* E2 */
    const json_t *files = ck_rget(c->r, "measurements_required_files");
    for (size_t i = 0; i < json_array_size(files); i++)
        need_nonempty_file(c, mdir_rel, json_string_value(json_array_get(files, i)), "E2");
    /* E3 (legacy only) */
    if (!c->unified && s->has_power && !ck_skipped(c->run, "E3"))
        check_power_measure_files(c, mdir_rel);
    /* E4: implementation JSON */
    char *impl_name = NULL;
    size_t end_len = 0;
    if (split) {
        ck_dir d;
        ck_dir_read(&d, mdir_abs);
        size_t sl = strlen(s->system);
        char *suffix = ck_fmt("_%s.json", s->scen_dir);
        for (size_t i = 0; i < d.n && suffix; i++) {
            const char *n = d.v[i].name;
            size_t nl = strlen(n);
            if (!d.v[i].is_file || strncmp(n, s->system, sl))
                continue;
            if (nl >= strlen(suffix) && !strcmp(n + nl - strlen(suffix), suffix)) {
                impl_name = strdup(n);
                end_len = strlen(suffix);
                break;
            }
            if (nl >= 5 && !strcmp(n + nl - 5, ".json")) {
                impl_name = strdup(n);
                end_len = 5;
                break;
            }
        }
        free(suffix);
        ck_dir_free(&d);
        if (!impl_name) {
            FIND(c, "E4", CK_SEV_ERROR, mdir_rel, 0, NULL, NULL, "%s is missing %s*.json", s->rel,
                 s->system);
        }
    } else {
        impl_name = strdup("measurements.json");
        end_len = 0;
        char *rel = ck_join(mdir_rel, impl_name);
        char *abs = rel ? absof(c, rel) : NULL;
        if (!ck_isfile(abs)) {
            FIND(c, "E1", CK_SEV_ERROR, rel, 0, NULL, NULL, "%s measurements json file not found",
                 s->rel);
            free(impl_name);
            impl_name = NULL;
        }
        free(rel);
        free(abs);
    }
    if (impl_name) {
        char *rel = ck_join(mdir_rel, impl_name);
        if (rel)
            check_impl_json(c, rel, NULL);
        free(rel);
    }
    /* E5: code directory */
    if (!c->unified && impl_name) {
        size_t sl = strlen(s->system), nl = strlen(impl_name);
        size_t from = sl + 1, to = nl >= end_len ? nl - end_len : 0;
        char *impl = from < to ? strndup(impl_name + from, to - from) : strdup("");
        char *code_model = ck_fmt("%s/code/%s", sub_rel, s->model_dir);
        char *code_model_abs = code_model ? absof(c, code_model) : NULL;
        char *code_dir = NULL;
        if (code_model_abs && ck_isfile(code_model_abs)) {
            char *txt = NULL;
            size_t len = 0;
            ms_err e;
            if (ck_read_text(code_model_abs, 4096, &txt, &len, &e) == 0) {
                size_t n = len;
                const char *p = ms_py_strip(txt, &n);
                code_dir = ck_fmt("%s/code/%.*s/%s", sub_rel, (int)n, p, impl ? impl : "");
            }
            free(txt);
        } else {
            code_dir = ck_fmt("%s/code/%s/%s", sub_rel, s->model_dir, impl ? impl : "");
        }
        if (code_dir) {
            char *abs = absof(c, code_dir);
            int ok = ck_pexists(abs);
            if (!ok) {
                char *slash = strrchr(abs, '/');
                if (slash) {
                    *slash = '\0';
                    ok = ck_pexists(abs);
                }
            }
            if (!ok) {
                size_t cl = strlen(code_dir);  /* shown without the empty impl's slash */
                if (cl > 1 && code_dir[cl - 1] == '/')
                    code_dir[cl - 1] = '\0';
                FIND(c, "E5", CK_SEV_ERROR, code_dir, 0, NULL, NULL, "%s is missing code_dir %s",
                     s->rel, code_dir);
            }
            free(abs);
        }
        free(impl);
        free(code_model);
        free(code_model_abs);
        free(code_dir);
    } else if (c->unified) {
        char *src = ck_join(sub_rel, "src");
        char *abs = src ? absof(c, src) : NULL;
        if (!ck_pexists(abs))
            FIND(c, "E5", CK_SEV_ERROR, src, 0, NULL, NULL, "%s src directory does not exist", src);
        free(src);
        free(abs);
    }
    free(impl_name);
out:
    if (!c->unified && !c->r->sw.measurements_failure_stops) {
        /* check_results_dir up to tag v3.0: only a missing measurement dir nulls its key; the
         * findings of check_measurement_dir are logged, the result still counts (unless
         * check_measurement_dir raised: then there is no verdict and the errors stay) */
        int missing = 0;
        for (size_t i = start; i < s->f.n; i++) {
            if (!strcmp(s->f.v[i].id, "E1"))
                missing = 1;
            else if (s->f.v[i].sev == CK_SEV_ERROR && !c->raises)
                s->f.v[i].sev = CK_SEV_WARNING;
        }
        if (missing && split)
            s->meas_key = mdir_rel ? strdup(mdir_rel) : NULL;
        s->meas_ok = 1;
        goto done;
    }
    s->meas_ok = !any_counting(c->run, &s->f, start);
    if (!s->meas_ok && split)
        s->meas_key = mdir_rel ? strdup(mdir_rel) : NULL;
done:
    free(sub_rel);
    free(mdir_rel);
    free(mdir_abs);
    return s->meas_ok;
}

/* -------------------------------------------------------------- compliance ---- */

static double delta_allowed(const ck_rules *r, const char *model, const char *metric)
{
    const json_t *o = ck_rget3(r, "accuracy_delta_perc_overrides", model, metric);
    if (json_is_number(o))
        return json_number_value(o);
    const json_t *def = ck_rget(r, "accuracy_delta_perc_default");
    const json_t *hi = json_object_get(def, "model_name_contains_99.9");
    const json_t *lo = json_object_get(def, "otherwise");
    if (strstr(model, "99.9"))
        return json_is_number(hi) ? json_number_value(hi) : 0.1;
    return json_is_number(lo) ? json_number_value(lo) : 1;
}

/* last value of each target metric in a text file */
static void last_values(sctx *c, const textfile *t, const json_t *targets, double *vals)
{
    size_t nt = json_array_size(targets);
    ms_lines it;
    ms_lines_init(&it, t->text, t->len);
    const char *line;
    size_t len;
    int nl;
    char *scratch = NULL;
    size_t scap = 0;
    ms_err e;
    while (ms_lines_next(&it, &line, &len, &nl)) {
        for (size_t i = 0; i < nt && i < 32; i++) {
            const char *m = json_string_value(json_object_get(json_array_get(targets, i), "metric"));
            const ms_pyre *re = m ? ck_rules_pattern(c->r, m) : NULL;
            const char *g;
            size_t gl;
            double v;
            if (re && ms_pyre_match_line(re, line, len, nl, &scratch, &scap, &g, &gl, &e) > 0 &&
                g && ms_py_float_parse(g, gl, &v) == 0)
                vals[i] = v;
        }
    }
    free(scratch);
}

/* A verify file as check_compliance_acc_dir (TEST01's verify_accuracy.txt) and
 * check_compliance_perf_dir (verify_performance.txt) of the legacy checkers read it: line by
 * line in text mode until the first line holding "TEST PASS" (`break`). Invalid UTF-8 raises
 * only where Python's decoder meets it before that line is handed out (a byte after it in the
 * same 8,192-byte chunk too, an incomplete sequence at the end of the file never); where it
 * raises, the reference has no verdict: an error naming the file, t->ok cleared. */
static void read_until_test_pass(sctx *c, const char *rel, const char *id, textfile *t)
{
    read_textfile_ex(c, rel, id, 1, !c->unified, t);
    if (!t->ok || !t->bad_utf8)
        return;
    size_t stop = MS_PY_READ_TO_EOF;
    ms_lines it;
    ms_lines_init(&it, t->text, t->len);
    const char *line;
    size_t len;
    int nl;
    while (ms_lines_next(&it, &line, &len, &nl))
        if (len >= 9 && memmem(line, len, "TEST PASS", 9)) {
            stop = (size_t)(it.p - t->text);
            break;
        }
    if (ms_py_utf8_read_raises(t->text, t->len, stop)) {
        FIND(c, id, CK_SEV_ERROR, rel, 0, "UTF-8 text", "an invalid byte",
             "the file is not valid UTF-8 (byte offset %zu); the MLCommons checker cannot "
             "decode it", t->bad_off);
        t->ok = 0;
        c->raises = 1;
    }
}

static void check_test01_accuracy(sctx *c, const char *tdir_rel)
{
    ck_scen *s = c->s;
    char *v_rel = ck_join(tdir_rel, "verify_accuracy.txt");
    char *acc_rel = ck_join(tdir_rel, "accuracy");
    char *acc_abs = acc_rel ? absof(c, acc_rel) : NULL;
    textfile t = {0};
    if (!v_rel || !acc_rel || !acc_abs) {
        c->run->oom = 1;
        goto out;
    }
    read_until_test_pass(c, v_rel, "C5", &t);
    if (t.missing) {
        FIND(c, "C5", CK_SEV_ERROR, v_rel, 0, NULL, NULL, "%s is missing in %s", v_rel, tdir_rel);
        goto out;
    }
    if (!t.ok)
        goto out;
    int passed = c->unified ? text_has_stripped_line(&t, "TEST PASS")
                            : text_has_substring_line(&t, "TEST PASS");
    if (passed && c->unified)
        goto out;
    if (!ck_pexists(acc_abs)) {
        FIND(c, "C5", CK_SEV_ERROR, acc_rel, 0, NULL, NULL, "%s has no accuracy directory", tdir_rel);
        goto out;
    }
    char *diff = NULL;
    ck_files_diff(c->r, acc_abs,
                  ck_rget(c->r, passed ? "test01_accuracy_dir_files_when_pass"
                                       : "test01_accuracy_dir_files_when_fail"),
                  NULL, NULL, &diff);
    if (diff) {
        FIND(c, "C5", CK_SEV_ERROR, acc_rel, 0, NULL, diff, "%s has file list mismatch (%s)", acc_rel,
             diff);
        free(diff);
        goto out;
    }
    if (passed)
        goto out;
    /* non-deterministic mode: baseline vs compliance accuracy */
    const json_t *targets = ck_targets(c->r, "accuracy_targets", s->mlperf_model, s->scen_dir);
    double base[32], comp[32];
    for (int i = 0; i < 32; i++)
        base[i] = comp[i] = 0;
    textfile tb, tc;
    char *b_rel = ck_join(acc_rel, "baseline_accuracy.txt");
    char *c_rel = ck_join(acc_rel, "compliance_accuracy.txt");
    read_textfile(c, b_rel, "C5", 1, &tb);
    read_textfile(c, c_rel, "C5", 1, &tc);
    if (tb.ok)
        last_values(c, &tb, targets, base);
    if (tc.ok)
        last_values(c, &tc, targets, comp);
    if (!targets)
        FIND(c, "C5", CK_SEV_ERROR, acc_rel, 0, NULL, s->mlperf_model,
             "model %s has no accuracy targets", s->mlperf_model);
    for (size_t i = 0; targets && i < json_array_size(targets) && i < 32; i++) {
        const char *m = json_string_value(json_object_get(json_array_get(targets, i), "metric"));
        if (base[i] == 0 || comp[i] == 0) {
            FIND(c, "C5", CK_SEV_ERROR, acc_rel, 0, m, "0 or missing",
                 "Compliance test accuracy check (non-deterministic mode) in %s failed: %s "
                 "missing in baseline or compliance accuracy", tdir_rel, m ? m : "?");
            break;
        }
        double delta = fabs(1 - base[i] / comp[i]) * 100;
        double allowed = delta_allowed(c->r, s->mlperf_model, m ? m : "");
        if (!(delta <= allowed)) {
            char e1[48], e2[48];
            snprintf(e1, sizeof e1, "<= %g%%", allowed);
            snprintf(e2, sizeof e2, "%g%%", delta);
            FIND(c, "C5", CK_SEV_ERROR, acc_rel, 0, e1, e2,
                 "Compliance test accuracy check (non-deterministic mode) in %s failed: %s "
                 "differs by %g%% between baseline and compliance runs", tdir_rel, m, delta);
            break;
        }
    }
    free(tb.text);
    free(tc.text);
    free(b_rel);
    free(c_rel);
out:
    free(t.text);
    free(v_rel);
    free(acc_rel);
    free(acc_abs);
}

static void check_verify_file(sctx *c, const char *tdir_rel, const char *name, const char *id,
                              const char *test, int stripped_line)
{
    char *rel = ck_join(tdir_rel, name);
    textfile t;
    if (!strcmp(name, "verify_performance.txt"))
        read_until_test_pass(c, rel, id, &t);
    else
        read_textfile(c, rel, id, 1, &t);
    if (!t.missing && !t.ok)
        c->raises = 1; /* the reference raises reading it */
    if (t.missing)
        FIND(c, id, CK_SEV_ERROR, rel, 0, NULL, NULL, "%s is missing in %s", name, tdir_rel);
    else if (t.ok && !(stripped_line ? text_has_stripped_line(&t, "TEST PASS")
                                     : text_has_substring_line(&t, "TEST PASS")))
        FIND(c, id, CK_SEV_ERROR, rel, 0, "TEST PASS", NULL, "%s check in %s failed", test, tdir_rel);
    free(t.text);
    free(rel);
}

static void check_test06(sctx *c, const char *tdir_rel)
{
    char *rel = ck_join(tdir_rel, "verify_accuracy.txt");
    textfile t;
    read_textfile(c, rel, "C6", 1, &t);
    if (t.missing) {
        FIND(c, "C6", CK_SEV_ERROR, rel, 0, NULL, NULL, "verify_accuracy.txt is missing in %s",
             tdir_rel);
    } else if (t.ok) {
        const json_t *req = ck_rget(c->r, "test06_required_lines");
        const json_t *ft = json_object_get(req, "first_token");
        int first = 0;
        for (size_t i = 0; i < json_array_size(ft); i++)
            first |= text_has_stripped_line(&t, json_string_value(json_array_get(ft, i)));
        const char *eos_l = json_string_value(json_object_get(req, "eos"));
        const char *len_l = json_string_value(json_object_get(req, "length"));
        int eos = eos_l && text_has_stripped_line(&t, eos_l);
        int len = len_l && text_has_stripped_line(&t, len_l);
        if (!first || !eos || !len)
            FIND(c, "C6", CK_SEV_ERROR, rel, 0, "first token, EOS and sample length checks pass", NULL,
                 "TEST06 accuracy check failed. first_token_check: %s eos_check: %s "
                 "length_check: %s", first ? "True" : "False", eos ? "True" : "False",
                 len ? "True" : "False");
    }
    free(t.text);
    free(rel);
}

/* check_compliance_dir of the checkers v1.0.1 to v2.0 (switch compliance_last_test_decides): each
 * test of the list is only checked for its verify_performance.txt and performance/run_1, and the
 * perf verdict is the LAST test's (compliance_perf_pass is overwritten in the loop); TEST01 needs
 * verify_accuracy.txt and an accuracy/ directory (a failed TEST01 accuracy is accepted) */
static int compliance_last_test(sctx *c, const char *cdir_rel, const json_t *tests)
{
    ck_scen *s = c->s;
    int perf_pass = 1, acc_pass = 0;
    const json_t *skip = ck_rget(c->r, "compliance_skip_scenarios");
    for (size_t i = 0; i < json_array_size(tests); i++) {
        const char *test = json_string_value(json_array_get(tests, i));
        if (!test || ck_jlist_has(json_object_get(skip, test), s->scen_fixed))
            continue;
        char *tdir_rel = ck_join(cdir_rel, test);
        char *tdir_abs = tdir_rel ? absof(c, tdir_rel) : NULL;
        char *v_rel = tdir_rel ? ck_join(tdir_rel, "verify_performance.txt") : NULL;
        char *r_rel = tdir_rel ? ck_fmt("%s/performance/run_1", tdir_rel) : NULL;
        char *r_abs = r_rel ? absof(c, r_rel) : NULL;
        if (!tdir_abs || !v_rel || !r_abs) {
            c->run->oom = 1;
        } else if (!ck_pexists(tdir_abs)) {
            FIND(c, "C2", CK_SEV_ERROR, tdir_rel, 0, test, "missing",
                 "Missing %s in compliance dir %s", test, cdir_rel);
            perf_pass = 0;
        } else {
            textfile t;
            read_until_test_pass(c, v_rel, "C4", &t);
            if (!t.missing && !t.ok)
                c->raises = 1; /* check_compliance_perf_dir raises reading it: no verdict */
            perf_pass = t.ok && text_has_substring_line(&t, "TEST PASS");
            if (t.missing)
                FIND(c, "C4", CK_SEV_ERROR, v_rel, 0, NULL, NULL, "%s is missing in %s",
                     "verify_performance.txt", tdir_rel);
            else if (!perf_pass)
                FIND(c, "C4", CK_SEV_ERROR, v_rel, 0, "TEST PASS", NULL,
                     "Compliance test performance check in %s failed", tdir_rel);
            free(t.text);
            if (!ck_pexists(r_abs)) {
                FIND(c, "C4", CK_SEV_ERROR, r_rel, 0, NULL, NULL,
                     "%s has no performance/run_1 directory", tdir_rel);
                perf_pass = 0;
            }
        }
        free(tdir_rel);
        free(tdir_abs);
        free(v_rel);
        free(r_rel);
        free(r_abs);
    }
    char *t1 = ck_join(cdir_rel, "TEST01");
    char *va_rel = t1 ? ck_join(t1, "verify_accuracy.txt") : NULL;
    char *acc_rel = t1 ? ck_join(t1, "accuracy") : NULL;
    char *va_abs = va_rel ? absof(c, va_rel) : NULL;
    char *acc_abs = acc_rel ? absof(c, acc_rel) : NULL;
    if (!va_abs || !acc_abs) {
        c->run->oom = 1;
    } else if (!ck_pexists(va_abs)) {
        FIND(c, "C5", CK_SEV_ERROR, va_rel, 0, NULL, NULL, "verify_accuracy.txt is missing in %s", t1);
    } else {
        textfile va;
        read_until_test_pass(c, va_rel, "C5", &va); /* a raise is named there */
        free(va.text);
        if (va.ok && !ck_pexists(acc_abs))
            FIND(c, "C5", CK_SEV_ERROR, acc_rel, 0, NULL, NULL, "%s has no accuracy directory", t1);
        else if (va.ok)
            acc_pass = 1;
    }
    free(t1);
    free(va_rel);
    free(acc_rel);
    free(va_abs);
    free(acc_abs);
    return perf_pass && acc_pass;
}

static void group_compliance(sctx *c, const char *scen_rel)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    size_t start = s->f.n;
    s->comp_ok = 1;
    if (!s->closed)
        return;
    if (!c->unified && c->run->o->skip_compliance)
        return;
    s->comp_ran = 1;
    int split = !strcmp(json_string_value(ck_rget(r, "layout")) ?: "split", "split");
    char *cdir_rel = split ? ck_fmt("%s/%s/compliance/%s/%s/%s", s->division, s->submitter,
                                    s->system, s->model_dir, s->scen_dir)
                           : strdup(scen_rel);
    char *cdir_abs = cdir_rel ? absof(c, cdir_rel) : NULL;
    if (!cdir_abs) {
        c->run->oom = 1;
        goto out;
    }
    const json_t *tests = ck_rget2(r, "compliance_tests", s->mlperf_model);
    int has06 = ck_jlist_has(tests, "TEST06");
    if (json_array_size(tests) && !ck_pexists(cdir_abs)) {
        FIND(c, "C1", CK_SEV_ERROR, cdir_rel, 0, NULL, NULL, "no compliance dir for %s: %s", s->rel,
             cdir_rel);
        goto out;
    }
    if (r->sw.compliance_last_decides) {
        int ok = compliance_last_test(c, cdir_rel, tests);
        s->comp_ok = ok;
        goto rejects;
    }
    const json_t *skip_sc = ck_rget(r, "compliance_skip_scenarios");
    for (size_t i = 0; i < json_array_size(tests); i++) {
        const char *test = json_string_value(json_array_get(tests, i));
        if (!test || ck_jlist_has(json_object_get(skip_sc, test), s->scen_fixed))
            continue;
        char *tdir_rel = ck_join(cdir_rel, test);
        char *tdir_abs = tdir_rel ? absof(c, tdir_rel) : NULL;
        if (!tdir_abs) {
            free(tdir_rel);
            c->run->oom = 1;
            break;
        }
        if (!ck_pexists(tdir_abs)) {
            FIND(c, "C2", CK_SEV_ERROR, tdir_rel, 0, test, "missing", "Missing %s in compliance dir %s",
                 test, cdir_rel);
        } else {
            /* TEST05 (rules up to v4.1) is a performance test like TEST01/TEST04:
             * check_compliance_dir runs check_performance_dir on each test of its list */
            int perf_test = !strcmp(test, "TEST01") || !strncmp(test, "TEST04", 6) ||
                            !strcmp(test, "TEST05");
            if (perf_test && !(has06 && !c->unified)) {
                /* C4: verdict file and run files */
                check_verify_file(c, tdir_rel, "verify_performance.txt", "C4",
                                  "Compliance test performance", 0);
                char *run_rel = ck_fmt("%s/performance/run_1", tdir_rel);
                char *run_abs = run_rel ? absof(c, run_rel) : NULL;
                char *log_rel = run_rel ? ck_join(run_rel, "mlperf_log_detail.txt") : NULL;
                if (!run_abs || !ck_pexists(run_abs)) {
                    FIND(c, "C4", CK_SEV_ERROR, run_rel, 0, NULL, NULL,
                         "%s has no performance/run_1 directory", tdir_rel);
                } else {
                    char *diff = NULL;
                    ck_files_diff(r, run_abs, ck_rget(r, "compliance_perf_dir_required_files"),
                                  ck_rget(r, "perf_dir_optional_files"), NULL, &diff);
                    if (diff && !c->unified) {
                        FIND(c, "C4", CK_SEV_ERROR, run_rel, 0, NULL, diff,
                             "%s has file list mismatch (%s)", run_rel, diff);
                    }
                    free(diff);
                    char *log_abs = absof(c, log_rel);
                    if (ck_isfile(log_abs) && r->sw.compliance_perf_checked) {
                        /* C3: the compliance run passes the performance checks */
                        ck_dlog d;
                        memset(&d, 0, sizeof d);
                        size_t before = s->f.n;
                        if (load_dlog(c, log_rel, "C3", &d)) {
                            pctx p = {c, test, s->scen_fixed, log_rel, 1};
                            ck_value v = {0};
                            int inf = 0;
                            check_perf_log(&p, &d, &v, &inf, NULL);
                        } else {
                            for (size_t k = before; k < s->f.n; k++)
                                s->f.v[k].id = "C3";
                        }
                        ck_dlog_free(&d);
                    } else if (c->unified) {
                        FIND(c, "C4", CK_SEV_ERROR, log_rel, 0, NULL, NULL, "%s is missing", log_rel);
                    }
                    free(log_abs);
                }
                free(run_rel);
                free(run_abs);
                free(log_rel);
            }
            if (!strcmp(test, "TEST01"))
                check_test01_accuracy(c, tdir_rel);
            else if (!strcmp(test, "TEST06"))
                check_test06(c, tdir_rel);
            else if (!strcmp(test, "TEST07"))
                check_verify_file(c, tdir_rel, "verify_accuracy.txt", "C7", "TEST07 accuracy", 0);
            else if (!strcmp(test, "TEST08"))
                check_verify_file(c, tdir_rel, "verify_accuracy.txt", "C8",
                                  "Compliance test TEST08 accuracy", 1);
            else if (!strcmp(test, "TEST09"))
                check_verify_file(c, tdir_rel, "verify_output_len.txt", "C9",
                                  "TEST09 output length", 0);
        }
        free(tdir_rel);
        free(tdir_abs);
    }
out:
    s->comp_ok = !any_counting(c->run, &s->f, start);
rejects:
    /* compliance_failure_rejects_result false (v1.0 to v2.0): the checker logs these errors
     * but keeps the result (only the compliance column says 0), so they do not count; unless
     * it raised on a verify file it could not read (no verdict: the errors stay) */
    if (!r->sw.compliance_rejects && !c->raises)
        for (size_t k = start; k < s->f.n; k++)
            if (s->f.v[k].sev == CK_SEV_ERROR)
                s->f.v[k].sev = CK_SEV_WARNING;
    free(cdir_rel);
    free(cdir_abs);
}

/* ------------------------------------------------------------------ task ---- */

void ck_eval_scenario(ck_state *run, ck_scen *s)
{
    sctx c;
    memset(&c, 0, sizeof c);
    c.run = run;
    c.s = s;
    c.r = &run->rules;
    c.unified = run->rules.unified;
    c.w = (ck_where){s->division, s->submitter, s->system, s->model_dir, s->scen_dir};
    const char *scen_rel = s->rel;
    char *power_abs = ck_join3(s->abs, "performance", "power");
    s->has_power = power_abs && ck_isdir(power_abs);
    free(power_abs);

    if (!c.unified) {
        size_t mstart = s->f.n;
        if (!group_measurements(&c, scen_rel)) {
            if (c.r->sw.measurement_stops) {
                s->stage = 1;
                s->errors = 1;
                return;
            }
            /* v0.7.1: the result is still checked; the measurement key is nulled only for a
             * missing directory or required file (E1/E2), as check_measurement_dir's is_valid */
            s->errors++;
            int null_key = 0;
            for (size_t i = mstart; i < s->f.n; i++)
                null_key |= !strcmp(s->f.v[i].id, "E1") || !strcmp(s->f.v[i].id, "E2");
            if (!null_key) {
                free(s->meas_key);
                s->meas_key = NULL;
            }
        }
        if (!group_accuracy(&c, scen_rel)) {
            s->errors = 1;
            return;
        }
        if (!s->acc_ok)
            s->errors++;
        if (c.r->sw.result_from_summary) {
            /* v0.7.1: results from the summary file; no power or compliance checks */
            group_performance_summary(&c, scen_rel);
            if (s->perf_ran && !s->perf_ok)
                s->errors++;
            s->power_metric = 0;
            s->comp_ok = 1;
            return;
        }
        size_t start = s->f.n;
        ck_dlog log;
        memset(&log, 0, sizeof log);
        int log_ok = 0;
        group_performance(&c, scen_rel, &log, &log_ok);
        if (s->perf_ran && s->has_power)
            group_power(&c, scen_rel, &log, log_ok);
        ck_dlog_free(&log);
        s->perf_ok = s->perf_ran && !any_counting(run, &s->f, start) && s->value.set;
        s->power_ok = s->perf_ok;
        if (!s->perf_ok || !(s->power_metric > 0))
            s->power_metric = 0;
        if (s->perf_ran && !s->perf_ok)
            s->errors++;
        group_compliance(&c, scen_rel);
        return;
    }

    /* unified: every group, no short-circuit */
    group_measurements(&c, scen_rel);
    group_accuracy(&c, scen_rel);
    size_t start = s->f.n;
    ck_dlog log;
    memset(&log, 0, sizeof log);
    int log_ok = 0;
    group_performance(&c, scen_rel, &log, &log_ok);
    s->perf_ok = log_ok && !any_counting(run, &s->f, start) && s->value.set;
    start = s->f.n;
    s->power_ok = 1;
    if (s->has_power) {
        group_power(&c, scen_rel, &log, log_ok);
        s->power_ok = !any_counting(run, &s->f, start);
    }
    ck_dlog_free(&log);
    group_compliance(&c, scen_rel);
}

void ck_scen_free(ck_scen *s)
{
    ck_flist_free(&s->f);
    free(s->acc_str);
    free(s->effective_scenario);
    json_decref(s->weight_data_types);
    free(s->meas_key);
    free(s->rel);
    free(s->abs);
}

void ck_scens_free(ck_scen *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ck_scen_free(&v[i]);
    free(v);
}
