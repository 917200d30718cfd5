/* Performance verification (compliance/TESTxx/verify_performance.py):
 *   TEST01                      detail logs, score per scenario, two-sided tolerance;
 *   TEST04                      summary logs, SingleStream/MultiStream latencies converted to
 *                               rates before the relaxed-tolerance test (upstream quirk Q4),
 *                               one-sided;
 *   TEST05 (v4.1 script)        summary logs, latencies kept, one-sided 5 %.
 * The text written is what the upstream script prints, in order. Where the upstream script
 * crashes (a missing file or key, an unparsable number, error entries in a TEST01 detail log)
 * the file says which file and why instead of a traceback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_int.h"
#include "common/pyfmt.h"
#include "common/pytext.h"
#include "common/summary.h"
#include "rules/rules.h"

/* the result entry of each scenario the performance audits know (not Interactive) */
static const char *const result_field[RU_INTERACTIVE] = {
    [RU_SINGLE_STREAM] = "early_stopping_latency_ss", [RU_MULTI_STREAM] = "early_stopping_latency_ms",
    [RU_SERVER] = "result_completed_samples_per_sec", [RU_OFFLINE] = "result_samples_per_second"};

static int scen_index(const char *s)
{
    int k = ru_scenario_parse(s);
    return k < RU_INTERACTIVE ? k : -1;
}

static void tolerance(const au_rules *r, const char *test, int scen, double ref, double *delta)
{
    double d, relaxed, ss, ms;
    au_rules_tolerance(r, test, &d, &relaxed, &ss, &ms);
    *delta = (scen == 0 && ref <= ss) || (scen == 1 && ref <= ms) ? relaxed : d;
}

/* ---- TEST01: detail logs --------------------------------------------------------------------- */

typedef struct dside {
    int scen;
    double score;
    char latency[64];   /* effective_target_latency_ns as logged ("" = absent) */
    int have_latency;
} dside;

/* Returns 0, or -1 after writing the line that ends the script (ERROR / TEST FAIL). */
static int read_dside(const char *path, dside *d, ms_buf *out, ms_buf *notes)
{
    ms_mllog log;
    char why[2048];
    memset(d, 0, sizeof *d);
    if (au_load_detail(path, &log, why, sizeof why) != 0) {
        ms_buf_printf(out, "ERROR: %s\nTEST FAIL\n", why);
        au_note(notes, "%s", why);
        return -2;
    }
    int rc = -2;
    char *scen = ms_mllog_get_str(&log, "effective_scenario");
    d->scen = scen_index(scen);
    const ms_mllog_rec *rec = d->scen >= 0 ? ms_mllog_find(&log, result_field[d->scen]) : NULL;
    if (d->scen < 0) {
        snprintf(why, sizeof why, "%s: %s%s%s (expected SingleStream, MultiStream, Server or Offline)",
                 path, scen ? "effective_scenario is '" : "no effective_scenario entry", scen ? scen : "",
                 scen ? "'" : "");
    } else if (!rec) {
        snprintf(why, sizeof why, "%s: no %s entry (the %s result; did the run finish?)", path,
                 result_field[d->scen], ru_scenario_name(d->scen));
    } else {
        int ok;
        if (rec->kind == MS_JV_STRING) {
            char *v = ms_mllog_rec_str(rec);
            ok = v && ms_py_float_parse(v, strlen(v), &d->score) == 0;
            free(v);
        } else if (rec->kind == MS_JV_BOOL) {
            d->score = rec->raw[0] == 't';
            ok = 1;
        } else {
            ok = ms_mllog_rec_double(rec, &d->score) == 0;
        }
        if (!ok)
            snprintf(why, sizeof why, "%s:%zu: %s is not a number", path, rec->line_no, rec->key);
        else
            rc = 0;
    }
    if (rc != 0) {
        ms_buf_printf(out, "ERROR: %s\nTEST FAIL\n", why);
        au_note(notes, "%s", why);
        goto done;
    }
    rc = -1;
    char *valid = ms_mllog_get_str(&log, "result_validity");
    if (!valid || strcmp(valid, "VALID") != 0) {
        ms_buf_printf(out, "TEST FAIL: Invalid results in %s\n", path);
        free(valid);
        goto done;
    }
    free(valid);
    rc = 0;
    uint64_t nerr = au_detail_errors(&log);
    if (nerr) {
        ms_buf_printf(out, "WARNING: %llu ERROR reported in %s\n", (unsigned long long)nerr, path);
        au_note(notes, "%s: %llu error entr%s in the detail log (upstream's TEST01 verify_performance.py "
                "crashes on these; mlsubmit warns and continues)", path, (unsigned long long)nerr,
                nerr == 1 ? "y" : "ies");
    }
    const ms_mllog_rec *lat = ms_mllog_find(&log, "effective_target_latency_ns");
    if (lat) {
        d->have_latency = 1;
        snprintf(d->latency, sizeof d->latency, "%.*s", (int)lat->raw_len, lat->raw);
    }
done:
    free(scen);
    ms_mllog_free(&log);
    return rc;
}

