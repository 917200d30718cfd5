/* au_verify: finds the logs, runs the verifiers of a test, writes the verify files (and, with an
 * output directory, the TESTxx tree), and the STRICT report (see audit.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit_int.h"
#include "common/fsutil.h"

void au_verify_opts_default(au_verify_opts *o)
{
    memset(o, 0, sizeof *o);
    o->test = AU_TEST01;
    o->mode = AU_COMPAT;
    o->verify_dir = ".";
    o->dtype = AU_DT_BYTE;
}

void au_verify_result_free(au_verify_result *res)
{
    ms_buf_free(&res->notes);
    ms_buf_free(&res->strict_report);
}

/* The logs of a run directory: a LoadGen output directory, or a placed TESTxx / scenario
 * directory (performance/run_1/, accuracy/). */
typedef struct runlogs {
    char *detail, *summary, *accuracy;
} runlogs;

static void runlogs_free(runlogs *l)
{
    free(l->detail);
    free(l->summary);
    free(l->accuracy);
    memset(l, 0, sizeof *l);
}

static int find_logs(const char *dir, runlogs *l)
{
    memset(l, 0, sizeof *l);
    char *raw = au_path3(dir, "mlperf_log_detail.txt", NULL);
    char *placed = au_path3(dir, "performance/run_1", NULL);
    if (!raw || !placed) {
        free(raw);
        free(placed);
        return -1;
    }
    const char *perf = ms_path_exists(raw) || !ms_is_dir(placed) ? dir : placed;
    int is_raw = perf == dir;
    l->detail = au_path3(perf, "mlperf_log_detail.txt", NULL);
    l->summary = au_path3(perf, "mlperf_log_summary.txt", NULL);
    l->accuracy = au_path3(dir, is_raw ? NULL : "accuracy", "mlperf_log_accuracy.json");
    if (l->accuracy && is_raw && !ms_path_exists(l->accuracy)) {
        /* a placed folder without performance/ (TEST06): accuracy/ only */
        char *acc = au_path3(dir, "accuracy", "mlperf_log_accuracy.json");
        if (acc && ms_path_exists(acc)) {
            free(l->accuracy);
            l->accuracy = acc;
        } else {
            free(acc);
        }
    }
    free(raw);
    free(placed);
    if (!l->detail || !l->summary || !l->accuracy) {
        runlogs_free(l);
        return -1;
    }
    return 0;
}

static int write_text(const char *dir, const char *name, const ms_buf *b, char *path_out, size_t n, ms_err *e)
{
    char *p = au_path3(dir, name, NULL);
    if (!p)
        return ms_err_oom(e);
    if (path_out)
        snprintf(path_out, n, "%s", p);
    int rc = ms_write_file_atomic(p, b->data ? b->data : "", b->len, e);
    free(p);
    return rc;
}

static int copy_into(const char *src, const char *dir, const char *name, int required, ms_buf *notes, ms_err *e)
{
    char *dst = au_path3(dir, name, NULL);
    if (!dst)
        return ms_err_oom(e);
    int rc = MS_OK;
    if (!ms_is_regular_file(src)) {
        if (required)
            au_note(notes, "%s: missing, not copied into %s", src, dir);
    } else {
        rc = au_copy_file(src, dst, e);
    }
    free(dst);
    return rc;
}

static void remove_in(const char *dir, const char *name)
{
    char *p = au_path3(dir, name, NULL);
    if (p && ms_is_regular_file(p))
        unlink(p);
    free(p);
}

