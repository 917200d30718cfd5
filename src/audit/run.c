/* au_run: a whole audit with the embedded LoadGen (the procedure of each
 * compliance/TESTxx/README.md): the reference run(s) the test compares against, the audited run
 * with the test's audit.config (applied by the LoadGen exactly as the reference does: model '*',
 * from a file), verification, and the TESTxx tree. Every run gets a fresh SUT instance and a fresh
 * configuration session, as separate processes would upstream (a caching SUT starts cold in each
 * run). */
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit_int.h"
#include "common/fsutil.h"

void au_run_opts_default(au_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->test = AU_TEST01;
    o->mode = AU_COMPAT;
    o->scenario = LG_OFFLINE;
    o->compat = LG_COMPAT_LATEST;
    o->data_dir = NULL; /* the default places (loadgen/digits.h digits_find_dir) */
    o->layout = AU_LAYOUT_UNIFIED;
    o->dtype = AU_DT_INT32;
}

void au_run_result_free(au_run_result *res)
{
    au_verify_result_free(&res->v);
}

static void note(const au_run_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const au_run_opts *o, const char *fmt, ...)
{
    if (!o->note)
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    o->note(o->note_ctx, msg);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

typedef struct run_info {
    int valid;
    double metric;
    size_t errors;
    char qsl_name[128];
} run_info;

/* One LoadGen run into outdir; audit_config NULL = none (a stray ./audit.config is not used). */
static int one_run(const au_run_opts *o, lg_mode mode, const char *outdir, const char *audit_config, run_info *ri,
                   ms_err *e)
{
    /* settings as a submission run would have them; the test decides scenario and mode */
    lg_run_spec sp = {.scenario = o->scenario, .mode = (int)mode, .lock_scenario_mode = 1, .model = o->model,
                      .mlperf_conf = o->mlperf_conf, .user_conf = o->user_conf,
                      .sets = (const char *const *)o->sets, .nsets = o->nsets, .compat = o->compat,
                      .sut_spec = o->sut_spec, .data_dir = o->data_dir, .total_samples = o->total_samples,
                      .performance_samples = o->performance_samples};
    lg_run_setup rs;
    int rc = lg_run_setup_build(&sp, &rs, e);
    if (rc != MS_OK) {
        lg_run_setup_free(&rs);
        return rc;
    }
    const lg_qsl *qsl = lg_sut_instance_qsl(rs.sut);
    snprintf(ri->qsl_name, sizeof ri->qsl_name, "%s", qsl->name ? qsl->name(qsl->ctx) : "");
    if ((rc = ms_mkdir_p(outdir, e)) != MS_OK) {
        lg_run_setup_free(&rs);
        return rc;
    }
    lg_log_settings ls;
    lg_log_settings_default(&ls);
    ls.outdir = outdir;
    ls.enable_trace = 0;
    lg_run_options ro;
    lg_run_options_default(&ro);
    ro.compat = o->compat;
    ro.conf = rs.conf;
    ro.timeout_ns = o->timeout_ns;
    ro.audit_config_path = audit_config ? audit_config : "";
    ro.audit_test05 = o->test == AU_TEST05 && audit_config != NULL;
    ro.console = o->console;
    lg_run_result res;
    rc = lg_start_test(lg_sut_instance_sut(rs.sut), qsl, &rs.settings, &ls, &ro, &res, e);
    lg_sut_destroy(rs.sut);
    rs.sut = NULL;
    if (res.timed_out)
        lg_test_free(res.abandoned);
    lg_run_setup_free(&rs);
    if (rc != MS_OK)
        return ms_err_prefix(e, "LoadGen run into %s", outdir);
    ri->valid = res.valid;
    ri->metric = res.metric;
    ri->errors = res.n_errors;
    const char *unit = o->scenario >= LG_SERVER ? "samples/s" : "ns latency";
    if (mode == LG_ACCURACY_ONLY)
        note(o, "  -> %s: accuracy run done, %zu error(s)", outdir, res.n_errors);
    else
        note(o, "  -> %s: %s, %.6g %s, %llu queries, %zu error(s)%s%s", outdir, res.valid ? "VALID" : "INVALID",
             res.metric, unit, (unsigned long long)res.query_count, res.n_errors, res.n_errors ? ": " : "",
             res.n_errors ? res.first_error : "");
    return MS_OK;
}

/* v5.1 layout: .../compliance/<system>/<benchmark>/<scenario> -> .../results/<...> */
static char *results_for(const au_run_opts *o, ms_err *e)
{
    if (o->results_dir)
        return strdup(o->results_dir);
    if (o->layout == AU_LAYOUT_UNIFIED)
        return strdup(o->output_dir);
    const char *p = o->output_dir, *hit = NULL;
    for (const char *q = p; (q = strstr(q, "compliance")) != NULL; q++)
        if ((q == p || q[-1] == '/') && (q[10] == '/' || q[10] == '\0'))
            hit = q;
    if (!hit) {
        ms_err_set(e, MS_EUSAGE,
                   "--layout legacy: --output %s has no 'compliance' directory to map to the results tree; give --results DIR",
                   o->output_dir);
        return NULL;
    }
    ms_buf b = MS_BUF_INIT;
    if (ms_buf_append(&b, p, (size_t)(hit - p)) || ms_buf_puts(&b, "results") || ms_buf_puts(&b, hit + 10)) {
        ms_buf_free(&b);
        ms_err_oom(e);
        return NULL;
    }
    return ms_buf_steal(&b);
}

static int need_file(const char *dir, const char *rel, ms_err *e)
{
    char *p = au_path3(dir, rel, NULL);
    int ok = p && ms_is_regular_file(p);
    int rc = ok ? MS_OK : ms_err_set(e, MS_EINPUT, "--reuse-results: %s: no such file", p ? p : rel);
    free(p);
    return rc;
}

/* Moves the audited run's logs to where a submitter places them: TESTxx/performance/run_1/ and
 * (TEST01) TESTxx/accuracy/. */
static int place_run(const au_run_opts *o, const char *run_dir, au_run_result *res, ms_err *e)
{
    snprintf(res->test_dir, sizeof res->test_dir, "%s/%s", o->output_dir, au_test_name(o->test));
    static const struct {
        const char *name, *sub;
        int test01_only;
    } f[] = {{"mlperf_log_summary.txt", "performance/run_1", 0},
             {"mlperf_log_detail.txt", "performance/run_1", 0},
             {"mlperf_log_accuracy.json", "accuracy", 1}};
    int rc = MS_OK;
    for (size_t i = 0; i < sizeof f / sizeof f[0] && rc == MS_OK; i++) {
        if (f[i].test01_only && o->test != AU_TEST01)
            continue;
        char *dir = au_path3(res->test_dir, f[i].sub, NULL);
        char *src = au_path3(run_dir, f[i].name, NULL);
        char *dst = au_path3(dir, f[i].name, NULL);
        if (!dir || !src || !dst)
            rc = ms_err_oom(e);
        else if ((rc = ms_mkdir_p(dir, e)) == MS_OK && rename(src, dst) != 0)
            rc = au_copy_file(src, dst, e);
        free(dir);
        free(src);
        free(dst);
    }
    return rc;
}

int au_run(const au_run_opts *oin, const au_rules *r, au_run_result *res, ms_err *e)
{
    memset(res, 0, sizeof *res);
    if (!oin->sut_spec || !oin->model || !oin->output_dir)
        return ms_err_set(e, MS_EUSAGE, "audit run needs --sut, --model and --output");
    au_run_opts oc = *oin;
    const au_run_opts *o = &oc;
    int bench = AU_IS_BENCH_TEST(o->test);
    if (bench) {
        /* TEST06-TEST09 apply to the benchmarks the rules have values for */
        au_bench b;
        int brc = au_rules_bench(r, o->test, o->model, &b, e);
        if (brc != MS_OK)
            return brc;
        if (o->test == AU_TEST07 && !strcmp(b.scorer, "external") && !o->accuracy_script)
            return ms_err_set(e, MS_EUSAGE,
                              "TEST07 for %s is scored by the benchmark's own accuracy script: give --accuracy-script "
                              "\"COMMAND {accuracy_log}\"",
                              b.name);
        /* a SUT without its own dataset gets a counting QSL of the benchmark's dataset size */
        if (!oc.total_samples && b.dataset_size)
            oc.total_samples = (size_t)b.dataset_size;
    }
    const char *round = au_rules_round_of(r, o->compat);
    int req = au_rules_required(r, round, o->test, o->model);
    if (req == 0 && !o->force)
        return ms_err_set(e, MS_EUSAGE,
                          "%s is not required for model '%s' in round %s (rules/compliance.json); "
                          "give --force to run it anyway",
                          au_test_name(o->test), o->model, round);
    if (req < 0)
        note(o, "note: model '%s' is not in the %s requirement lists of the rules; running %s as asked", o->model, round,
             au_test_name(o->test));
    char *config = NULL, *uconfig = NULL, *results = NULL, *work = NULL, *cfg_path = NULL, *ucfg_path = NULL;
    char *run_dir = NULL, *uni_dir = NULL, *acc_dir = NULL, *perf_dir = NULL, *best_uni = NULL;
    int rc = au_audit_config_text(r, o->test, 0, o->model, o->sampling_target, round, o->test05_seeds, &config, e);
    if (rc == MS_OK && o->test == AU_TEST04 && o->mode == AU_STRICT)
        rc = au_audit_config_text(r, AU_TEST04, 1, o->model, 0, round, NULL, &uconfig, e);
    if (rc != MS_OK)
        goto out;
    results = results_for(o, e);
    if (!results) {
        rc = e->code;
        goto out;
    }
    snprintf(res->results_dir, sizeof res->results_dir, "%s", results);
    if ((rc = ms_mkdir_p(o->output_dir, e)) != MS_OK)
        goto out;
    work = au_path3(o->output_dir, ".mlsubmit-audit-XXXXXX", NULL);
    if (!work || !mkdtemp(work)) {
        rc = work ? ms_err_errno(e, MS_ERUNTIME, errno, "cannot create a work directory in %s", o->output_dir)
                  : ms_err_oom(e);
        goto out;
    }
    cfg_path = au_path3(work, "audit.config", NULL);
    ucfg_path = au_path3(work, "unique", "audit.config");
    run_dir = au_path3(work, "run", NULL);
    uni_dir = au_path3(work, "unique", NULL);
    acc_dir = au_path3(results, "accuracy", NULL);
    perf_dir = au_path3(results, "performance/run_1", NULL);
    if (!cfg_path || !ucfg_path || !run_dir || !uni_dir || !acc_dir || !perf_dir) {
        rc = ms_err_oom(e);
        goto out;
    }
    if ((rc = ms_write_file_atomic(cfg_path, config, strlen(config), e)) != MS_OK)
        goto out;
    run_info ri = {0};
    /* 1. the reference runs (the submission's own accuracy/ and performance/run_1/) */
    int need_acc = o->test == AU_TEST01 || o->test == AU_TEST08, need_perf = !bench;
    if (o->reuse_results) {
        if (need_acc && (rc = need_file(results, "accuracy/mlperf_log_accuracy.json", e)) != MS_OK)
            goto out;
        if (need_perf && ((rc = need_file(results, "performance/run_1/mlperf_log_detail.txt", e)) != MS_OK ||
                          (rc = need_file(results, "performance/run_1/mlperf_log_summary.txt", e)) != MS_OK))
            goto out;
        note(o, "reference runs: reusing %s", results);
    } else {
        if (need_acc) {
            note(o, "reference accuracy run (AccuracyOnly)");
            if ((rc = one_run(o, LG_ACCURACY_ONLY, acc_dir, NULL, &ri, e)) != MS_OK)
                goto out;
            res->runs++;
        }
        if (need_perf) {
            note(o, "reference performance run (PerformanceOnly%s)", o->test == AU_TEST05 ? ", official seeds" : "");
            if ((rc = one_run(o, LG_PERFORMANCE_ONLY, perf_dir, NULL, &ri, e)) != MS_OK)
                goto out;
            res->runs++;
        }
    }
    /* 2. the audited run, with the test's audit.config */
    note(o, "%s audited run (audit.config: %s)", au_test_name(o->test), cfg_path);
    if ((rc = one_run(o, LG_PERFORMANCE_ONLY, run_dir, cfg_path, &ri, e)) != MS_OK)
        goto out;
    res->runs++;
    if (uconfig) {
        if ((rc = ms_mkdir_p(uni_dir, e)) != MS_OK ||
            (rc = ms_write_file_atomic(ucfg_path, uconfig, strlen(uconfig), e)) != MS_OK)
            goto out;
        /* the unique-index run is short (each loaded sample once): the best of a few, each with a
         * fresh SUT (so a cache never carries over), keeps a preempted run from flagging an
         * honest SUT */
        double best = -1;
        for (int k = 1; k <= AU_UNIQUE_RUNS; k++) {
            char name[16];
            snprintf(name, sizeof name, "run%d", k);
            char *d = au_path3(uni_dir, name, NULL);
            char *sum = au_path3(d, "mlperf_log_summary.txt", NULL);
            double rate = 0;
            note(o, "STRICT TEST04-U unique-index run %d of %d (audit.config: %s)", k, AU_UNIQUE_RUNS, ucfg_path);
            rc = d && sum ? one_run(o, LG_PERFORMANCE_ONLY, d, ucfg_path, &ri, e) : ms_err_oom(e);
            if (rc == MS_OK && au_summary_rate(sum, &rate) == 0 && rate > best) {
                best = rate;
                free(best_uni);
                best_uni = d;
                d = NULL;
            }
            free(d);
            free(sum);
            if (rc != MS_OK)
                goto out;
            res->runs++;
        }
        if (!best_uni)
            best_uni = au_path3(uni_dir, "run1", NULL);
    }
    /* 3. the audited run's logs placed in TESTxx (so the verify files name where they stay),
     * then verification, which completes the tree (TEST06-TEST09: verification copies from the
     * run, as upstream's scripts do; TEST06 has no performance directory) */
    if (bench)
        snprintf(res->test_dir, sizeof res->test_dir, "%s/%s", o->output_dir, au_test_name(o->test));
    else if ((rc = place_run(o, run_dir, res, e)) != MS_OK)
        goto out;
    au_verify_opts vo;
    au_verify_opts_default(&vo);
    vo.test = o->test;
    vo.mode = o->mode;
    vo.reference_dir = !bench || o->test == AU_TEST08 ? results : NULL;
    vo.audit_dir = bench ? run_dir : res->test_dir;
    vo.scenario = lg_scenario_name(o->scenario);
    vo.accuracy_script = o->accuracy_script;
    vo.unique_dir = best_uni;
    vo.output_dir = o->output_dir;
    vo.strict_report_path = o->strict_report_path;
    vo.dtype = o->dtype;
    vo.model = o->model;
    vo.test05_seeds = o->test05_seeds;
    vo.scorer = !strncmp(ri.qsl_name, "digits", 6) ? AU_SCORER_DIGITS : AU_SCORER_BYTES;
    vo.data_dir = o->data_dir; /* the scorer looks for the dataset as the SUT did */
    rc = au_verify(&vo, r, &res->v, e);
    if (rc == MS_EINPUT) {
        /* an input of our own making was unusable: that is a failed run, not a bad user file */
        rc = ms_err_set(e, MS_ERUNTIME, "the audit's own logs could not be verified: %s",
                        res->v.notes.data ? res->v.notes.data : e->msg);
    }
out:
    if (work && o->keep_work)
        snprintf(res->work_dir, sizeof res->work_dir, "%s", work);
    else if (work && ms_is_dir(work))
        nftw(work, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(config);
    free(uconfig);
    free(best_uni);
    free(results);
    free(work);
    free(cfg_path);
    free(ucfg_path);
    free(run_dir);
    free(uni_dir);
    free(acc_dir);
    free(perf_dir);
    return rc;
}