static int same_json_number(const dside *a, const dside *b)
{
    if (a->have_latency != b->have_latency)
        return 0;
    if (!a->have_latency)
        return 1;
    double x, y;
    if (ms_py_float_parse(a->latency, strlen(a->latency), &x) == 0 && ms_py_float_parse(b->latency, strlen(b->latency), &y) == 0)
        return x == y;
    return !strcmp(a->latency, b->latency);
}

int au_test01_performance(const au_rules *r, const char *ref_detail, const char *test_detail, ms_buf *out,
                          int *pass, double *ref_score, double *test_score, ms_buf *notes)
{
    *pass = 0;
    dside a, b;
    ms_buf_puts(out, "Verifying performance.\n");
    int k = read_dside(ref_detail, &a, out, notes);
    if (k == 0)
        k = read_dside(test_detail, &b, out, notes);
    if (k != 0)
        return k == -2 ? MS_EINPUT : MS_OK;
    if (a.scen != b.scen) {
        ms_buf_puts(out, "TEST FAIL: Test and reference scenarios do not match!\n");
        return MS_OK;
    }
    if (a.scen == 2 && !same_json_number(&a, &b)) {
        ms_buf_puts(out, "TEST FAIL: Server target latency mismatch\n");
        return MS_OK;
    }
    char rs[MS_PY_FLOAT_MAX], ts[MS_PY_FLOAT_MAX];
    ms_py_float_repr(a.score, rs);
    ms_py_float_repr(b.score, ts);
    ms_buf_printf(out, "Reference score = %s\nTest score = %s\n", rs, ts);
    *ref_score = a.score;
    *test_score = b.score;
    double d;
    tolerance(r, "TEST01", a.scen, a.score, &d);
    *pass = a.score * (1 - d) <= b.score && b.score <= a.score * (1 + d);
    ms_buf_puts(out, *pass ? "TEST PASS\n" : "TEST FAIL: Test score invalid\n");
    return MS_OK;
}

/* ---- TEST04 / TEST05: summary logs ----------------------------------------------------------- */

enum { RX_SS, RX_MS, RX_ERR, RX_N };

typedef struct rxset {
    ms_pyre re[RX_N];
} rxset;

static void rx_free(rxset *x)
{
    for (int i = 0; i < RX_N; i++)
        ms_pyre_free(&x->re[i]);
}

static int rx_init(rxset *x)
{
    /* upstream's patterns, used with re.match (anchored at the start of the line). TEST05's
     * v4.1 script only knew '90th' / '99th'; LoadGen prints '90.0th' since v5.1, so both
     * spellings are accepted for TEST05 as well (the TEST05 verify_performance.py of v4.1 knew
     * only 90th/99th). */
    static const char *const pat[RX_N] = {".*Early stopping (90th|90.0th|99.9th) percentile estimate",
                                          ".*Early stopping (99th|99.0th) percentile estimate", "\\d+ ERROR"};
    memset(x, 0, sizeof *x);
    for (int i = 0; i < RX_N; i++) {
        ms_err e;
        if (ms_pyre_compile(&x->re[i], pat[i], &e) != MS_OK) {
            rx_free(x);
            return -1;
        }
    }
    return 0;
}

static int rx_match(const rxset *x, int which, const ms_summary_line *l)
{
    ms_err e;
    return ms_pyre_match(&x->re[which], l->text, l->len, NULL, NULL, &e) == 1;
}