/* STRICT record count: the logged count against p * N within k sigma. */
static void record_count_check(au_rep *rep, const au_rules *r, const char *detail, uint64_t count)
{
    ms_mllog log;
    char why[2048];
    if (au_load_detail(detail, &log, why, sizeof why) != 0) {
        au_rep_check(rep, AU_FAILED, "accuracy-log record count: %s", why);
        return;
    }
    double p;
    uint64_t n;
    if (au_expected_sampling(&log, &p, &n, why, sizeof why) != 0) {
        au_rep_check(rep, AU_FAILED, "accuracy-log record count: %s", why);
        ms_mllog_free(&log);
        return;
    }
    ms_mllog_free(&log);
    double k = au_rules_sigmas(r);
    if (p >= 1) {
        au_rep_check(rep, count == n ? AU_PASSED : AU_FAILED,
                     "accuracy-log record count: %llu, expected every one of the %llu issued samples (p = %.6g >= 1)",
                     (unsigned long long)count, (unsigned long long)n, p);
        return;
    }
    double mean = p * (double)n, lim = k * sqrt(mean);
    int ok = fabs((double)count - mean) <= lim;
    au_rep_check(rep, ok ? AU_PASSED : AU_FAILED,
                 "accuracy-log record count: %llu, expected p*N = %.6g * %llu = %.1f +- %.1f (%g sigma)",
                 (unsigned long long)count, p, (unsigned long long)n, mean, lim, k);
}

static void strict_applied(au_rep *rep, const au_verify_opts *o, const au_rules *r, const char *detail,
                           const char *model, long long acc_records)
{
    ms_mllog log;
    char why[2048];
    if (au_load_detail(detail, &log, why, sizeof why) != 0) {
        au_rep_check(rep, AU_FAILED, "audit.config applied: %s", why);
        return;
    }
    uint64_t seeds[3];
    const uint64_t *sp = o->test05_seeds;
    if (o->test == AU_TEST05 && !sp) {
        char *ver = ms_mllog_get_str(&log, "loadgen_version");
        const char *round = au_rules_round_of_version(r, ver);
        if (round && au_rules_test05_seeds(r, round, seeds) == 0)
            sp = seeds;
        free(ver);
    }
    au_check_applied(rep, o->test, &log, r, au_rules_sampling_target(r, model), sp, acc_records);
    ms_mllog_free(&log);
}

typedef struct vctx {
    const au_verify_opts *o;
    const au_rules *r;
    au_verify_result *res;
    runlogs ref, aud, uni;
    char *ref_acc;
    char *out_dir;        /* where the verify files go */
    char *test_dir;       /* output TESTxx, or NULL */
    const char *model;
    char model_buf[128];
    au_rep rep;
} vctx;

