/* TEST06-TEST09 verification: the verdicts and verdict-file contents of
 * mlcommons/inference compliance/TEST06..TEST09/run_verification.py, from the audited run's
 * accuracy log (and, for TEST08, the accuracy-mode log of the submission).
 *
 * Before any verdict the audited run's detail log must show that the test's audit.config was
 * found and applied (README, Audits): upstream's scripts never look, and an unaudited run
 * (sampling target 0, an empty log) would otherwise pass TEST06 vacuously. That and a log
 * without the records the test needs are input errors here (no verdict file), in both modes. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_int.h"
#include "common/acclog.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/pyfmt.h"
#include "rules/rules.h"

static const char *const EQ80 = "================================================================================";

static const char *tf(int b)
{
    return b ? "True" : "False";
}

/* ---- was the audit.config applied ---- */

/* The detail-log key that shows an audit.config setting and the value it must have there. */
static int logged_form(const char *key, const char *value, char *lkey, size_t kn, char *want, size_t wn)
{
    static const struct {
        const char *key, *logkey;
        int boolean;
    } map[] = {{"accuracy_log_rng_seed", "effective_accuracy_log_rng_seed", 0},
               {"accuracy_log_sampling_target", "effective_accuracy_log_sampling_target", 0},
               {"min_query_count", "requested_min_query_count", 0},
               {"min_duration", "effective_min_duration_ms", 0},
               {"performance_issue_unique", "effective_performance_issue_unique", 1},
               {"sample_concatenate_permutation", "effective_sample_concatenate_permutation", 1},
               {"performance_sample_count_override", "effective_performance_sample_count", 0}};
    if (!strcmp(key, "mode")) {
        snprintf(lkey, kn, "effective_test_mode");
        snprintf(want, wn, "%s", !strcmp(value, "2") ? "PerformanceOnly" : value);
        return 1;
    }
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].key, key)) {
            snprintf(lkey, kn, "%s", map[i].logkey);
            if (map[i].boolean)
                snprintf(want, wn, "%s", strcmp(value, "0") ? "true" : "false");
            else
                snprintf(want, wn, "%s", value);
            return 1;
        }
    return 0;
}

/* 0 if applied; 1 if unknown (no detail log: a published TEST06 folder has none; why says so);
 * -1 with the reasons in why. */
static int check_applied(const au_bench *b, const char *detail, au_rep *rep, char *why, size_t n)
{
    ms_mllog log;
    char w[1024];
    if (!detail) {
        snprintf(why, n,
                 "cannot confirm that the %s audit.config was applied: no mlperf_log_detail.txt beside the accuracy "
                 "log (upstream's script does not look either; STRICT fails)",
                 au_test_name(b->test));
        au_rep_check(rep, AU_FAILED, "audit.config applied: no detail log to show it");
        return 1;
    }
    if (au_load_detail(detail, &log, w, sizeof w) != 0) {
        snprintf(why, n, "cannot confirm that the %s audit.config was applied: %s", au_test_name(b->test), w);
        return -1;
    }
    ms_buf bad = MS_BUF_INIT;
    int found = 0;
    for (size_t i = 0; i < log.nrecs; i++) {
        const ms_mllog_rec *r = &log.recs[i];
        char *v = NULL;
        if (!strcmp(r->key, "warning_generic_message") || !strcmp(r->key, "error_invalid_config"))
            v = ms_mllog_rec_str(r);
        if (v && strstr(v, "Found Audit Config file"))
            found = 1;
        if (v && !strcmp(r->key, "error_invalid_config") &&
            (strstr(v, "value needs to be integer or double") || strstr(v, "expected 'key=value'")))
            ms_buf_printf(&bad, "; the LoadGen rejected the file (detail log line %zu: %s), so nothing of it was applied", r->line_no, v);
        free(v);
    }
    if (!found)
        ms_buf_printf(&bad, "; no 'Found Audit Config file (audit.config)' warning (the run did not see the file)");
    au_rep_check(rep, found ? AU_PASSED : AU_FAILED, "warning 'Found Audit Config file (audit.config)' in %s", detail);
    for (size_t i = 0; i < b->nset; i++) {
        char lkey[96], want[96];
        if (!logged_form(b->set[i].key, b->set[i].value, lkey, sizeof lkey, want, sizeof want))
            continue;
        const ms_mllog_rec *r = ms_mllog_find(&log, lkey);
        char *v = !r ? NULL : r->kind == MS_JV_STRING ? ms_mllog_rec_str(r) : strndup(r->raw, r->raw_len);
        int ok = v && !strcmp(v, want);
        au_rep_check(rep, ok ? AU_PASSED : AU_FAILED, "%s = %s (audit.config %s = %s)%s%s", lkey, want, b->set[i].key,
                     b->set[i].value, ok ? "" : ", logged: ", ok ? "" : (v ? v : "absent"));
        if (!ok)
            ms_buf_printf(&bad, "; %s is %s, expected %s (%s = %s)", lkey, v ? v : "absent", want, b->set[i].key,
                          b->set[i].value);
        free(v);
    }
    ms_mllog_free(&log);
    int rc = 0;
    if (bad.len) {
        snprintf(why, n, "%s: the %s audit.config (rules/compliance.json, benchmark %s) was not applied%s", detail,
                 au_test_name(b->test), b->name, bad.data);
        rc = -1;
    }
    ms_buf_free(&bad);
    return rc;
}