static int starts(const ms_summary_line *l, const char *p)
{
    size_t n = strlen(p);
    return l->len >= n && !memcmp(l->text, p, n);
}

enum { SC_ZERO, SC_TEXT, SC_FLOAT };

typedef struct sside {
    char mode[64];
    int kind;            /* the Python type of the score: int 0, str, float */
    char text[64];
    double value;
    int have_lat;
    char lat[64];        /* the 'target_latency ns' value, as upstream's pattern reads it */
} sside;

/* Returns 0, or -1 after writing the line that ends the script. */
static int read_sside(const char *path, const char *who, au_test t, const rxset *rx, sside *s,
                      const sside *ref, ms_buf *out, ms_buf *notes)
{
    ms_summary sm;
    ms_err e = {0};
    memset(s, 0, sizeof *s);
    if (ms_summary_load(&sm, path, &e) != MS_OK) {
        ms_buf_printf(out, "ERROR: %s\nTEST FAIL\n", e.msg);
        au_note(notes, "%s", e.msg);
        return -2;
    }
    if (sm.nlines == 0) {
        ms_buf_printf(out, "ERROR: %s: the file is empty (expected a LoadGen summary)\nTEST FAIL\n", path);
        au_note(notes, "%s: the file is empty (expected a LoadGen summary)", path);
        ms_summary_free(&sm);
        return -2;
    }
    int rc = 0;
    char why[2048] = "";
    for (size_t i = 0; i < sm.nlines && rc == 0; i++) {
        const ms_summary_line *l = &sm.lines[i];
        const char *v;
        size_t n;
        int has_v = ms_summary_line_value(l, &v, &n) == 0;
        int is_score = 0, conv = 0;
        if (starts(l, "Scenario")) {
            if (!has_v) {
                snprintf(why, sizeof why, "%s:%zu: 'Scenario' line without ': '", path, i + 1);
                rc = -2;
                break;
            }
            snprintf(s->mode, sizeof s->mode, "%.*s", (int)n, v);
            continue;
        }
        int sc = ru_scenario_parse(s->mode);
        if (sc == RU_SINGLE_STREAM && rx_match(rx, RX_SS, l))
            is_score = 1, conv = t == AU_TEST04;
        else if (sc == RU_MULTI_STREAM && rx_match(rx, RX_MS, l))
            is_score = 1, conv = t == AU_TEST04;
        else if (sc == RU_SERVER && starts(l, "Completed samples per second"))
            is_score = 1;
        else if (sc == RU_OFFLINE && starts(l, "Samples per second"))
            is_score = 1;
        if (is_score) {
            if (!has_v) {
                snprintf(why, sizeof why, "%s:%zu: score line without ': '", path, i + 1);
                rc = -2;
                break;
            }
            snprintf(s->text, sizeof s->text, "%.*s", (int)n, v);
            s->kind = SC_TEXT;
            if (conv) {
                double x;
                if (ms_py_float_parse(v, n, &x) != 0 || x == 0) {
                    snprintf(why, sizeof why, "%s:%zu: '%.*s' is not a non-zero latency", path, i + 1, (int)n, v);
                    rc = -2;
                    break;
                }
                s->kind = SC_FLOAT;
                s->value = 1e9 / x;
            }
            continue;
        }
        if (sc == RU_SERVER && starts(l, "target_latency ns")) {
            /* upstream's pattern "target_latency (ns)" is a regex group: it only matches this */
            snprintf(s->lat, sizeof s->lat, "%.*s", (int)(has_v ? n : 0), has_v ? v : "");
            s->have_lat = 1;
            if (ref && (!ref->have_lat || strcmp(ref->lat, s->lat) != 0)) {
                ms_buf_puts(out, "TEST FAIL: Server target latency mismatch\n");
                rc = -1;
            }
            continue;
        }
        if (starts(l, "Result is") && has_v && n == 7 && !memcmp(v, "INVALID", 7)) {
            ms_buf_printf(out, "TEST FAIL: %s results are invalid\n", ref ? "Test" : "Reference");
            rc = -1;
            break;
        }
        if (rx_match(rx, RX_ERR, l)) {
            size_t k = 0;
            while (k < l->len && l->text[k] != ' ')
                k++;
            ms_buf_printf(out, "WARNING: %.*s ERROR reported in %s results\n", (int)k, l->text, who);
        }
    }
    if (rc == -2) {
        ms_buf_printf(out, "ERROR: %s\nTEST FAIL\n", why);
        au_note(notes, "%s", why);
    }
    ms_summary_free(&sm);
    return rc;
}