static int do_test01(vctx *c, ms_err *e)
{
    const au_verify_opts *o = c->o;
    au_verify_result *res = c->res;
    au_t01 t = {.ref_log = c->ref_acc, .test_log = c->aud.accuracy, .dtype = o->dtype, .unixmode = o->unixmode,
                .strict = o->mode == AU_STRICT};
    ms_buf acc = MS_BUF_INIT, perf = MS_BUF_INIT;
    int rc = au_test01_accuracy(&t, &acc, &c->rep, &res->notes, e);
    if (rc == MS_OK)
        rc = au_test01_performance(c->r, c->ref.detail, c->aud.detail, &perf, &res->performance_pass,
                                   &res->ref_score, &res->test_score, &res->notes);
    if (rc == MS_EINPUT) {
        res->input_error = 1;
        rc = MS_OK;
    }
    res->have_scores = res->ref_score != 0 || res->test_score != 0;
    res->accuracy_pass = t.pass;
    res->input_error |= t.input_error;
    res->perf_entries = t.perf_entries;
    res->qsl_match = t.qsl_match;
    res->data_mismatch = t.data_mismatch;
    res->full_mismatch = t.full_mismatch;
    if (rc == MS_OK)
        rc = write_text(c->out_dir, "verify_accuracy.txt", &acc, res->verify_accuracy_path,
                        sizeof res->verify_accuracy_path, e);
    if (rc == MS_OK)
        rc = write_text(c->out_dir, "verify_performance.txt", &perf, res->verify_performance_path,
                        sizeof res->verify_performance_path, e);
    ms_buf_free(&acc);
    ms_buf_free(&perf);
    if (rc != MS_OK)
        return rc;

    char *acc_dir = au_path3(c->test_dir ? c->test_dir : c->out_dir, c->test_dir ? "accuracy" : NULL, NULL);
    if (!acc_dir)
        return ms_err_oom(e);
    if (c->test_dir && (rc = ms_mkdir_p(acc_dir, e)) != MS_OK) {
        free(acc_dir);
        return rc;
    }
    /* the non-determinism fallback, only on an accuracy FAIL (v5.1 exact-set rule, Q11) */
    if (!t.pass && !t.input_error && o->scorer != AU_SCORER_NONE) {
        char tmpl[] = "/tmp/mlsubmit-baseline-XXXXXX";
        char *work = mkdtemp(tmpl);
        au_fallback f = {.scorer = o->scorer, .data_dir = o->data_dir, .work_dir = work,
                         .allowed_pct = au_rules_fallback_delta(c->r, c->model)};
        if (!work) {
            rc = ms_err_errno(e, MS_ERUNTIME, errno, "mkdtemp %s", tmpl);
        } else {
            rc = au_test01_fallback(c->ref_acc, c->aud.accuracy, &f, e);
            char *bp = au_path3(work, "mlperf_log_accuracy_baseline.json", NULL);
            if (bp)
                unlink(bp);
            free(bp);
            rmdir(work);
        }
        if (rc == MS_OK) {
            ms_buf b1 = {f.baseline_text, strlen(f.baseline_text), 0};
            ms_buf b2 = {f.compliance_text, strlen(f.compliance_text), 0};
            rc = write_text(acc_dir, "baseline_accuracy.txt", &b1, NULL, 0, e);
            if (rc == MS_OK)
                rc = write_text(acc_dir, "compliance_accuracy.txt", &b2, NULL, 0, e);
            res->fallback_run = 1;
            res->fallback_pass = f.pass;
            res->fallback_baseline = f.baseline;
            res->fallback_compliance = f.compliance;
            res->fallback_delta_pct = f.delta_pct;
            res->fallback_allowed_pct = f.allowed_pct;
        } else if (e->code == MS_EINPUT) {
            au_note(&res->notes, "fallback not produced: %s", e->msg);
            res->input_error = 1;
            ms_err_clear(e);
            rc = MS_OK;
        }
        au_fallback_free(&f);
    } else if (t.pass && c->test_dir) {
        remove_in(acc_dir, "baseline_accuracy.txt");
        remove_in(acc_dir, "compliance_accuracy.txt");
    } else if (!t.pass && !t.input_error) {
        au_note(&res->notes, "accuracy FAIL and no accuracy scorer: the fallback files (baseline_accuracy.txt, compliance_accuracy.txt) were not produced");
    }
    if (rc == MS_OK && c->test_dir) {
        rc = copy_into(c->aud.accuracy, acc_dir, "mlperf_log_accuracy.json", 1, &res->notes, e);
        char *acctxt = au_path3(acc_dir, "accuracy.txt", NULL);
        if (!acctxt)
            rc = ms_err_oom(e);
        if (rc == MS_OK && !ms_path_exists(acctxt)) {
            /* the packaging step appends hash=...; the checker (v5.1) requires the file */
            char *text = NULL;
            double m;
            ms_err e2 = {0};
            if (o->scorer != AU_SCORER_NONE && !t.input_error &&
                au_score_log(o->scorer, o->data_dir, c->ref_acc, c->aud.accuracy, &text, &m, &e2) != MS_OK)
                au_note(&res->notes, "accuracy.txt left empty: %s", e2.msg);
            rc = ms_write_file_atomic(acctxt, text ? text : "", text ? strlen(text) : 0, e);
            free(text);
        }
        free(acctxt);
    }
    free(acc_dir);
    if (rc != MS_OK)
        return rc;
    res->compat_pass = res->performance_pass && (res->accuracy_pass || (res->fallback_run && res->fallback_pass));
    if (o->mode == AU_STRICT) {
        strict_applied(&c->rep, o, c->r, c->aud.detail, c->model, t.input_error ? -1 : (long long)t.perf_entries);
        if (!t.input_error)
            record_count_check(&c->rep, c->r, c->aud.detail, t.perf_entries);
        au_strict_test01_performance(&c->rep, c->r, c->ref.detail, c->aud.detail);
    }
    return MS_OK;
}