/* ---- TEST06 ---- */

static int32_t i32_at(const unsigned char *p, size_t k)
{
    uint32_t v = (uint32_t)p[4 * k] | (uint32_t)p[4 * k + 1] << 8 | (uint32_t)p[4 * k + 2] << 16 |
                 (uint32_t)p[4 * k + 3] << 24;
    return (int32_t)v;
}

/* upstream eos_check on one record: walks back from the last token (index 0 never examined) */
static int eos_ok(const unsigned char *d, size_t n, int64_t eos)
{
    int count = 0;
    for (size_t i = n ? n - 1 : 0; i > 0; i--) {
        int32_t v = i32_at(d, i);
        if (v == eos)
            count++;
        if (count >= 2)
            return 0;
        if (v != eos)
            break;
    }
    return 1;
}

/* An accuracy log to read, or NULL with the reason in *pe and in why (the test cannot tell). */
static ms_acclog *open_acclog(const char *path, ms_err *pe, char *why, size_t whyn)
{
    ms_acclog *lr = ms_acclog_open(path, 0, pe);
    if (!lr)
        au_explain_acclog_error(path, pe, why, whyn);
    return lr;
}

static int test06(const au_llm_in *in, const au_bench *b, const char *scenario, ms_buf *out, au_verify_result *res,
                  au_rep *rep, char *why, size_t whyn, ms_err *e)
{
    ms_err pe = {0};
    ms_acclog *lr = open_acclog(in->acc, &pe, why, whyn);
    if (!lr)
        return -1;
    int offline = ru_scenario_parse(scenario) == RU_OFFLINE;
    int eos = 1, first = 1, len = 1, strict_eos = 1, eos_err = 0, first_err = 0;
    ms_acc_entry ent;
    int rc;
    size_t n = 0;
    while ((rc = ms_acclog_next(lr, &ent, &pe)) == 1) {
        n++;
        size_t nt = ent.data_len / 4;
        if (ent.data_len % 4) {
            /* numpy.frombuffer raises: the EOS and first-token checks catch it, the length
             * check does not (the script stops without a verdict file) */
            snprintf(why, whyn, "%s: record %zu (line %zu): data is %zu bytes, not a whole number of int32 tokens",
                     in->acc, ent.index, ent.line, ent.data_len);
            eos_err = 1;
            break;
        }
        if (!ent.has_token_count) {
            snprintf(why, whyn,
                     "%s: record %zu (line %zu) has no token_count: TEST06 needs a run with token latencies "
                     "(use_token_latencies = 1, the LLM benchmarks' setting)",
                     in->acc, ent.index, ent.line);
            eos_err = 1;
            break;
        }
        if (eos && !eos_ok(ent.data, nt, b->compat_eos_id))
            eos = 0;
        if (strict_eos && !eos_ok(ent.data, nt, b->eos_id))
            strict_eos = 0;
        if (!offline && first) {
            if (!ent.has_token_data || ent.token_data_len % 4) {
                first = 0;
                first_err = 1;
            } else {
                size_t m = ent.token_data_len / 4 < nt ? ent.token_data_len / 4 : nt;
                for (size_t k = 0; k < m; k++)
                    if (i32_at(ent.data, k) != i32_at(ent.token_data, k)) {
                        first = 0;
                        break;
                    }
            }
        }
        if ((int64_t)nt != ent.token_count)
            len = 0;
    }
    ms_acclog_close(lr);
    if (rc < 0) {
        au_explain_acclog_error(in->acc, &pe, why, whyn);
        return -1;
    }
    if (eos_err)
        return -1;
    if (n == 0) {
        snprintf(why, whyn, "%s: no records (TEST06 needs the %s responses its audit.config logs)", in->acc,
                 au_bench_setting(b, "accuracy_log_sampling_target") ? au_bench_setting(b, "accuracy_log_sampling_target") : "");
        return -1;
    }
    if (first_err)
        au_note(&res->notes, "%s: a record without a whole-token token_data: first-token check False (as upstream)", in->acc);
    res->first_token_pass = offline ? -1 : first;
    res->eos_pass = eos;
    res->length_pass = len;
    res->perf_entries = n;
    int pass = eos && first && len;
    int bad = ms_buf_printf(out, "First token check pass: %s\nEOS check pass: %s\nSample length check pass: %s\n%s\n",
                            offline ? "Skipped" : tf(first), tf(eos), tf(len),
                            pass ? "TEST06 verification complete" : "TEST06 verification failed");
    if (bad)
        return ms_err_oom(e);
    res->compat_pass = pass;
    if (in->mode == AU_STRICT) {
        const char *want = au_bench_setting(b, "min_query_count");
        unsigned long long w = want ? strtoull(want, NULL, 10) : 0;
        au_rep_check(rep, n == w ? AU_PASSED : AU_FAILED, "records in the accuracy log: %zu, expected %llu (Q7)", n, w);
        au_rep_check(rep, strict_eos ? AU_PASSED : AU_FAILED,
                     "at most one trailing EOS with %s's own EOS id %lld (upstream always uses %lld)", b->name,
                     (long long)b->eos_id, (long long)b->compat_eos_id);
    }
    return 0;
}