static void score_text(const sside *s, char *buf, size_t n)
{
    if (s->kind == SC_ZERO)
        snprintf(buf, n, "0");
    else if (s->kind == SC_TEXT)
        snprintf(buf, n, "%s", s->text);
    else
        ms_py_float_repr(s->value, buf);
}

static int score_value(const sside *s, double *v)
{
    if (s->kind == SC_ZERO) {
        *v = 0;
        return 0;
    }
    if (s->kind == SC_FLOAT) {
        *v = s->value;
        return 0;
    }
    return ms_py_float_parse(s->text, strlen(s->text), v);
}

int au_summary_performance(const au_rules *r, au_test t, const char *ref_summary, const char *test_summary,
                           ms_buf *out, int *pass, double *ref_score, double *test_score, ms_buf *notes)
{
    *pass = 0;
    rxset rx;
    if (rx_init(&rx) != 0) {
        ms_err e;
        return ms_err_oom(&e);
    }
    ms_buf_puts(out, "Verifying performance.\n");
    sside a, b;
    int k = read_sside(ref_summary, "reference", t, &rx, &a, NULL, out, notes);
    if (k == 0)
        k = read_sside(test_summary, "test", t, &rx, &b, &a, out, notes);
    if (k != 0) {
        rx_free(&rx);
        return k == -2 ? MS_EINPUT : MS_OK;
    }
    rx_free(&rx);
    if (strcmp(a.mode, b.mode) != 0) {
        ms_buf_puts(out, "Test and reference scenarios do not match!\n");
        return MS_OK;
    }
    char rs[MS_PY_FLOAT_MAX + 64], ts[MS_PY_FLOAT_MAX + 64];
    score_text(&a, rs, sizeof rs);
    score_text(&b, ts, sizeof ts);
    ms_buf_printf(out, "reference score = %s\ntest score = %s\n", rs, ts);
    double rv, tv;
    if (score_value(&a, &rv) != 0 || score_value(&b, &tv) != 0) {
        ms_buf_printf(out, "ERROR: %s: the score '%s' is not a number\nTEST FAIL\n",
                      score_value(&a, &rv) != 0 ? ref_summary : test_summary,
                      score_value(&a, &rv) != 0 ? rs : ts);
        au_note(notes, "%s: the score is not a number", score_value(&a, &rv) != 0 ? ref_summary : test_summary);
        return MS_EINPUT;
    }
    *ref_score = rv;
    *test_score = tv;
    double d;
    tolerance(r, au_test_name(t), scen_index(a.mode), rv, &d);
    if (t == AU_TEST04)
        *pass = tv < rv * (1 + d);
    else
        *pass = ((ru_scenario_parse(a.mode) == RU_OFFLINE || ru_scenario_parse(a.mode) == RU_SERVER) &&
                 tv > rv * (1 - d)) ||
                (strstr(a.mode, "Stream") && tv < rv * (1 + d));
    ms_buf_puts(out, *pass ? "TEST PASS\n" : "TEST FAIL: Test score invalid\n");
    return MS_OK;
}

/* ---- STRICT ---------------------------------------------------------------------------------- */

/* The metric of a summary for STRICT comparisons, as a rate (higher is better): samples/s for
 * Offline and Server, 1e9 / latency for SingleStream and MultiStream. es: the early-stopping
 * estimate (else the headline percentile latency). *lat gets the latency. */
