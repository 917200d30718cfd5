/* Scenario checks, accuracy group (A): the accuracy directory, accuracy.txt against the
 * round's targets. Dispatched by ck_eval_scenario (scenario.c). */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checker/scen.h"
#include "common/pyfmt.h"

/* Python "%f" */
static void pct_f(char *buf, size_t n, double d)
{
    snprintf(buf, n, "%f", d);
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
                FIND(c, CK_ID(A3), CK_SEV_ERROR, rel, 0, NULL, mt[i] ? mt[i] : "?",
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
    /* accuracy_last_value (check_accuracy_dir up to tag v3.0): only the value of the last
     * metric line read before the loop stops (at the line where a value and the hash have been
     * seen) is converted and compared, once, after the loop */
    int last_only = r->sw.accuracy_last_value;
    char *lv[32] = {0}; /* copies: a group points into the matcher's scratch space */
    size_t lvl[32] = {0};
    long lvline[32] = {0};
    ms_pyre_lines l;
    ms_pyre_lines_init(&l, t->text, t->len);
    ms_err e;
    while (ms_pyre_lines_next(&l)) {
        for (size_t i = 0; i < nt; i++) {
            const char *g;
            size_t gl;
            int m = ms_pyre_lines_match(&l, pt[i], &g, &gl, &e);
            if (m <= 0 || !g)
                continue;
            double v;
            accres_put(out, mt[i], g, gl);
            out->parsed_any = 1;
            if (last_only) {
                free(lv[i]);
                lv[i] = strndup(g, gl);
                if (!lv[i]) {
                    c->run->oom = 1;
                    continue;
                }
                lvl[i] = gl;
                lvline[i] = (long)l.it.line_no;
                seen[i] = 1;
                continue;
            }
            if (ms_py_float_parse(g, gl, &v)) {
                if (report)
                    FIND(c, CK_ID(A3), CK_SEV_ERROR, rel, (long)l.it.line_no, "a number", NULL,
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
                FIND(c, CK_ID(A3), CK_SEV_ERROR, rel, (long)l.it.line_no, e1, e2,
                     "accuracy not met: %s expected=%s, found=%s", mt[i], e1, e2);
            }
        }
        for (size_t i = 0; i < nl; i++) {
            const char *g;
            size_t gl;
            if (!pl[i])
                continue;
            int m = ms_pyre_lines_match(&l, pl[i], &g, &gl, &e);
            double v;
            if (m > 0 && g && ms_py_float_parse(g, gl, &v) == 0 && v > lim[i] && report) {
                char e1[64], e2[64];
                pct_f(e1, sizeof e1, lim[i]);
                snprintf(e2, sizeof e2, "%.*s", (int)gl, g);
                FIND(c, CK_ID(A3), CK_SEV_ERROR, rel, (long)l.it.line_no, e1, e2,
                     "accuracy not met: %s upper limit=%s, found=%s", ml[i], e1, e2);
            }
        }
        if (ms_pyre_lines_match(&l, &r->hash_re, NULL, NULL, &e) > 0)
            hash = 1;
        int all = 1;
        for (size_t i = 0; i < nt; i++)
            all &= seen[i];
        if (all && hash) {
            if (stop)
                *stop = (size_t)(l.it.p - t->text);
            break;
        }
    }
    if (last_only) {
        /* compare them now (seen[] said "a value was read"; from here on it says "the value
         * meets the target", as in the newer loop) */
        for (size_t i = 0; i < nt; i++) {
            double v;
            if (!lv[i])
                continue;
            seen[i] = 0;
            if (ms_py_float_parse(lv[i], lvl[i], &v)) {
                if (report)
                    FIND(c, CK_ID(A3), CK_SEV_ERROR, rel, lvline[i], "a number", NULL,
                         "%s value '%.*s' is not a number (the MLCommons checker raises)", mt[i],
                         (int)lvl[i], lv[i]);
            } else if (v >= thr[i]) {
                seen[i] = 1;
            } else if (report) {
                char e1[64], e2[64];
                pct_f(e1, sizeof e1, thr[i]);
                snprintf(e2, sizeof e2, "%.*s", (int)lvl[i], lv[i]);
                FIND(c, CK_ID(A3), CK_SEV_ERROR, rel, lvline[i], e1, e2,
                     "accuracy not met: %s expected=%s, found=%s", mt[i], e1, e2);
            }
            free(lv[i]);
        }
    }
    ms_pyre_lines_free(&l);
    if (report) {
        for (size_t i = 0; i < nt; i++)
            if (!seen[i] && !ck_skipped(c->run, CK_ID(A3))) {
                int matched = 0;
                for (size_t k = 0; k < out->n; k++)
                    matched |= !strcmp(out->keys[k], mt[i]);
                if (!matched) {
                    /* name the pattern: a value printed another way (quoted, say) is read by
                     * some rounds' patterns and not by others' */
                    char want[256];
                    snprintf(want, sizeof want, "%s: a line the round's pattern %s matches", mt[i],
                             pt[i]->pattern);
                    FIND(c, CK_ID(A3), CK_SEV_ERROR, rel, 0, want, "not found",
                         "accuracy metric %s not found in accuracy.txt", mt[i]);
                }
            }
        if (!hash)
            FIND(c, CK_ID(A4), CK_SEV_ERROR, rel, 0, "hash=<sha256>", "no hash line",
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
    /* no metric found: the bare value was Python's None (written "None" in the row) */
    if (!b.data && ms_buf_puts(&b, value_only ? "None" : ""))
        return NULL;
    return ms_buf_steal(&b);
}

/* returns 0 if the legacy flow stops (A1/A2) */
/* A5: the accuracy log is present and truncated (the rules' maximum size) */
static void acc_log_truncated(sctx *c, const char *json_rel)
{
    const ck_rules *r = c->r;
    char *abs = absof(c, json_rel);
    long long sz = ck_fsize(abs);
    long long max = (long long)json_integer_value(ck_rget(r, "max_truncated_accuracy_log_bytes"));
    if (sz < 0) {
        FIND(c, CK_ID(A5), CK_SEV_ERROR, json_rel, 0, NULL, NULL, "%s is missing", json_rel);
    } else if (sz > max) {
        char e1[32], e2[32];
        snprintf(e1, sizeof e1, "<= %lld bytes", max);
        snprintf(e2, sizeof e2, "%lld bytes", sz);
        FIND(c, CK_ID(A5), CK_SEV_ERROR, json_rel, 0, e1, e2, "%s is not truncated", json_rel);
    }
    free(abs);
}

/* A7: the accuracy run covered the dataset (the rules' accuracy sample count or dataset size) */
static void acc_dataset_coverage(sctx *c, const ck_dlog *d, const char *det_rel)
{
    if (ck_skipped(c->run, CK_ID(A7)))
        return;
    const ck_rules *r = c->r;
    const ck_scen *s = c->s;
    double have;
    const char *key = "qsl_reported_total_count";
    if (c->unified && ck_dlog_get(d, "effective_accuracy_sample_count"))
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
    if (ck_dlog_num(d, key, &have) == 0 && json_is_number(want) &&
        have != json_number_value(want)) {
        char e1[32], e2[32];
        snprintf(e1, sizeof e1, "%.0f", json_number_value(want));
        snprintf(e2, sizeof e2, "%.0f", have);
        FIND(c, CK_ID(A7), c->pp->a7_dataset_size, det_rel,
             (long)(ck_dlog_get(d, key) ? ck_dlog_get(d, key)->line : 0), e1, e2,
             "accuracy run does not cover all dataset, accuracy samples: %s, dataset "
             "size: %s%s", e2, e1, c->pp->logged_note);
    } else if (json_is_number(want) && ck_dlog_num(d, key, &have) != 0 && c->unified) {
        char e1[32];
        snprintf(e1, sizeof e1, "%.0f", json_number_value(want));
        FIND(c, CK_ID(A7), CK_SEV_ERROR, det_rel, 0, e1, "None",
             "%s is missing from the accuracy run's detail log", key);
    }
}

/* A6: the accuracy run's detail log, without errors; A7; the run made in AccuracyOnly mode */
static void acc_detail_log(sctx *c, const char *det_rel)
{
    ck_dlog d;
    memset(&d, 0, sizeof d);
    char *abs = absof(c, det_rel);
    if (!ck_isfile(abs)) {
        FIND(c, CK_ID(A6), CK_SEV_ERROR, det_rel, 0, NULL, NULL, "%s is missing", det_rel);
    } else if (load_dlog(c, det_rel, CK_ID(A6), &d)) {
        check_log_errors(c, &d, det_rel, CK_ID(A6), 0, NULL);
        acc_dataset_coverage(c, &d, det_rel);
        /* P17-like stricter check for the accuracy run's mode */
        char *mode = ck_dlog_str(&d, "effective_test_mode");
        if (mode && strcmp(mode, "AccuracyOnly"))
            FIND(c, CK_ID(P17), CK_SEV_WARNING, det_rel, 0, "AccuracyOnly", mode,
                 "the accuracy run was made in %s mode", mode);
        free(mode);
    }
    ck_dlog_free(&d);
    free(abs);
}

/* A8: the extra files of the model's accuracy directory (images, videos) */
static void acc_extra_files(sctx *c, const char *acc_rel)
{
    const ck_rules *r = c->r;
    const ck_scen *s = c->s;
    const json_t *extra = ck_rget2(r, "accuracy_extra_files", s->mlperf_model);
    const char *dname;
    json_t *ids;
    ms_buf missing = MS_BUF_INIT;
    int miss = 0;
    json_object_foreach((json_t *)extra, dname, ids) {
        char *dabs;
        char *drel = join_abs(c, acc_rel, dname, &dabs);
        if (!drel)
            break;
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
        FIND(c, CK_ID(A8), CK_SEV_ERROR, acc_rel, 0, NULL, missing.data,
             "%s expected to have the following extra files ([%s])", acc_rel, missing.data);
    ms_buf_free(&missing);
}

int group_accuracy(sctx *c, const char *scen_rel)
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
    read_textfile_ex(c, txt_rel, CK_ID(A3), 1, 1, &t);
    if (t.ok && t.bad_utf8) {
        const json_t *tg = ck_targets(r, "accuracy_targets", s->mlperf_model, s->scen_dir);
        const json_t *lm = ck_targets(r, "accuracy_upper_limits", s->mlperf_model, s->scen_dir);
        accres dry = {0};
        size_t stop = MS_PY_READ_TO_EOF;
        if (tg)
            parse_accuracy(c, txt_rel, &t, tg, lm, &dry, 0, &stop);
        accres_free(&dry);
        if (!tg || ms_py_utf8_read_raises(t.text, t.len, stop)) {
            FIND(c, CK_ID(A3), CK_SEV_ERROR, txt_rel, 0, "UTF-8 text", "an invalid byte",
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
            FIND(c, CK_ID(A1), CK_SEV_ERROR, txt_rel, 0, NULL, NULL,
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
            FIND(c, CK_ID(A2), stops ? CK_SEV_ERROR : CK_SEV_WARNING, acc_rel, 0, NULL, diff,
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
        FIND(c, CK_ID(A3), CK_SEV_ERROR, txt_rel, 0, NULL, NULL, "accuracy.txt is missing");
    } else if (t.ok) {
        if (!targets)
            FIND(c, CK_ID(A3), CK_SEV_ERROR, txt_rel, 0, "a model with accuracy targets",
                 s->mlperf_model, "model %s has no accuracy target in %s rules (the MLCommons "
                 "checker raises)", s->mlperf_model, r->version);
        else
            parse_accuracy(c, txt_rel, &t, targets, limits, &a, 1, NULL);
    }
    /* accuracy.txt was read and parsed against the model's targets (else the reference raises) */
    int acc_read = !t.missing && t.ok && targets;
    free(t.text);
    if (c->unified && s->open && !t.missing) {
        /* unified: open-division accuracy always passes when accuracy.txt exists */
        for (size_t i = a3_start; i < s->f.n; i++)
            if (!strcmp(s->f.v[i].id, CK_ID(A3)) || !strcmp(s->f.v[i].id, CK_ID(A4)))
                if (s->f.v[i].sev == CK_SEV_ERROR)
                    s->f.v[i].sev = CK_SEV_WARNING;
    }
    acc_log_truncated(c, json_rel);
    acc_detail_log(c, det_rel);
    acc_extra_files(c, acc_rel);
    s->acc_ok = !any_counting(c->run, &s->f, start);
    /* A9: open-division leniency (legacy): check_results_dir takes an invalid accuracy for
     * open (submission-checker.py, tags v0.7.1-v5.0.1), even with no metric or hash line in
     * accuracy.txt (the value is None); with open_accuracy_needs_value (submission_checker.py,
     * tag v5.1.1: `and acc`) only when a metric value was found */
    if (!c->unified && !s->acc_ok && s->open && acc_read &&
        (a.parsed_any || !r->sw.open_accuracy_needs_value)) {
        /* an unparsable detail log (L1) stays an error: the reference does not get this far,
         * MLPerfLog raises in find_error_in_detail_log (check_accuracy_dir) and the run ends */
        for (size_t i = start; i < s->f.n; i++)
            if (s->f.v[i].sev == CK_SEV_ERROR && strcmp(s->f.v[i].id, CK_ID(L1)))
                s->f.v[i].sev = CK_SEV_WARNING;
        FIND(c, CK_ID(A9), CK_SEV_INFO, acc_rel, 0, NULL, NULL,
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