/* ---- TEST07 ---- */

/* The command with upstream's str.format(accuracy_log=...) rules: {accuracy_log} is the path,
 * {{ and }} are literal braces, any other field is an error. */
static int run_script(const char *cmd_tmpl, const char *log, char **text, ms_err *e)
{
    ms_buf cmd = MS_BUF_INIT;
    const char *ph = "{accuracy_log}";
    int bad = ms_buf_puts(&cmd, "(");
    for (const char *p = cmd_tmpl; *p && !bad; p++) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            bad = ms_buf_putc(&cmd, *p++);
        } else if (!strncmp(p, ph, strlen(ph))) {
            bad = ms_buf_puts(&cmd, log);
            p += strlen(ph) - 1;
        } else if (*p == '{' || *p == '}') {
            ms_buf_free(&cmd);
            return ms_err_set(e, MS_EUSAGE,
                              "--accuracy-script: '%c' at offset %zu is not {accuracy_log}; write literal braces as {{ "
                              "and }} (the command is a Python format string upstream)",
                              *p, (size_t)(p - cmd_tmpl));
        } else {
            bad = ms_buf_putc(&cmd, *p);
        }
    }
    if (bad || ms_buf_puts(&cmd, ") 2>&1") != 0) { /* stderr too, as upstream's Popen(stderr=STDOUT) */
        ms_buf_free(&cmd);
        return ms_err_oom(e);
    }
    FILE *fp = popen(cmd.data, "r");
    if (!fp) {
        int er = errno;
        ms_buf_free(&cmd);
        return ms_err_errno(e, MS_ERUNTIME, er, "cannot run the accuracy script");
    }
    ms_buf out = MS_BUF_INIT;
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, fp)) > 0)
        if (ms_buf_append(&out, buf, k) != 0)
            break;
    int st = pclose(fp);
    if (st != 0)
        ms_err_set(e, MS_OK, "%s: exit status %d", cmd.data, st);
    ms_buf_free(&cmd);
    if (!out.data)
        ms_buf_puts(&out, "");
    *text = ms_buf_steal(&out);
    return *text ? MS_OK : ms_err_oom(e);
}