static int do_summary_test(vctx *c, ms_err *e)
{
    const au_verify_opts *o = c->o;
    au_verify_result *res = c->res;
    ms_buf perf = MS_BUF_INIT;
    int rc = au_summary_performance(c->r, o->test, c->ref.summary, c->aud.summary, &perf, &res->performance_pass,
                                    &res->ref_score, &res->test_score, &res->notes);
    if (rc == MS_EINPUT) {
        res->input_error = 1;
        rc = MS_OK;
    }
    res->have_scores = res->ref_score != 0 || res->test_score != 0;
    if (rc == MS_OK)
        rc = write_text(c->out_dir, "verify_performance.txt", &perf, res->verify_performance_path,
                        sizeof res->verify_performance_path, e);
    ms_buf_free(&perf);
    if (rc != MS_OK)
        return rc;
    res->accuracy_pass = 1;
    res->compat_pass = res->performance_pass;
    if (o->mode == AU_STRICT) {
        strict_applied(&c->rep, o, c->r, c->aud.detail, c->model, -1);
        au_strict_performance(&c->rep, c->r, o->test, c->ref.summary, c->aud.summary, c->ref.detail, c->aud.detail,
                              o->unique_dir ? c->uni.summary : NULL);
    }
    return MS_OK;
}

static int place_perf_logs(vctx *c, ms_err *e)
{
    if (!c->test_dir)
        return MS_OK;
    char *pd = au_path3(c->test_dir, "performance/run_1", NULL);
    if (!pd)
        return ms_err_oom(e);
    int rc = ms_mkdir_p(pd, e);
    if (rc == MS_OK)
        rc = copy_into(c->aud.summary, pd, "mlperf_log_summary.txt", 1, &c->res->notes, e);
    if (rc == MS_OK)
        rc = copy_into(c->aud.detail, pd, "mlperf_log_detail.txt", 1, &c->res->notes, e);
    free(pd);
    return rc;
}

/* TEST06-TEST09: the verdict file, then the logs placed as upstream's scripts copy them
 * (accuracy/ always, performance/run_1/ except for TEST06). */
static int do_bench_test(vctx *c, ms_err *e)
{
    const au_verify_opts *o = c->o;
    au_llm_in in = {.r = c->r, .test = o->test, .mode = o->mode, .model = c->model, .scenario = o->scenario,
                    .ref_acc = o->reference_dir ? c->ref_acc : NULL, .acc = c->aud.accuracy,
                    .detail = ms_is_regular_file(c->aud.detail) ? c->aud.detail : NULL, .data_dir = o->data_dir,
                    .accuracy_script = o->accuracy_script};
    if (!c->model) {
        c->res->input_error = 1;
        au_note(&c->res->notes, "no model: give --model (the directory names do not name one the rules know)");
        return MS_EINPUT;
    }
    int rc = au_llm_verify(&in, c->out_dir, c->res, &c->rep, e);
    if (rc != MS_OK || !c->test_dir)
        return rc;
    char *acc_dir = au_path3(c->test_dir, "accuracy", NULL);
    if (!acc_dir)
        return ms_err_oom(e);
    if ((rc = ms_mkdir_p(acc_dir, e)) == MS_OK)
        rc = copy_into(c->aud.accuracy, acc_dir, "mlperf_log_accuracy.json", 1, &c->res->notes, e);
    free(acc_dir);
    if (rc == MS_OK && o->test != AU_TEST06)
        rc = place_perf_logs(c, e);
    return rc;
}

