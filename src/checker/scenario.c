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

#include "checker/scen.h"
#include "common/pyfmt.h"

static int counting(const ck_state *run, const ck_finding *f)
{
    if (f->waived)
        return 0;
    return f->sev == CK_SEV_ERROR || (f->sev == CK_SEV_WARNING && run->o->strict);
}

/* 1 if a finding from index `from` on counts against the verdict */
int any_counting(const ck_state *run, const ck_flist *l, size_t from)
{
    for (size_t i = from; i < l->n; i++)
        if (counting(run, &l->v[i]))
            return 1;
    return 0;
}

char *absof(const sctx *c, const char *rel)
{
    return ck_join(c->run->root, rel);
}

char *join_abs(const sctx *c, const char *base, const char *name, char **abs)
{
    char *rel = ck_join(base, name);
    *abs = rel ? absof(c, rel) : NULL;
    if (!*abs) {
        free(rel);
        c->run->oom = 1;
        return NULL;
    }
    return rel;
}

/* -------------------------------------------------------------- text files ---- */

/* Reads a text file; reports R1/ L-style problems under `id` when report is set. */
void read_textfile_ex(sctx *c, const char *rel, const char *id, int report,
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

void read_textfile(sctx *c, const char *rel, const char *id, int report, textfile *t)
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

int text_has_substring_line(const textfile *t, const char *needle)
{
    return text_has_line(t, needle, 0);
}

int text_has_stripped_line(const textfile *t, const char *s)
{
    return text_has_line(t, s, 1);
}

/* ---------------------------------------------------------------- detail logs ---- */

/* Loads a detail log and reports L1 problems. Returns 1 if usable. */
int load_dlog(sctx *c, const char *rel, const char *id, ck_dlog *d)
{
    char *abs = absof(c, rel);
    if (!abs) {
        c->run->oom = 1;
        return 0;
    }
    ms_err e;
    ck_kept *k = NULL;
    for (size_t i = 0; i < CK_KEPT_LOGS; i++)
        if (c->kept[i].rel && !c->kept[i].text && !strcmp(c->kept[i].rel, rel))
            k = &c->kept[i];
    int rc = k ? ck_dlog_load_keep(d, abs, CK_POWER_TEXT_MAX, &k->text, &k->len, &e)
               : ck_dlog_load(d, abs, &e);
    /* the reader checked every line with a byte >= 0x80, and no line was too long to read */
    if (k && k->text)
        k->utf8_ok = !d->bad_utf8;
    if (!rc && !d->n && !d->nbad && !d->first_line_is_record)
        rc = ck_dlog_text_errors(d, abs, &e);  /* LoadGen 0.5/0.7 text log (textlog.h) */
    free(abs);
    if (rc) {
        FIND(c, id, CK_SEV_ERROR, rel, 0, NULL, NULL, "%s", e.msg);
        return 0;
    }
    if (d->nbad) {
        FIND(c, CK_ID(L1), CK_SEV_ERROR, rel, (long)d->first_bad_line, "valid JSON after :::MLLOG",
             d->bad_msg, "malformed :::MLLOG record (%s); %zu such line(s) make the whole log "
             "unparsable", d->bad_msg, d->nbad);
        return 0;
    }
    if (d->bad_utf8) {
        FIND(c, CK_ID(L1), CK_SEV_ERROR, rel, (long)d->bad_utf8_line, "UTF-8 text", "an invalid byte",
             "the detail log is not valid UTF-8");
        return 0;
    }
    if (c->unified && !d->first_line_is_record) {
        FIND(c, CK_ID(L1), CK_SEV_ERROR, rel, 1, ":::MLLOG record", "another line",
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
void check_log_errors(sctx *c, const ck_dlog *d, const char *rel, const char *id,
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

/* ---------------------------------------------------------------- profiles ---- */

const ck_profile ck_profiles[2] = {
    /* legacy: check_accuracy_dir / check_performance_dir of submission_checker.py */
    {.a7_dataset_size = CK_SEV_WARNING, .p2_invalid = CK_SEV_ERROR, .p9_early_stopping = CK_SEV_WARNING,
     .p11_latency = CK_SEV_WARNING, .logged_note = " (the legacy checker only logs this)", .p2_note = "",
     .token_limits_by_log = 0, .p11_by_dir = 0, .verify_stripped_line = 0, .scenario_casefold = 0},
    /* unified: the submission_checker package's accuracy, performance and compliance checks */
    {.a7_dataset_size = CK_SEV_ERROR, .p2_invalid = CK_SEV_WARNING, .p9_early_stopping = CK_SEV_ERROR,
     .p11_latency = CK_SEV_ERROR, .logged_note = "", .p2_note = " (the unified checker does not check it)",
     .token_limits_by_log = 1, .p11_by_dir = 1, .verify_stripped_line = 1, .scenario_casefold = 1},
};

/* ------------------------------------------------------------------ task ---- */

static void eval_scenario(ck_state *run, ck_scen *s, ck_kept *kept);

void ck_eval_scenario(ck_state *run, ck_scen *s)
{
    ck_kept kept[CK_KEPT_LOGS];
    memset(kept, 0, sizeof kept);
    eval_scenario(run, s, kept);
    for (size_t i = 0; i < CK_KEPT_LOGS; i++) {
        free(kept[i].rel);
        free(kept[i].text);
    }
}

/* the ranging and run_1 detail logs that W4 will read whole (scen_power.c, power.c) */
static void keep_power_logs(sctx *c, const char *scen_rel)
{
    if (!(c->r->sw.power_wg_default || c->run->o->more_power_check) ||
        ck_skipped(c->run, CK_ID(W4)))
        return;
    static const char *const runs[CK_KEPT_LOGS] = {"ranging", "run_1"};
    for (int i = 0; i < CK_KEPT_LOGS; i++) {
        char *dir = ck_join3(scen_rel, "performance", runs[i]);
        c->kept[i].rel = dir ? ck_join(dir, "mlperf_log_detail.txt") : NULL;
        free(dir);
    }
}

static void eval_scenario(ck_state *run, ck_scen *s, ck_kept *kept)
{
    sctx c;
    memset(&c, 0, sizeof c);
    c.kept = kept;
    c.run = run;
    c.s = s;
    c.r = &run->rules;
    c.unified = run->rules.unified;
    c.pp = &ck_profiles[!!c.unified];
    c.w = (ck_where){s->division, s->submitter, s->system, s->model_dir, s->scen_dir};
    const char *scen_rel = s->rel;
    char *power_abs = ck_join3(s->abs, "performance", "power");
    s->has_power = power_abs && ck_isdir(power_abs);
    free(power_abs);
    if (s->has_power)
        keep_power_logs(&c, scen_rel);

    if (!c.unified) {
        size_t mstart = s->f.n;
        if (!group_measurements(&c, scen_rel)) {
            if (c.r->sw.measurement_stops) {
                s->stage = 1;
                s->errors = 1;
                return;
            }
            /* v0.7.1: the result is still checked; the measurement key is nulled only for a
             * missing directory or required file (E1/E2) or a required field missing from the
             * implementation JSON (E4 "field ... is missing"), as check_measurement_dir's
             * is_valid */
            s->errors++;
            int null_key = 0;
            for (size_t i = mstart; i < s->f.n; i++) {
                const ck_finding *f = &s->f.v[i];
                null_key |= !strcmp(f->id, CK_ID(E1)) || !strcmp(f->id, CK_ID(E2)) ||
                            (!strcmp(f->id, CK_ID(E4)) && f->expected &&
                             !strcmp(f->expected, "present") && f->sev == CK_SEV_ERROR);
            }
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
    free(s->wdt_rel);
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