/* re.search(pattern, text) group 1 as a float; 0 if found. */
static int search_score(const char *pattern, const char *text, double *score, ms_err *e)
{
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
    if (!re)
        return ms_err_set(e, MS_EINPUT, "score pattern '%s': does not compile (offset %zu)", pattern, (size_t)eo);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int found = -1;
    if (md && pcre2_match(re, (PCRE2_SPTR)text, strlen(text), 0, 0, md, NULL) >= 2) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        char num[64];
        size_t n = ov[3] - ov[2];
        if (ov[2] != PCRE2_UNSET && n < sizeof num) {
            memcpy(num, text + ov[2], n);
            num[n] = '\0';
            char *end;
            errno = 0;
            double v = strtod(num, &end);
            if (end != num && !*end && !errno) {
                *score = v;
                found = 0;
            }
        }
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return found == 0 ? MS_OK : MS_FAIL;
}

static int test07(const au_llm_in *in, const au_bench *b, ms_buf *out, au_verify_result *res, au_rep *rep, char *why,
                  size_t whyn, ms_err *e)
{
    /* coverage: every sample of the dataset logged (Q12) */
    ms_err pe = {0};
    ms_acclog *lr = open_acclog(in->acc, &pe, why, whyn);
    if (!lr)
        return -1;
    size_t cap = b->dataset_size ? b->dataset_size : 1;
    unsigned char *seen = calloc(cap, 1);
    if (!seen) {
        ms_acclog_close(lr);
        return ms_err_oom(e);
    }
    size_t n = 0, distinct = 0;
    ms_acc_entry ent;
    int rc;
    while ((rc = ms_acclog_next(lr, &ent, &pe)) == 1) {
        n++;
        if (ent.qsl_idx < cap && !seen[ent.qsl_idx]) {
            seen[ent.qsl_idx] = 1;
            distinct++;
        }
    }
    ms_acclog_close(lr);
    free(seen);
    if (rc < 0) {
        au_explain_acclog_error(in->acc, &pe, why, whyn);
        return -1;
    }
    res->perf_entries = n;
    if (b->dataset_size && distinct < b->dataset_size) {
        snprintf(why, whyn,
                 "%s: %zu records covering %zu of the %llu samples of %s's dataset: TEST07 scores every sample "
                 "(the performance sample count must equal the dataset size)",
                 in->acc, n, distinct, (unsigned long long)b->dataset_size, b->name);
        return -1;
    }
    char *text = NULL;
    double metric = 0;
    if (!strcmp(b->scorer, "digits")) {
        ms_err se = {0};
        rc = au_score_log(AU_SCORER_DIGITS, in->data_dir ? in->data_dir : "data/digits", NULL, in->acc, &text, &metric,
                          &se);
        if (rc != MS_OK) {
            snprintf(why, whyn, "TEST07 accuracy script (digits scorer): %s", se.msg);
            return -1;
        }
    } else if (in->accuracy_script) {
        ms_err se = {0};
        if ((rc = run_script(in->accuracy_script, in->acc, &text, &se)) != MS_OK) {
            *e = se;
            return rc;
        }
        if (se.msg[0])
            au_note(&res->notes, "accuracy script: %s", se.msg);
    } else {
        snprintf(why, whyn,
                 "TEST07 for %s is scored by the benchmark's own accuracy script: give --accuracy-script "
                 "\"COMMAND {accuracy_log}\"",
                 b->name);
        return -1;
    }
    double score = 0;
    ms_err re = {0};
    int got = search_score(b->score_pattern, text, &score, &re);
    if (got == MS_EINPUT) {
        free(text);
        *e = re;
        return MS_EINPUT;
    }
    int bad = ms_buf_puts(out, text);
    free(text);
    char s1[MS_PY_FLOAT_MAX], s2[MS_PY_FLOAT_MAX];
    ms_py_float_repr(score, s1);
    ms_py_float_repr(b->threshold, s2);
    int pass = got == MS_OK && score >= b->threshold;
    bad |= ms_buf_printf(out, "\n%s\nTEST07 Verification Summary\n%s\n", EQ80, EQ80);
    if (got == MS_OK)
        bad |= ms_buf_printf(out, "Accuracy score: %s\nAccuracy threshold: %s\nAccuracy check pass: %s\n%s\n", s1, s2,
                             tf(pass), pass ? "TEST PASS" : "TEST FAIL");
    else
        bad |= ms_buf_puts(out, "Error: Could not parse accuracy score\nTEST FAIL\n");
    if (bad)
        return ms_err_oom(e);
    (void)metric;
    res->score = got == MS_OK ? score : NAN;
    res->have_scores = got == MS_OK;
    res->threshold = b->threshold;
    res->accuracy_pass = pass;
    res->compat_pass = pass;
    if (got != MS_OK)
        au_note(&res->notes, "the accuracy script's output has no match of '%s'", b->score_pattern);
    if (in->mode == AU_STRICT)
        au_rep_check(rep, n == b->dataset_size ? AU_PASSED : AU_FAILED,
                     "records %zu = distinct samples %zu = dataset size %llu (each sample once, Q12)", n, distinct,
                     (unsigned long long)b->dataset_size);
    return 0;
}

