/* Scenario checks, compliance group (C): the compliance tests of a scenario (TEST01
 * accuracy, verify files, TEST06, the performance runs of each test). Dispatched by
 * ck_eval_scenario (scenario.c). */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checker/scen.h"
#include "common/pyfmt.h"

/* -------------------------------------------------------------- compliance ---- */

static double delta_allowed(const ck_rules *r, const char *model, const char *metric)
{
    /* test01_delta_overrides off: Config.get_delta_perc is asked for the metric's first
     * character (check_compliance_acc_dir of tag v5.0.1), which no override names */
    const json_t *o = r->sw.test01_delta_overrides
                          ? ck_rget3(r, "accuracy_delta_perc_overrides", model, metric)
                          : NULL;
    if (json_is_number(o))
        return json_number_value(o);
    /* accuracy_delta_perc_default: "model_name_contains_<text>" keys (the substring is the
     * rules' data: "99.9" for the high-accuracy variants), then "otherwise" */
    const json_t *def = ck_rget(r, "accuracy_delta_perc_default");
    const char *k;
    const json_t *v;
    static const char prefix[] = "model_name_contains_";
    json_object_foreach((json_t *)def, k, v) {
        if (!strncmp(k, prefix, sizeof prefix - 1) && k[sizeof prefix - 1] &&
            strstr(model, k + sizeof prefix - 1) && json_is_number(v))
            return json_number_value(v);
    }
    const json_t *lo = json_object_get(def, "otherwise");
    return json_is_number(lo) ? json_number_value(lo) : 1;
}