static int summary_rate(const char *path, int es, int *scen, double *rate, double *lat, char *why, size_t n)
{
    ms_summary sm;
    ms_err e = {0};
    if (ms_summary_load(&sm, path, &e) != MS_OK) {
        snprintf(why, n, "%s", e.msg);
        return -1;
    }
    rxset rx;
    int rc = -1;
    if (rx_init(&rx) != 0) {
        ms_summary_free(&sm);
        snprintf(why, n, "out of memory");
        return -1;
    }
    char *sc = ms_summary_get(&sm, "Scenario");
    *scen = scen_index(sc);
    free(sc);
    *lat = 0;
    for (size_t i = 0; i < sm.nlines && *scen >= 0; i++) {
        const ms_summary_line *l = &sm.lines[i];
        const char *v;
        size_t k;
        if (ms_summary_line_value(l, &v, &k) != 0)
            continue;
        int hit;
        if (*scen >= 2)
            hit = starts(l, *scen == 2 ? "Completed samples per second" : "Samples per second");
        else if (es)
            hit = rx_match(&rx, *scen == 0 ? RX_SS : RX_MS, l);
        else
            hit = l->len > 0 && l->text[0] >= '0' && l->text[0] <= '9' && strstr(l->text, "th percentile latency (ns)") &&
                  (size_t)(strstr(l->text, "th percentile latency (ns)") - l->text) < l->len;
        double x;
        if (hit && ms_py_float_parse(v, k, &x) == 0 && x > 0) {
            if (*scen >= 2) {
                *rate = x;
            } else {
                *lat = x;
                *rate = 1e9 / x;
            }
            rc = 0;
            break;
        }
    }
    if (rc != 0)
        snprintf(why, n, "%s: no %s found", path, *scen < 0 ? "Scenario line" : "metric line");
    rx_free(&rx);
    ms_summary_free(&sm);
    return rc;
}

int au_summary_rate(const char *summary, double *rate)
{
    int scen;
    double lat;
    char why[2048];
    return summary_rate(summary, 0, &scen, rate, &lat, why, sizeof why);
}

static void server_latency_check(au_rep *rep, const char *ref_detail, const char *test_detail)
{
    ms_mllog a, b;
    char why[2048];
    if (!ref_detail || !test_detail || au_load_detail(ref_detail, &a, why, sizeof why) != 0) {
        au_rep_check(rep, AU_SKIP, "Server target latency (Q5): no reference detail log");
        return;
    }
    if (au_load_detail(test_detail, &b, why, sizeof why) != 0) {
        ms_mllog_free(&a);
        au_rep_check(rep, AU_SKIP, "Server target latency (Q5): %s", why);
        return;
    }
    uint64_t x = 0, y = 0;
    int hx = ms_mllog_get_u64(&a, "effective_target_latency_ns", &x) == 0;
    int hy = ms_mllog_get_u64(&b, "effective_target_latency_ns", &y) == 0;
    au_rep_check(rep, hx && hy && x == y ? AU_PASSED : AU_FAILED,
                 "Server effective_target_latency_ns equal (Q5; upstream's TEST04 pattern never matches): "
                 "reference %llu, test %llu", (unsigned long long)x, (unsigned long long)y);
    ms_mllog_free(&a);
    ms_mllog_free(&b);
}

void au_strict_performance(au_rep *rep, const au_rules *r, au_test t, const char *ref_summary,
                           const char *test_summary, const char *ref_detail, const char *test_detail,
                           const char *unique_summary)
{
    int sa, sb;
    double ra, rb, la, lb;
    char why[2048];
    if (summary_rate(ref_summary, 1, &sa, &ra, &la, why, sizeof why) != 0 ||
        summary_rate(test_summary, 1, &sb, &rb, &lb, why, sizeof why) != 0) {
        au_rep_check(rep, AU_FAILED, "performance comparison: %s", why);
        return;
    }
    if (sa != sb) {
        au_rep_check(rep, AU_FAILED, "performance comparison: the scenarios differ");
        return;
    }
    if (sa == 2)
        server_latency_check(rep, ref_detail, test_detail);
    if (t == AU_TEST04 && sa <= 1) {
        /* Q4: the relaxed tolerance decided on the reference latency, not on its rate */
        double d;
        tolerance(r, "TEST04", sa, la, &d);
        int ok = rb < ra * (1 + d);
        au_rep_check(rep, ok ? AU_PASSED : AU_FAILED,
                     "TEST04 with the tolerance decided on the latency (Q4): reference %.0f ns, test %.0f ns, "
                     "tolerance %.0f %% (COMPAT applies 20 %% whenever the latency is above %.3g us)",
                     la, lb, d * 100, sa == 0 ? 5.0 : 0.625);
    }
    if (t != AU_TEST04)
        return;
    if (!unique_summary) {
        au_rep_check(rep, AU_SKIP, "TEST04-U unique-index run: not performed (a full-capacity cache "
                                   "passes the compat comparison)");
        return;
    }
    int su;
    double ru, lu, rs, ls, rr, lr;
    int s2, s3;
    if (summary_rate(unique_summary, 0, &su, &ru, &lu, why, sizeof why) != 0 ||
        summary_rate(test_summary, 0, &s2, &rs, &ls, why, sizeof why) != 0 ||
        summary_rate(ref_summary, 0, &s3, &rr, &lr, why, sizeof why) != 0) {
        au_rep_check(rep, AU_FAILED, "TEST04-U unique-index run: %s", why);
        return;
    }
    double d;
    tolerance(r, "TEST04-U", su, lu, &d);
    const char *unit = su <= 1 ? "queries/s (1e9 / percentile latency)" : "samples/s";
    au_rep_check(rep, rs <= ru * (1 + d) ? AU_PASSED : AU_FAILED,
                 "same-index run not faster than the unique-index run by more than %.0f %%: same %.6g, unique %.6g %s "
                 "(ratio %.3g)", d * 100, rs, ru, unit, ru > 0 ? rs / ru : 0);
    au_rep_check(rep, rr <= ru * (1 + d) ? AU_PASSED : AU_FAILED,
                 "reference run not faster than the unique-index run by more than %.0f %%: reference %.6g, unique %.6g %s "
                 "(ratio %.3g)", d * 100, rr, ru, unit, ru > 0 ? rr / ru : 0);
}