/* ---- TEST08 ---- */

typedef struct t08rec {
    long long ts, q;
    double ne;
    size_t n;
    float *lw;   /* labels then weights, n each */
} t08rec;

static int t08cmp(const void *a, const void *b)
{
    const t08rec *x = a, *y = b;
    return x->ts != y->ts ? (x->ts < y->ts ? -1 : 1) : x->q != y->q ? (x->q < y->q ? -1 : 1) : 0;
}

static float f32_at(const unsigned char *p, size_t k)
{
    uint32_t v = (uint32_t)p[4 * k] | (uint32_t)p[4 * k + 1] << 8 | (uint32_t)p[4 * k + 2] << 16 |
                 (uint32_t)p[4 * k + 3] << 24;
    float f;
    memcpy(&f, &v, sizeof f);
    return f;
}

static double clipd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* upstream compute_ne with NumPy 1.x's types (Debian's): the arrays and their sums stay float32
 * (the clip bounds cast to float32), the clipped base rate becomes a float64 scalar, and so do
 * the baseline entropy and NE. Sums of up to a few elements are sequential, as NumPy's are. */
static float clipf(float x, float lo, float hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

static double compute_ne(const float *pred, const float *labels, const float *weights, size_t n)
{
    const float lo = 1e-7f, hi = (float)(1 - 1e-7);
    float w = 0, ce = 0, wy = 0;
    for (size_t i = 0; i < n; i++)
        w += weights[i];
    for (size_t i = 0; i < n; i++) {
        float p = clipf(pred[i], lo, hi), y = clipf(labels[i], lo, hi);
        float one_y = 1.0f - y, one_p = 1.0f - p;
        float t = y * logf(p) + one_y * logf(one_p);
        ce += weights[i] * t;
        wy += weights[i] * y;
    }
    ce = -ce;
    if (w == 0)
        return 0;
    double q = clipd((double)(wy / w), 1e-7, 1 - 1e-7);
    double h = -q * log(q) - (1 - q) * log(1 - q);
    if (h == 0)
        return 0;
    return (double)ce / (h * (double)w);
}

static void t08free(t08rec *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].lw);
    free(v);
}

static int t08_load_ref(const char *path, t08rec **out, size_t *nout, char *why, size_t whyn, ms_err *e)
{
    ms_err pe = {0};
    ms_acclog *lr = open_acclog(path, &pe, why, whyn);
    if (!lr)
        return -1;
    t08rec *v = NULL;
    size_t n = 0, cap = 0;
    ms_acc_entry ent;
    int rc, bad = 0;
    while ((rc = ms_acclog_next(lr, &ent, &pe)) == 1) {
        size_t m = ent.data_len / 4;
        size_t c = m ? (size_t)f32_at(ent.data, m - 1) : 0;
        if (ent.data_len % 4 || m < 3 || m != 3 + 3 * c) {
            snprintf(why, whyn,
                     "%s: record %zu (line %zu): not a DLRMv3 accuracy-mode payload [ts_idx, query_idx, predictions x n, "
                     "labels x n, weights x n, n] (%zu bytes)",
                     path, ent.index, ent.line, ent.data_len);
            bad = 1;
            break;
        }
        if (MS_GROW(v, cap, n + 1, 256)) {
            bad = 2;
            break;
        }
        float *all = malloc(m * sizeof *all);
        if (!all) {
            bad = 2;
            break;
        }
        for (size_t k = 0; k < m; k++)
            all[k] = f32_at(ent.data, k);
        t08rec *r = &v[n++];
        r->ts = (long long)all[0];
        r->q = (long long)all[1];
        r->n = c;
        r->ne = compute_ne(all + 2, all + 2 + c, all + 2 + 2 * c, c);
        r->lw = malloc((2 * c + 1) * sizeof *r->lw);
        if (!r->lw) {
            free(all);
            n--;
            bad = 2;
            break;
        }
        memcpy(r->lw, all + 2 + c, 2 * c * sizeof *r->lw);
        free(all);
    }
    ms_acclog_close(lr);
    if (bad || rc < 0) {
        t08free(v, n);
        if (bad == 2)
            return ms_err_oom(e);
        if (!bad)
            au_explain_acclog_error(path, &pe, why, whyn);
        return -1;
    }
    qsort(v, n, sizeof *v, t08cmp);
    *out = v;
    *nout = n;
    return 0;
}