/* last value of each target metric in a text file */
static void last_values(sctx *c, const textfile *t, const json_t *targets, double *vals)
{
    size_t nt = json_array_size(targets);
    ms_pyre_lines l;
    ms_pyre_lines_init(&l, t->text, t->len);
    ms_err e;
    while (ms_pyre_lines_next(&l)) {
        for (size_t i = 0; i < nt && i < 32; i++) {
            const char *m = json_string_value(json_object_get(json_array_get(targets, i), "metric"));
            const ms_pyre *re = m ? ck_rules_pattern(c->r, m) : NULL;
            const char *g;
            size_t gl;
            double v;
            if (re && ms_pyre_lines_match(&l, re, &g, &gl, &e) > 0 && g && ms_py_float_parse(g, gl, &v) == 0)
                vals[i] = v;
        }
    }
    ms_pyre_lines_free(&l);
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
    read_until_test_pass(c, v_rel, CK_ID(C5), &t);
    if (t.missing) {
        FIND(c, CK_ID(C5), CK_SEV_ERROR, v_rel, 0, NULL, NULL, "%s is missing in %s", v_rel, tdir_rel);
        goto out;
    }
    if (!t.ok)
        goto out;
    int passed = c->pp->verify_stripped_line ? text_has_stripped_line(&t, "TEST PASS")
                                             : text_has_substring_line(&t, "TEST PASS");
    if (passed && c->pp->verify_stripped_line)
        goto out;
    if (!ck_pexists(acc_abs)) {
        FIND(c, CK_ID(C5), CK_SEV_ERROR, acc_rel, 0, NULL, NULL, "%s has no accuracy directory", tdir_rel);
        goto out;
    }
    char *diff = NULL;
    ck_files_diff(c->r, acc_abs,
                  ck_rget(c->r, passed ? "test01_accuracy_dir_files_when_pass"
                                       : "test01_accuracy_dir_files_when_fail"),
                  NULL, NULL, &diff);
    if (diff) {
        FIND(c, CK_ID(C5), CK_SEV_ERROR, acc_rel, 0, NULL, diff, "%s has file list mismatch (%s)", acc_rel,
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
    read_textfile(c, b_rel, CK_ID(C5), 1, &tb);
    read_textfile(c, c_rel, CK_ID(C5), 1, &tc);
    if (tb.ok)
        last_values(c, &tb, targets, base);
    if (tc.ok)
        last_values(c, &tc, targets, comp);
    if (!targets)
        FIND(c, CK_ID(C5), CK_SEV_ERROR, acc_rel, 0, NULL, s->mlperf_model,
             "model %s has no accuracy targets", s->mlperf_model);
    for (size_t i = 0; targets && i < json_array_size(targets) && i < 32; i++) {
        const char *m = json_string_value(json_object_get(json_array_get(targets, i), "metric"));
        if (base[i] == 0 || comp[i] == 0) {
            FIND(c, CK_ID(C5), CK_SEV_ERROR, acc_rel, 0, m, "0 or missing",
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
            FIND(c, CK_ID(C5), CK_SEV_ERROR, acc_rel, 0, e1, e2,
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
    read_textfile(c, rel, CK_ID(C6), 1, &t);
    if (t.missing) {
        FIND(c, CK_ID(C6), CK_SEV_ERROR, rel, 0, NULL, NULL, "verify_accuracy.txt is missing in %s",
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
            FIND(c, CK_ID(C6), CK_SEV_ERROR, rel, 0, "first token, EOS and sample length checks pass", NULL,
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
            FIND(c, CK_ID(C2), CK_SEV_ERROR, tdir_rel, 0, test, "missing",
                 "Missing %s in compliance dir %s", test, cdir_rel);
            perf_pass = 0;
        } else {
            textfile t;
            read_until_test_pass(c, v_rel, CK_ID(C4), &t);
            if (!t.missing && !t.ok)
                c->raises = 1; /* check_compliance_perf_dir raises reading it: no verdict */
            perf_pass = t.ok && text_has_substring_line(&t, "TEST PASS");
            if (t.missing)
                FIND(c, CK_ID(C4), CK_SEV_ERROR, v_rel, 0, NULL, NULL, "%s is missing in %s",
                     "verify_performance.txt", tdir_rel);
            else if (!perf_pass)
                FIND(c, CK_ID(C4), CK_SEV_ERROR, v_rel, 0, "TEST PASS", NULL,
                     "Compliance test performance check in %s failed", tdir_rel);
            free(t.text);
            if (!ck_pexists(r_abs)) {
                FIND(c, CK_ID(C4), CK_SEV_ERROR, r_rel, 0, NULL, NULL,
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
        FIND(c, CK_ID(C5), CK_SEV_ERROR, va_rel, 0, NULL, NULL, "verify_accuracy.txt is missing in %s", t1);
    } else {
        textfile va;
        read_until_test_pass(c, va_rel, CK_ID(C5), &va); /* a raise is named there */
        free(va.text);
        if (va.ok && !ck_pexists(acc_abs))
            FIND(c, CK_ID(C5), CK_SEV_ERROR, acc_rel, 0, NULL, NULL, "%s has no accuracy directory", t1);
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

/* C4 (the verdict file and the files of performance/run_1) and C3 (that run passes the
 * performance checks) of a compliance test that is a performance test (TEST01, TEST04,
 * TEST05): check_compliance_dir's check_performance_dir of the legacy checkers. */
static void comp_perf_run(sctx *c, const char *test, const char *tdir_rel)
{
    ck_scen *s = c->s;
    const ck_rules *r = c->r;
    /* C4: verdict file and run files */
    check_verify_file(c, tdir_rel, "verify_performance.txt", CK_ID(C4),
                      "Compliance test performance", 0);
    char *run_rel = ck_fmt("%s/performance/run_1", tdir_rel);
    char *run_abs = run_rel ? absof(c, run_rel) : NULL;
    char *log_rel = run_rel ? ck_join(run_rel, "mlperf_log_detail.txt") : NULL;
    if (!run_abs || !ck_pexists(run_abs)) {
        FIND(c, CK_ID(C4), CK_SEV_ERROR, run_rel, 0, NULL, NULL,
             "%s has no performance/run_1 directory", tdir_rel);
    } else {
        char *diff = NULL;
        ck_files_diff(r, run_abs, ck_rget(r, "compliance_perf_dir_required_files"),
                      ck_rget(r, "perf_dir_optional_files"), NULL, &diff);
        if (diff && !c->unified) {
            FIND(c, CK_ID(C4), CK_SEV_ERROR, run_rel, 0, NULL, diff,
                 "%s has file list mismatch (%s)", run_rel, diff);
        }
        free(diff);
        char *log_abs = absof(c, log_rel);
        if (ck_isfile(log_abs) && r->sw.compliance_perf_checked) {
            /* C3: the compliance run passes the performance checks */
            ck_dlog d;
            memset(&d, 0, sizeof d);
            size_t before = s->f.n;
            if (load_dlog(c, log_rel, CK_ID(C3), &d)) {
                pctx p = {c, test, s->scen_fixed, log_rel, 1};
                ck_value v = {0};
                int inf = 0;
                check_perf_log(&p, &d, &v, &inf, NULL);
            } else {
                for (size_t k = before; k < s->f.n; k++)
                    s->f.v[k].id = CK_ID(C3);
            }
            ck_dlog_free(&d);
        } else if (c->unified) {
            FIND(c, CK_ID(C4), CK_SEV_ERROR, log_rel, 0, NULL, NULL, "%s is missing", log_rel);
        }
        free(log_abs);
    }
    free(run_rel);
    free(run_abs);
    free(log_rel);
}

void group_compliance(sctx *c, const char *scen_rel)
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
        FIND(c, CK_ID(C1), CK_SEV_ERROR, cdir_rel, 0, NULL, NULL, "no compliance dir for %s: %s", s->rel,
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
        char *tdir_abs;
        char *tdir_rel = join_abs(c, cdir_rel, test, &tdir_abs);
        if (!tdir_rel)
            break;
        if (!ck_pexists(tdir_abs)) {
            FIND(c, CK_ID(C2), CK_SEV_ERROR, tdir_rel, 0, test, "missing", "Missing %s in compliance dir %s",
                 test, cdir_rel);
        } else {
            /* TEST05 (rules up to v4.1) is a performance test like TEST01/TEST04:
             * check_compliance_dir runs check_performance_dir on each test of its list */
            int perf_test = !strcmp(test, "TEST01") || !strncmp(test, "TEST04", 6) ||
                            !strcmp(test, "TEST05");
            if (perf_test && !(has06 && !c->unified)) {
                comp_perf_run(c, test, tdir_rel);
            }
            if (!strcmp(test, "TEST01"))
                check_test01_accuracy(c, tdir_rel);
            else if (!strcmp(test, "TEST06"))
                check_test06(c, tdir_rel);
            else if (!strcmp(test, "TEST07"))
                check_verify_file(c, tdir_rel, "verify_accuracy.txt", CK_ID(C7), "TEST07 accuracy", 0);
            else if (!strcmp(test, "TEST08"))
                check_verify_file(c, tdir_rel, "verify_accuracy.txt", CK_ID(C8),
                                  "Compliance test TEST08 accuracy", 1);
            else if (!strcmp(test, "TEST09"))
                check_verify_file(c, tdir_rel, "verify_output_len.txt", CK_ID(C9),
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