/* One run's measured target-percentile latency (not the early-stopping estimate) and query
 * count. Returns 1 found, 0 not a SingleStream/MultiStream run, -1 problem (why). */
static int measured_percentile(const char *path, char *key, size_t keysz, double *lat, uint64_t *queries,
                               char *why, size_t whysz)
{
    ms_mllog log;
    if (au_load_detail(path, &log, why, whysz) != 0)
        return -1;
    char *sc = ms_mllog_get_str(&log, "effective_scenario");
    int scen = scen_index(sc), rc = 0;
    free(sc);
    if (scen == 0 || scen == 1) {
        double pct;
        if (ms_mllog_get_double(&log, "effective_target_latency_percentile", &pct) != 0)
            pct = scen == 0 ? 0.9 : 0.99;
        snprintf(key, keysz, "result_%.2f_percentile_%slatency_ns", pct * 100, scen == 1 ? "per_query_" : "");
        *queries = 0;
        ms_mllog_get_u64(&log, "result_query_count", queries);
        rc = 1;
        if (ms_mllog_get_double(&log, key, lat) != 0) {
            snprintf(why, whysz, "%s: no %s entry", path, key);
            rc = -1;
        }
    }
    ms_mllog_free(&log);
    return rc;
}

/* STRICT TEST01 (SingleStream / MultiStream): the early-stopping estimate COMPAT compares depends
 * on how many queries a run issued (fewer queries, a more pessimistic estimate), so the measured
 * percentile itself must also agree within the tolerance; the query counts are reported. */
void au_strict_test01_performance(au_rep *rep, const au_rules *r, const char *ref_detail, const char *test_detail)
{
    char ka[96], kb[96], why[2048];
    double la, lb;
    uint64_t qa, qb;
    int a = measured_percentile(ref_detail, ka, sizeof ka, &la, &qa, why, sizeof why);
    int b = a == 1 ? measured_percentile(test_detail, kb, sizeof kb, &lb, &qb, why, sizeof why) : a;
    if (a == 0 || b == 0)
        return; /* Server / Offline: nothing beyond COMPAT */
    if (a < 0 || b < 0) {
        au_rep_check(rep, AU_SKIP, "measured percentile (early-stopping-aware): %s", why);
        return;
    }
    double d;
    tolerance(r, "TEST01", 0, la, &d);
    if (strstr(ka, "per_query"))
        tolerance(r, "TEST01", 1, la, &d);
    int ok = !strcmp(ka, kb) && la * (1 - d) <= lb && lb <= la * (1 + d);
    au_rep_check(rep, ok ? AU_PASSED : AU_FAILED,
                 "measured %s within %.0f %% (early-stopping estimates depend on the query counts: reference "
                 "%llu, test %llu queries): reference %.0f ns, test %.0f ns",
                 ka, d * 100, (unsigned long long)qa, (unsigned long long)qb, la, lb);
}