static int test08(const au_llm_in *in, const au_bench *b, ms_buf *out, au_verify_result *res, au_rep *rep, char *why,
                  size_t whyn, ms_err *e)
{
    (void)rep;
    if (!in->ref_acc) {
        snprintf(why, whyn, "TEST08 needs the accuracy-mode log of the submission (accuracy/mlperf_log_accuracy.json)");
        return -1;
    }
    t08rec *ref = NULL;
    size_t nref = 0;
    int rc = t08_load_ref(in->ref_acc, &ref, &nref, why, whyn, e);
    if (rc != 0)
        return rc;
    ms_err pe = {0};
    ms_acclog *lr = open_acclog(in->acc, &pe, why, whyn);
    if (!lr) {
        t08free(ref, nref);
        return -1;
    }
    ms_buf mism = MS_BUF_INIT;
    size_t nperf = 0, matched = 0, unmatched = 0, nem = 0;
    ms_acc_entry ent;
    int err = 0;
    float *pred = NULL;
    while ((rc = ms_acclog_next(lr, &ent, &pe)) == 1) {
        nperf++;
        size_t m = ent.data_len / 4;
        if (ent.data_len % 4 || m < 2) {
            snprintf(why, whyn, "%s: record %zu (line %zu): not a DLRMv3 performance payload [ts_idx, query_idx, predictions...]",
                     in->acc, ent.index, ent.line);
            err = 1;
            break;
        }
        t08rec key = {.ts = (long long)f32_at(ent.data, 0), .q = (long long)f32_at(ent.data, 1)};
        t08rec *hit = bsearch(&key, ref, nref, sizeof *ref, t08cmp);
        if (!hit) {
            unmatched++;
            continue;
        }
        matched++;
        if (m - 2 != hit->n) {
            snprintf(why, whyn, "%s: record %zu (line %zu): %zu predictions for (%lld, %lld), the accuracy log has %zu candidates",
                     in->acc, ent.index, ent.line, m - 2, key.ts, key.q, hit->n);
            err = 1;
            break;
        }
        float *np = realloc(pred, (hit->n + 1) * sizeof *np);
        if (!np) {
            err = 2;
            break;
        }
        pred = np;
        for (size_t k = 0; k < hit->n; k++)
            pred[k] = f32_at(ent.data, 2 + k);
        double pne = compute_ne(pred, hit->lw, hit->lw + hit->n, hit->n), ane = hit->ne;
        if (ane == 0 && pne == 0)
            continue;
        char a[MS_PY_FLOAT_MAX], p[MS_PY_FLOAT_MAX];
        if (ane == 0 || pne == 0) {
            nem++;
            ms_py_float_repr(ane, a);
            ms_py_float_repr(pne, p);
            ms_buf_printf(&mism, "  NE mismatch at (%lld, %lld): acc_ne=%s, perf_ne=%s\n", key.ts, key.q, a, p);
            continue;
        }
        double rel = fabs(pne - ane) / fabs(ane);
        if (rel > b->tolerance) {
            nem++;
            ms_buf_printf(&mism, "  NE mismatch at (%lld, %lld): acc_ne=%.6f, perf_ne=%.6f, diff=%.4f%%\n", key.ts, key.q,
                          ane, pne, rel * 100);
        }
    }
    free(pred);
    ms_acclog_close(lr);
    t08free(ref, nref);
    if (err == 2 || (!err && rc < 0 && pe.code != MS_EINPUT)) {
        ms_buf_free(&mism);
        return err == 2 ? ms_err_oom(e) : (*e = pe, pe.code);
    }
    if (err || rc < 0) {
        if (!err)
            au_explain_acclog_error(in->acc, &pe, why, whyn);
        ms_buf_free(&mism);
        return -1;
    }
    if (nperf == 0) {
        ms_buf_free(&mism);
        snprintf(why, whyn, "%s: no records (TEST08 compares the performance-mode responses its audit.config logs)", in->acc);
        return -1;
    }
    int pass = nem == 0 && matched > 0 && unmatched == 0;
    int bad = ms_buf_printf(out,
                            "Verifying accuracy. This might take a while...\nReading accuracy mode results...\n"
                            "Reading performance mode results...\n%s\nnum_acc_log_entries = %zu\nnum_perf_log_entries = %zu\n"
                            "num_matched = %zu\nnum_unmatched = %zu\nnum_ne_mismatch = %zu\ntolerance = %.2f%%\n\n%s\n"
                            "TEST08 verification complete\n",
                            mism.data ? mism.data : "", nref, nperf, matched, unmatched, nem, b->tolerance * 100,
                            pass ? "TEST PASS" : "TEST FAIL");
    ms_buf_free(&mism);
    if (bad)
        return ms_err_oom(e);
    res->perf_entries = nperf;
    res->matched = matched;
    res->unmatched = unmatched;
    res->ne_mismatch = nem;
    res->accuracy_pass = pass;
    res->compat_pass = pass;
    return 0;
}