int au_verify(const au_verify_opts *o, const au_rules *r, au_verify_result *res, ms_err *e)
{
    memset(res, 0, sizeof *res);
    if ((!o->reference_dir && (!AU_IS_BENCH_TEST(o->test) || o->test == AU_TEST08)) || !o->audit_dir)
        return ms_err_set(e, MS_EUSAGE, "%s needs %san audit directory", au_test_name(o->test),
                          AU_IS_BENCH_TEST(o->test) && o->test != AU_TEST08 ? "" : "a reference directory and ");
    vctx c = {.o = o, .r = r, .res = res};
    c.rep.b = &res->strict_report;
    int rc = MS_OK;
    if ((o->reference_dir && find_logs(o->reference_dir, &c.ref) != 0) || find_logs(o->audit_dir, &c.aud) != 0 ||
        (o->unique_dir && find_logs(o->unique_dir, &c.uni) != 0)) {
        rc = ms_err_oom(e);
        goto out;
    }
    c.ref_acc = au_path3(o->reference_dir ? o->reference_dir : ".", "accuracy/mlperf_log_accuracy.json", NULL);
    c.model = o->model;
    if (!c.model)
        c.model = au_model_from_path(r, o->audit_dir, c.model_buf, sizeof c.model_buf);
    if (!c.model && o->reference_dir)
        c.model = au_model_from_path(r, o->reference_dir, c.model_buf, sizeof c.model_buf);
    if (o->output_dir) {
        c.test_dir = au_path3(o->output_dir, au_test_name(o->test), NULL);
        c.out_dir = c.test_dir ? strdup(c.test_dir) : NULL;
    } else {
        c.out_dir = strdup(o->verify_dir ? o->verify_dir : ".");
    }
    if (!c.ref_acc || !c.out_dir || (o->output_dir && !c.test_dir)) {
        rc = ms_err_oom(e);
        goto out;
    }
    /* TEST06-TEST09 create it only with a verdict (nothing is written for an unusable input) */
    if (!AU_IS_BENCH_TEST(o->test) && (rc = ms_mkdir_p(c.out_dir, e)) != MS_OK)
        goto out;
    if (o->mode == AU_STRICT) {
        res->strict_run = 1;
        ms_buf_printf(&res->strict_report,
                      "STRICT %s checks (README, Audits); not part of the COMPAT verify files\n"
                      "reference: %s\naudited run: %s\nmodel: %s\n",
                      au_test_name(o->test), o->reference_dir ? o->reference_dir : "(none)", o->audit_dir,
                      c.model ? c.model : "(unknown)");
    }
    if (AU_IS_BENCH_TEST(o->test)) {
        rc = do_bench_test(&c, e);
        if (rc == MS_EINPUT && res->input_error) {
            ms_err_set(e, MS_EINPUT, "%s", res->notes.data ? res->notes.data : "an input could not be used");
            goto out;
        }
    } else {
        rc = o->test == AU_TEST01 ? do_test01(&c, e) : do_summary_test(&c, e);
        if (rc == MS_OK)
            rc = place_perf_logs(&c, e);
    }
    if (rc != MS_OK)
        goto out;
    if (o->mode == AU_STRICT) {
        res->strict_pass = res->compat_pass && c.rep.fails == 0;
        ms_buf_printf(&res->strict_report, "COMPAT verdict: %s\nSTRICT verdict: %s (%d passed, %d failed, %d skipped)\n",
                      res->compat_pass ? "PASS" : "FAIL", res->strict_pass ? "PASS" : "FAIL", c.rep.passes,
                      c.rep.fails, c.rep.skips);
        if (o->strict_report_path)
            rc = ms_write_file_atomic(o->strict_report_path, res->strict_report.data, res->strict_report.len, e);
    }
    if (rc == MS_OK && res->input_error)
        rc = ms_err_set(e, MS_EINPUT, "an input could not be used (see the notes)");
out:
    runlogs_free(&c.ref);
    runlogs_free(&c.aud);
    runlogs_free(&c.uni);
    free(c.ref_acc);
    free(c.out_dir);
    free(c.test_dir);
    return rc;
}