/* ---- TEST09 ---- */

static int test09(const au_llm_in *in, const au_bench *b, ms_buf *out, au_verify_result *res, au_rep *rep, char *why,
                  size_t whyn, ms_err *e)
{
    ms_err pe = {0};
    ms_acclog *lr = open_acclog(in->acc, &pe, why, whyn);
    if (!lr)
        return -1;
    size_t n = 0, mn = SIZE_MAX, mx = 0;
    double sum = 0, sq = 0;
    ms_acc_entry ent;
    int rc;
    size_t *lens = NULL, cap = 0;
    while ((rc = ms_acclog_next(lr, &ent, &pe)) == 1) {
        size_t t = ent.data_len / 4;
        if (MS_GROW(lens, cap, n + 1, 1024)) {
            free(lens);
            ms_acclog_close(lr);
            return ms_err_oom(e);
        }
        lens[n++] = t;
        sum += (double)t;
        mn = t < mn ? t : mn;
        mx = t > mx ? t : mx;
    }
    ms_acclog_close(lr);
    if (rc < 0) {
        free(lens);
        au_explain_acclog_error(in->acc, &pe, why, whyn);
        return -1;
    }
    if (n == 0 || (b->dataset_size && n < b->dataset_size)) {
        free(lens);
        snprintf(why, whyn, "%s: %zu records; TEST09 averages the output length over the whole dataset of %s (%llu samples)",
                 in->acc, n, b->name, (unsigned long long)b->dataset_size);
        return -1;
    }
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += ((double)lens[i] - mean) * ((double)lens[i] - mean);
    free(lens);
    double sd = sqrt(sq / (double)n);
    int minp = mean >= b->min_tokens, maxp = mean <= b->max_tokens, pass = minp && maxp;
    char lo[MS_PY_FLOAT_MAX], hi[MS_PY_FLOAT_MAX];
    ms_py_float_repr(b->min_tokens, lo);
    ms_py_float_repr(b->max_tokens, hi);
    int bad = ms_buf_printf(out,
                            "%s\nTEST09: Verify Output Token Length in Performance Mode\n%s\n\n"
                            "Output Token Length Statistics\n----------------------------------------\n"
                            "Total samples: %zu\nMean output tokens: %.2f\nMin output tokens: %zu\nMax output tokens: %zu\n"
                            "Std deviation: %.2f\n\n%s\nVerification Results\n%s\nMean output tokens: %.2f\n"
                            "Min threshold: %s\nMax threshold: %s\nMin check pass: %s\nMax check pass: %s\n\n%s\n",
                            EQ80, EQ80, n, mean, mn, mx, sd, EQ80, EQ80, mean, lo, hi, tf(minp), tf(maxp),
                            pass ? "TEST PASS" : "TEST FAIL");
    if (bad)
        return ms_err_oom(e);
    res->perf_entries = n;
    res->score = mean;
    res->have_scores = 1;
    res->threshold = b->min_tokens;
    res->max_threshold = b->max_tokens;
    res->accuracy_pass = pass;
    res->compat_pass = pass;
    if (in->mode == AU_STRICT && b->dataset_size)
        au_rep_check(rep, n == b->dataset_size ? AU_PASSED : AU_FAILED, "records %zu = dataset size %llu", n,
                     (unsigned long long)b->dataset_size);
    return 0;
}

int au_llm_verify(const au_llm_in *in, const char *out_dir, au_verify_result *res, au_rep *rep, ms_err *e)
{
    au_bench b;
    int rc = au_rules_bench(in->r, in->test, in->model, &b, e);
    if (rc != MS_OK)
        return rc;
    snprintf(res->verify_file, sizeof res->verify_file, "%s",
             in->test == AU_TEST09 ? "verify_output_len.txt" : "verify_accuracy.txt");
    char why[2048] = "";
    /* the scenario (TEST06) from the detail log unless given */
    char scen[32] = "";
    if (in->scenario)
        snprintf(scen, sizeof scen, "%s", in->scenario);
    int ap = check_applied(&b, in->detail, rep, why, sizeof why);
    if (ap < 0) {
        au_note(&res->notes, "%s", why);
        res->input_error = 1;
        return MS_EINPUT;
    }
    if (ap > 0)
        au_note(&res->notes, "%s", why);
    why[0] = '\0';
    if (!scen[0]) {
        ms_mllog log;
        char w[256];
        if (in->detail && au_load_detail(in->detail, &log, w, sizeof w) == 0) {
            char *s = ms_mllog_get_str(&log, "effective_scenario");
            snprintf(scen, sizeof scen, "%s", s ? s : "");
            free(s);
            ms_mllog_free(&log);
        }
    }
    if (!scen[0] && in->acc) {
        /* no detail log: the scenario directory of the layout (.../<scenario>/TEST06/...) */
        for (int i = 0; i < RU_NSCENARIOS && !scen[0]; i++) {
            char pat[32];
            snprintf(pat, sizeof pat, "/%s/", ru_scenario_name(i));
            if (strstr(in->acc, pat))
                snprintf(scen, sizeof scen, "%s", ru_scenario_name(i));
        }
    }
    if (in->test == AU_TEST06 && !scen[0]) {
        au_note(&res->notes, "TEST06: the scenario is unknown (no detail log, no scenario directory in the path): give --scenario");
        res->input_error = 1;
        return MS_EINPUT;
    }
    ms_buf out = MS_BUF_INIT;
    switch (in->test) {
    case AU_TEST06:
        rc = test06(in, &b, scen, &out, res, rep, why, sizeof why, e);
        break;
    case AU_TEST07:
        rc = test07(in, &b, &out, res, rep, why, sizeof why, e);
        break;
    case AU_TEST08:
        rc = test08(in, &b, &out, res, rep, why, sizeof why, e);
        break;
    case AU_TEST09:
        rc = test09(in, &b, &out, res, rep, why, sizeof why, e);
        break;
    default:
        rc = ms_err_set(e, MS_EUSAGE, "%s is not one of TEST06-TEST09", au_test_name(in->test));
    }
    if (rc == -1) {
        ms_buf_free(&out);
        au_note(&res->notes, "%s", why);
        res->input_error = 1;
        return MS_EINPUT;
    }
    if (rc != MS_OK) {
        ms_buf_free(&out);
        return rc;
    }
    char *p = au_path3(out_dir, res->verify_file, NULL);
    if (!p) {
        ms_buf_free(&out);
        return ms_err_oom(e);
    }
    snprintf(res->verify_accuracy_path, sizeof res->verify_accuracy_path, "%s", p);
    rc = ms_mkdir_p(out_dir, e);
    if (rc == MS_OK)
        rc = ms_write_file_atomic(p, out.data ? out.data : "", out.len, e);
    free(p);
    ms_buf_free(&out);
    res->performance_pass = 1;
    return rc;
}
