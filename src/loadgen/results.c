#include "loadgen/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- sorting --------------------------------------------------------------------------- */

int lg_sort_i64(int64_t *a, size_t n)
{
    if (n < 2)
        return 0;
    if (n < 256) {
        for (size_t i = 1; i < n; i++) {
            int64_t v = a[i];
            size_t j = i;
            while (j > 0 && a[j - 1] > v) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return 0;
    }
    uint64_t *src = (uint64_t *)a;
    uint64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    /* Map signed to unsigned order, find which bytes vary, radix over those only. */
    uint64_t orv = 0, andv = ~0ull;
    for (size_t i = 0; i < n; i++) {
        src[i] ^= 0x8000000000000000ull;
        orv |= src[i];
        andv &= src[i];
    }
    uint64_t diff = orv ^ andv;
    uint64_t *from = src, *to = tmp;
    for (int pass = 0; pass < 8; pass++) {
        int shift = pass * 8;
        if (((diff >> shift) & 0xff) == 0)
            continue;
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(from[i] >> shift) & 0xff]++;
        size_t pos = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[(from[i] >> shift) & 0xff]++] = from[i];
        uint64_t *sw = from;
        from = to;
        to = sw;
    }
    if (from != src)
        memcpy(src, from, n * sizeof *src);
    for (size_t i = 0; i < n; i++)
        src[i] ^= 0x8000000000000000ull;
    free(tmp);
    return 0;
}

/* ---- early stopping (reference results.cc PerformanceSummary::EarlyStopping, early_stopping.cc)
 * */

static double lbeta(int64_t x, int64_t y)
{
    return lgamma((double)x) + lgamma((double)y) - lgamma((double)(x + y));
}

#define ES_TOL (1.0 / (double)(1LL << 33))

static double hyp2f1_a1(int64_t b, int64_t c, double x)
{
    double term = 1.0, result = 1.0;
    for (int64_t i = 0; fabs(term) > ES_TOL; ++i) {
        term *= ((double)(b + i) * x) / (double)(c + i);
        result += term;
    }
    return result;
}

double lg_es_odds(int64_t h, int64_t t, double p, double d)
{
    double x = p - d;
    int64_t a = h, b = 1 + t;
    return exp((double)a * log(x) + (double)(b - 1) * log(1 - x) - lbeta(a, b)) / (double)a *
           hyp2f1_a1(1 - b, 1 + a, x / (x - 1));
}

int lg_es_odds_below(int64_t h, int64_t t, double p, double d, double thr)
{
    double x = p - d;
    int64_t a = h, b = 1 + t;
    double C = exp((double)a * log(x) + (double)(b - 1) * log(1 - x) - lbeta(a, b)) / (double)a;
    int64_t hb = 1 - b, hc = 1 + a;
    double hx = x / (x - 1);
    /* The shortcuts need all terms >= 0 (so partial sums only grow) and a finite C >= 0. */
    int fast = x > 0 && x < 1 && a >= 1 && t >= 0 && isfinite(C) && C >= 0 && thr > 0;
    double term = 1.0, result = 1.0;
    for (int64_t i = 0; fabs(term) > ES_TOL; ++i) {
        term *= ((double)(hb + i) * hx) / (double)(hc + i);
        result += term;
        if (fast && (i & 7) == 7) {
            /* Every later term is >= 0 and float addition of non-negative values never
             * decreases the sum, so the reference's final value is at least C * result. */
            if (C * result >= thr)
                return 0;
            /* Ratios decrease from here on: the rest sums to at most term * r / (1 - r). */
            double rn = ((double)(hb + i + 1) * hx) / (double)(hc + i + 1);
            if (rn >= 0 && rn < 0.999) {
                double tail = term * rn / (1 - rn);
                if (C * (result + tail) * (1 + 1e-6) < thr)
                    return 1;
            }
        }
    }
    return C * result < thr;
}

typedef struct es_cache {
    double p, d, c;
    int64_t *keys, *vals;
    size_t n, cap;
} es_cache;

struct lg_es_finder {
    es_cache caches[4];
    size_t ncaches;
};

lg_es_finder *lg_es_finder_new(void)
{
    return calloc(1, sizeof(lg_es_finder));
}

void lg_es_finder_free(lg_es_finder *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->ncaches; i++) {
        free(f->caches[i].keys);
        free(f->caches[i].vals);
    }
    free(f);
}

static int64_t find_min_passing(int64_t min_h, int64_t max_h, int64_t t, double p, double d,
                                double c)
{
    int64_t count = max_h - min_h;
    double thr = 1 - c;
    while (count > 0) {
        int64_t step = count / 2;
        int64_t h = min_h + step;
        if (lg_es_odds_below(h, t, p, d, thr)) {
            count = step;
        } else {
            min_h = h + 1;
            count -= step + 1;
        }
    }
    return min_h;
}

int64_t lg_es_find(lg_es_finder *f, int64_t t, double p, double d, double c)
{
    es_cache *ca = NULL;
    for (size_t i = 0; i < f->ncaches; i++)
        if (f->caches[i].p == p && f->caches[i].d == d && f->caches[i].c == c)
            ca = &f->caches[i];
    if (!ca) {
        if (f->ncaches == 4)
            return -1;
        ca = &f->caches[f->ncaches++];
        memset(ca, 0, sizeof *ca);
        ca->p = p;
        ca->d = d;
        ca->c = c;
    }
    /* lower_bound(t) */
    size_t lo = 0, hi = ca->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ca->keys[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ca->n && ca->keys[lo] == t)
        return ca->vals[lo];
    int64_t x0 = -1, y0 = 0, x1 = 0;
    int64_t y1 = (int64_t)ceil(log(1 - c) / log(p - d));
    if (lo > 0) {
        x1 = ca->keys[lo - 1];
        y1 = ca->vals[lo - 1];
    }
    if (lo > 1) {
        x0 = ca->keys[lo - 2];
        y0 = ca->vals[lo - 2];
    }
    double min_slope = (p - d) / (1 - p + d);
    double max_slope = (double)((y1 - y0) * (x1 - x0));
    int64_t min_h = (int64_t)((double)(t - x1) * min_slope + (double)y1);
    int64_t max_h = (int64_t)((double)(t - x1) * max_slope + (double)y1 + 1);
    int64_t h = find_min_passing(min_h, max_h, t, p, d, c);
    if (ca->n == ca->cap) {
        size_t nc = ca->cap ? ca->cap * 2 : 1024;
        int64_t *nk = realloc(ca->keys, nc * sizeof *nk);
        if (!nk)
            return -1;
        ca->keys = nk;
        int64_t *nv = realloc(ca->vals, nc * sizeof *nv);
        if (!nv)
            return -1;
        ca->vals = nv;
        ca->cap = nc;
    }
    memmove(ca->keys + lo + 1, ca->keys + lo, (ca->n - lo) * sizeof *ca->keys);
    memmove(ca->vals + lo + 1, ca->vals + lo, (ca->n - lo) * sizeof *ca->vals);
    ca->keys[lo] = t;
    ca->vals[lo] = h;
    ca->n++;
    return h;
}

/* ---- statistics ---------------------------------------------------------------------------- */

static const double kPercentiles[6] = {0.50, 0.90, 0.95, 0.97, 0.99, 0.999};

static size_t pct_index(uint64_t n, double p)
{
    size_t i = (size_t)((double)n * p);
    return i < n ? i : (size_t)n - 1;
}

/* Sorts a and fills st over the first n entries; mean over divisor (the reference divides
 * token sums by sample_count). */
static int latstats(int64_t *a, uint64_t n, uint64_t divisor, double target_p, lg_latstats *st)
{
    memset(st, 0, sizeof *st);
    if (!a || n == 0)
        return 0;
    int64_t sum = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += a[i];
    st->mean = divisor ? sum / (int64_t)divisor : 0;
    if (lg_sort_i64(a, n) != 0)
        return -1;
    st->min = a[0];
    st->max = a[n - 1];
    st->target = a[pct_index(n, target_p)];
    for (int i = 0; i < 6; i++)
        st->pct[i] = a[pct_index(n, kPercentiles[i])];
    return 0;
}

/* The loop of the reference's EarlyStopping (loadgen.cc) for SingleStream and MultiStream: the
 * t of the last count i whose h(i) + i still fits in Q queries, 1 when none; -1 out of memory. */
static int64_t es_overlatency_allowed(lg_es_finder *f, int64_t Q, double P, double tolerance, double confidence)
{
    for (int64_t i = 2; i < Q + 1; ++i) {
        int64_t h = lg_es_find(f, i, P, tolerance, confidence);
        if (h < 0)
            return -1;
        if (Q < h + i)
            return i - 1;
    }
    return 1;
}

/* The latency at index idx of the sorted vals (0 outside them). */
static int64_t es_estimate(const int64_t *vals, uint64_t nv, int64_t idx)
{
    return (idx >= 0 && (uint64_t)idx < nv) ? vals[idx] : 0;
}

/* EarlyStopping() of the reference for one latency array (sorted). */
static int early_stopping(const lg_perf_input *in, ms_buf *rec, int64_t *arr, uint64_t n,
                          uint64_t target_latency, int64_t *es_ss, int64_t *es_ms)
{
    const lg_effective *ef = in->ef;
    ms_buf_reset(rec);
    lg_es_finder *f = lg_es_finder_new();
    if (!f)
        return -1;
    const double confidence = 0.99, tolerance = 0.0;
    int64_t Q = (int64_t)in->queries_issued;
    double P = ef->target_latency_percentile;
    int ok = 1;
    switch (ef->scenario) {
    case LG_SINGLE_STREAM:
    case LG_MULTI_STREAM: {
        int ms = ef->scenario == LG_MULTI_STREAM;
        int64_t *vals = ms ? in->query_lat : arr;
        uint64_t nv = ms ? in->queries_issued : n;
        int64_t h_min = lg_es_find(f, 1, P, tolerance, confidence);
        if (Q < h_min + 1) {
            ms_buf_printf(rec,
                          " * Only processed %lld queries.\n * Need to process at least %lld "
                          "queries for early stopping.",
                          (long long)Q, (long long)(h_min + 1));
            ok = 0;
            break;
        }
        int64_t t = es_overlatency_allowed(f, Q, P, tolerance, confidence);
        if (t < 0) {
            lg_es_finder_free(f);
            return -1;
        }
        int64_t est = es_estimate(vals, nv, Q - t);
        ms_buf_printf(rec,
                      " * Processed at least %lld queries (%lld).\n * Would discard %lld highest "
                      "latency queries.\n * Early stopping %.1fth percentile estimate: %lld",
                      (long long)(h_min + 1), (long long)Q, (long long)(t - 1), P * 100,
                      (long long)est);
        if (ms) {
            *es_ms = est;
            break;
        }
        *es_ss = est;
        /* the 99th percentile estimate used to infer MultiStream from SingleStream */
        const double msp = 0.99;
        h_min = lg_es_find(f, 1, msp, tolerance, confidence);
        if (Q < h_min + 1) {
            ms_buf_printf(rec,
                          "\n * Not enough queries processed for %.1fth percentile\n early "
                          "stopping estimate (would need to process at\n least %lld total "
                          "queries).",
                          msp * 100, (long long)(h_min + 1));
        } else {
            t = es_overlatency_allowed(f, Q, msp, tolerance, confidence);
            if (t < 0) {
                lg_es_finder_free(f);
                return -1;
            }
            est = es_estimate(vals, nv, Q - t);
            ms_buf_printf(rec, "\n * Early stopping %.1fth percentile estimate: %lld", msp * 100,
                          (long long)est);
            *es_ms = est;
        }
        break;
    }
    case LG_SERVER: {
        int64_t t = 0;
        for (uint64_t i = 0; i < n; i++)
            if (arr[i] > (int64_t)target_latency)
                t++;
        int64_t h = lg_es_find(f, t, P, tolerance, confidence);
        if (Q >= h + t) {
            ms_buf_puts(rec, " * Run successful.");
        } else {
            ms_buf_printf(rec,
                          " * Run unsuccessful.\n * Processed %lld queries.\n * Would need to run "
                          "at least %lld more queries,\n with the run being successful if every "
                          "additional\n query were under latency.",
                          (long long)Q, (long long)(h + t - Q));
            ok = 0;
        }
        break;
    }
    case LG_OFFLINE:
        break;
    }
    lg_es_finder_free(f);
    return ok;
}

static const char *const kPctLabels[6];
static void lat_block(ms_buf *o, const lg_latstats *s);

/* Whether the emulated release has early stopping (from 2.0; reference early_stopping.cc). */
static int es_on(const lg_perf_input *in)
{
    return lg_version_rules_of_compat(in->compat)->early_stopping;
}

/* The summary's Recommendations block of an INVALID result. */
static void recommendations(ms_buf *o, const lg_perf_result *r)
{
    if (!r->valid) {
        ms_buf_puts(o, "Recommendations:\n");
        if (!r->perf_constraints_met)
            ms_buf_printf(o, " * %s\n", r->perf_rec);
        if (!r->min_duration_met)
            ms_buf_printf(o, " * %s\n", r->min_duration_rec);
        if (!r->min_queries_met)
            ms_buf_puts(o, " * The test exited early, before enough queries were issued.\n"
                           "   See the detailed log for why this may have occurred.\n");
    }
}

/* The MultiStream of LoadGen 0.5 to 1.1 (reference r0.5 loadgen.cc, PerformanceSummary::
 * ProcessLatencies, MinDurationMet and PerfConstraintsMet): valid when the per-query interval
 * count at the target percentile is below 2 (no skipped interval); no early stopping yet. The
 * headline is the stream count (samples per query). */
static int early_ms_compute(const lg_perf_input *in, lg_perf_result *r)
{
    static const double pcts[6] = {.50, .90, .95, .97, .99, .999};
    const lg_effective *ef = in->ef;
    uint64_t nq = in->queries_issued;
    double P = ef->target_latency_percentile;
    for (uint64_t q = 0; q < nq; q++)
        if (in->query_intervals[q] > 1) {
            r->overtime_query_count++;
            r->skipped_intervals += (uint64_t)(in->query_intervals[q] - 1);
        }
    if (nq && lg_sort_i64(in->query_intervals, nq) != 0)
        return -1;
    if (nq) {
        size_t ti = (size_t)((double)nq * P);
        r->intervals_target = in->query_intervals[ti < nq ? ti : nq - 1];
        for (int i = 0; i < 6; i++) {
            size_t k = (size_t)((double)nq * pcts[i]);
            r->intervals_pct[i] = in->query_intervals[k < nq ? k : nq - 1];
        }
    }
    r->min_duration_met = in->final_query_issued_time >= (double)ef->min_duration_ms / 1000.0;
    r->min_duration_rec = "MultiStream should always meet the minimum duration. Please file a bug.";
    r->min_queries_met = in->queries_issued >= ef->min_query_count && in->sample_count >= ef->min_sample_count;
    r->perf_constraints_met = nq > 0 && r->intervals_target < 2;
    if (!r->perf_constraints_met)
        snprintf(r->perf_rec, sizeof r->perf_rec, "Reduce samples per query to improve latency.");
    r->early_stopping_met = 1;
    r->valid = r->min_duration_met && r->min_queries_met && r->perf_constraints_met;
    r->metric = (double)ef->samples_per_query;
    return 0;
}

/* Summary of the early MultiStream (reference r0.5 loadgen.cc, PerformanceSummary::Log). */
static void early_ms_summary(const lg_perf_input *in, const lg_perf_result *r, ms_buf *o)
{
    const lg_effective *ef = in->ef;
    char g[64], g2[64];
    ms_buf_printf(o, "Samples per query : %llu\n", (unsigned long long)ef->samples_per_query);
    ms_buf_printf(o, "Result is : %s\n", r->valid ? "VALID" : "INVALID");
    ms_buf_printf(o, "  Performance constraints satisfied : %s\n", r->perf_constraints_met ? "Yes" : "NO");
    ms_buf_printf(o, "  Min duration satisfied : %s\n", r->min_duration_met ? "Yes" : "NO");
    ms_buf_printf(o, "  Min queries satisfied : %s\n", r->min_queries_met ? "Yes" : "NO");
    recommendations(o, r);
    ms_buf_puts(o, "\n================================================\nAdditional Stats\n"
                   "================================================\n");
    lg_fmt_g(g, sizeof g, ef->target_qps);
    lg_fmt_g(g2, sizeof g2, 1000.0 / ef->target_qps);
    ms_buf_printf(o, "Intervals between each IssueQuery:  \"qps\" : %s, \"ms\" : %s\n", g, g2);
    for (int i = 0; i < 6; i++)
        ms_buf_printf(o, "%s percentile : %lld\n", kPctLabels[i], (long long)r->intervals_pct[i]);
    ms_buf_printf(o, "Overtime queries : %llu\nSkipped intervals : %llu\n",
                  (unsigned long long)r->overtime_query_count, (unsigned long long)r->skipped_intervals);
    ms_buf_puts(o, "\n");
    lg_fmt_g(g, sizeof g, (double)ef->target_latency_ns / 1e6);
    ms_buf_printf(o, "Per-query latency:  \"target_ns\" : %llu, \"target_ms\" : %s\n",
                  (unsigned long long)ef->target_latency_ns, g);
    for (int i = 0; i < 6; i++)
        ms_buf_printf(o, "%s percentile latency (ns)   : %lld\n", kPctLabels[i], (long long)r->query.pct[i]);
    ms_buf_puts(o, "\nPer-sample latency:\n");
    lat_block(o, &r->sample);
}

int lg_perf_compute(const lg_perf_input *in, lg_perf_result *r)
{
    const lg_effective *ef = in->ef;
    memset(r, 0, sizeof *r);
    uint64_t n = in->sample_count;
    double P = ef->target_latency_percentile;
    if (latstats(in->sample_lat, n, n, P, &r->sample) != 0)
        return -1;
    if (ef->scenario == LG_SERVER) {
        for (uint64_t i = 0; i < n; i++)
            if (in->sample_lat[i] > (int64_t)ef->target_latency_ns)
                r->overlatency_query_count++;
    }
    if (ef->scenario == LG_MULTI_STREAM &&
        latstats(in->query_lat, in->queries_issued, in->queries_issued, P, &r->query) != 0)
        return -1;
    if (in->early_ms && ef->scenario == LG_MULTI_STREAM)
        return early_ms_compute(in, r);
    int tokens_nonoffline = in->token_mode && ef->scenario != LG_OFFLINE && in->ttft && in->tpot;
    if (tokens_nonoffline) {
        if (latstats(in->ttft, n, n, P, &r->ttft) != 0 || latstats(in->tpot, n, n, P, &r->tpot) != 0)
            return -1;
    }
    /* min duration (reference PerformanceSummary::MinDurationMet) */
    double min_dur = (double)ef->min_duration_ms / 1000.0;
    switch (ef->scenario) {
    case LG_OFFLINE:
        r->min_duration_met = in->max_latency >= min_dur;
        r->min_duration_rec = "Increase expected QPS so the loadgen pre-generates a larger (coalesced) query.";
        break;
    case LG_SERVER:
        r->min_duration_met = in->final_query_scheduled_time >= min_dur;
        r->min_duration_rec = "Increase the target QPS so the loadgen pre-generates more queries.";
        break;
    default:
        r->min_duration_met = in->final_query_issued_time >= min_dur;
        r->min_duration_rec = "Decrease the expected latency so the loadgen pre-generates more queries.";
        break;
    }
    r->min_queries_met = in->queries_issued >= ef->min_query_count && n >= ef->min_sample_count;
    /* performance constraints (reference PerformanceSummary::PerfConstraintsMet) */
    r->perf_constraints_met = 1;
    if (ef->scenario == LG_SERVER) {
        if (!in->token_mode) {
            if (r->sample.target > (int64_t)ef->target_latency_ns) {
                snprintf(r->perf_rec, sizeof r->perf_rec, "Reduce target QPS to improve latency.");
                r->perf_constraints_met = 0;
            }
        } else {
            if (r->ttft.target > (int64_t)ef->server_ttft_latency) {
                snprintf(r->perf_rec, sizeof r->perf_rec,
                         "TTFT constrain not met: Reduce target QPS to improve latency.");
                r->perf_constraints_met = 0;
            }
            if (r->tpot.target > (int64_t)ef->server_tpot_latency) {
                if (r->perf_constraints_met)
                    snprintf(r->perf_rec, sizeof r->perf_rec,
                             "TPOT constrain not met: Reduce target QPS to improve latency.");
                else
                    strncat(r->perf_rec,
                            "\n * TPOT constrain not met: Reduce target QPS to improve latency.",
                            sizeof r->perf_rec - strlen(r->perf_rec) - 1);
                r->perf_constraints_met = 0;
            }
        }
    }
    /* early stopping: token mode runs TPOT then (only if it passed) TTFT */
    int es;
    if (!es_on(in)) {
        es = 1; /* LoadGen 0.5 to 1.1: no early stopping (reference r1.1 loadgen.cc) */
    } else if (!in->token_mode || !tokens_nonoffline) {
        es = early_stopping(in, &r->es_text, in->sample_lat, n, ef->target_latency_ns,
                            &r->es_latency_ss, &r->es_latency_ms);
    } else {
        es = early_stopping(in, &r->es_tpot_text, in->tpot, n, ef->server_tpot_latency,
                            &r->es_latency_ss, &r->es_latency_ms);
        if (es == 1)
            es = early_stopping(in, &r->es_ttft_text, in->ttft, n, ef->server_ttft_latency,
                                &r->es_latency_ss, &r->es_latency_ms);
    }
    if (es < 0)
        return -1;
    r->early_stopping_met = es;
    r->valid = r->min_duration_met && r->min_queries_met && r->perf_constraints_met &&
               r->early_stopping_met;
    switch (ef->scenario) {
    case LG_SINGLE_STREAM:
        r->metric = (double)(es_on(in) ? r->es_latency_ss : r->sample.target);
        break;
    case LG_MULTI_STREAM:
        r->metric = (double)r->es_latency_ms;
        break;
    case LG_SERVER:
        r->metric = (double)(n - 1) / in->final_query_all_samples_done_time;
        break;
    case LG_OFFLINE:
        r->metric = (double)n / in->max_latency;
        break;
    }
    return 0;
}

void lg_perf_result_free(lg_perf_result *r)
{
    ms_buf_free(&r->es_text);
    ms_buf_free(&r->es_ttft_text);
    ms_buf_free(&r->es_tpot_text);
}

/* ---- summary file (reference results.cc, PerformanceSummary::LogSummary) --------------------- */

static const char *const kPctLabels[6] = {"50.00", "90.00", "95.00", "97.00", "99.00", "99.90"};

static void lat_block(ms_buf *o, const lg_latstats *s)
{
    ms_buf_printf(o, "Min latency (ns)                : %lld\n", (long long)s->min);
    ms_buf_printf(o, "Max latency (ns)                : %lld\n", (long long)s->max);
    ms_buf_printf(o, "Mean latency (ns)               : %lld\n", (long long)s->mean);
    for (int i = 0; i < 6; i++)
        ms_buf_printf(o, "%s percentile latency (ns)   : %lld\n", kPctLabels[i], (long long)s->pct[i]);
}

int lg_perf_summary(const lg_perf_input *in, const lg_perf_result *r, ms_buf *o)
{
    const lg_effective *ef = in->ef;
    uint64_t n = in->sample_count;
    double P100 = ef->target_latency_percentile * 100;
    int tok = in->token_mode;
    double scale = (double)ef->token_latency_scaling_factor;
    char g[64];
    ms_buf_puts(o, "================================================\nMLPerf Results Summary\n"
                   "================================================\n");
    ms_buf_printf(o, "SUT name : %s\n", in->sut_name);
    /* the releases of the text detail log name them as ToString of their
     * test_settings_internal.cc (tags r0.5, v0.7.1): "Multi Stream", "Performance" */
    const lg_version_rules *svr = lg_version_rules_of_compat(in->compat);
    if (svr->text_detail_log) {
        const lg_scenario sc = ef->scenario;
        ms_buf_printf(o, "Scenario : %s\n", sc == LG_SINGLE_STREAM  ? "Single Stream"
                                            : sc == LG_MULTI_STREAM ? "Multi Stream"
                                                                    : lg_scenario_name(sc));
        ms_buf_printf(o, "Mode     : %s\n", ef->mode == LG_ACCURACY_ONLY      ? "Accuracy"
                                            : ef->mode == LG_PERFORMANCE_ONLY ? "Performance"
                                            : ef->mode == LG_SUBMISSION_RUN   ? "Submission"
                                                                              : "Find Peak Performance");
    } else {
        ms_buf_printf(o, "Scenario : %s\n", lg_scenario_name(ef->scenario));
        ms_buf_printf(o, "Mode     : %s\n", lg_mode_name(ef->mode));
    }
    if (in->early_ms && ef->scenario == LG_MULTI_STREAM) {
        early_ms_summary(in, r, o);
        goto params;
    }
    int es = es_on(in);
    switch (ef->scenario) {
    case LG_SINGLE_STREAM:
        /* LoadGen 0.5 to 1.1 print the percentile without decimals (DoubleToString(p, 0)) */
        ms_buf_printf(o, es ? "%.1fth percentile latency (ns) : %lld\n" : "%.0fth percentile latency (ns) : %lld\n",
                      P100, (long long)r->sample.target);
        if (tok)
            ms_buf_printf(o, "%.1fth first token percentile latency (ns) : %lld\n", P100,
                          (long long)r->ttft.target);
        break;
    case LG_MULTI_STREAM:
        ms_buf_printf(o, "%.1fth percentile latency (ns) : %lld\n", P100, (long long)r->query.target);
        if (tok)
            ms_buf_printf(o, "%.1fth first token percentile latency (ns) : %lld\n", P100,
                          (long long)r->ttft.target);
        break;
    case LG_SERVER:
        if (!es) { /* reference r1.1 loadgen.cc, PerformanceSummary::LogSummary */
            ms_buf_printf(o, "Scheduled samples per second : %.2f\n",
                          (double)(n - 1) / in->final_query_scheduled_time);
            break;
        }
        ms_buf_printf(o, "Completed samples per second    : %.2f\n",
                      (double)(n - 1) / in->final_query_all_samples_done_time);
        if (tok)
            ms_buf_printf(o, "Completed tokens per second: %.2f\n",
                          (double)in->token_count / in->final_query_all_samples_done_time);
        if (ef->infer_token_latencies)
            ms_buf_printf(o, "Completed tokens per second (inferred): %.2f\n",
                          scale * (double)(n - 1) / in->final_query_all_samples_done_time);
        break;
    case LG_OFFLINE:
        lg_fmt_g(g, sizeof g, (double)n / in->max_latency);
        ms_buf_printf(o, "Samples per second: %s\n", g);
        if (tok) {
            lg_fmt_g(g, sizeof g, (double)in->token_count / in->max_latency);
            ms_buf_printf(o, "Tokens per second: %s\n", g);
        }
        if (ef->infer_token_latencies) {
            lg_fmt_g(g, sizeof g, scale * (double)n / in->max_latency);
            ms_buf_printf(o, "Tokens per second (inferred): %s\n", g);
        }
        break;
    }
    ms_buf_printf(o, "Result is : %s\n", r->valid ? "VALID" : "INVALID");
    if (ef->scenario == LG_SERVER)
        ms_buf_printf(o, "  Performance constraints satisfied : %s\n", r->perf_constraints_met ? "Yes" : "NO");
    ms_buf_printf(o, "  Min duration satisfied : %s\n", r->min_duration_met ? "Yes" : "NO");
    ms_buf_printf(o, "  Min queries satisfied : %s\n", r->min_queries_met ? "Yes" : "NO");
    if (es)
        ms_buf_printf(o, "  Early stopping satisfied: %s\n", r->early_stopping_met ? "Yes" : "NO");
    recommendations(o, r);
    if (es && ef->scenario != LG_OFFLINE) {
        if (!tok) {
            ms_buf_printf(o, "Early Stopping Result:\n%s\n", r->es_text.data ? r->es_text.data : "");
        } else {
            ms_buf_printf(o, "TTFT Early Stopping Result:\n%s\n",
                          r->es_ttft_text.data ? r->es_ttft_text.data : "");
            ms_buf_printf(o, "TPOT Early Stopping Result:\n%s\n",
                          r->es_tpot_text.data ? r->es_tpot_text.data : "");
        }
    }
    ms_buf_puts(o, "\n================================================\nAdditional Stats\n"
                   "================================================\n");
    double mean_s = (double)r->sample.mean / 1e9;
    switch (ef->scenario) {
    case LG_SINGLE_STREAM:
        ms_buf_printf(o, "QPS w/ loadgen overhead         : %.2f\n",
                      (double)(n - 1) / in->final_query_issued_time);
        ms_buf_printf(o, "QPS w/o loadgen overhead        : %.2f\n", 1 / mean_s);
        ms_buf_puts(o, "\n");
        lat_block(o, &r->sample);
        break;
    case LG_SERVER:
        if (es)
            ms_buf_printf(o, "Scheduled samples per second : %.2f\n",
                          (double)(n - 1) / in->final_query_scheduled_time);
        else
            ms_buf_printf(o, "Completed samples per second    : %.2f\n\n",
                          (double)(n - 1) / in->final_query_all_samples_done_time);
        lat_block(o, &r->sample);
        break;
    case LG_OFFLINE:
        lat_block(o, &r->sample);
        break;
    case LG_MULTI_STREAM:
        ms_buf_puts(o, "Per-query latency:  \n");
        lat_block(o, &r->query);
        break;
    }
    if (tok) {
        ms_buf_puts(o, "\n");
        if (ef->scenario == LG_SINGLE_STREAM) {
            ms_buf_printf(o, "TPS w/ loadgen overhead         : %.2f\n",
                          (double)in->token_count / in->final_query_issued_time);
            ms_buf_printf(o, "TPS w/o loadgen overhead        : %.2f\n",
                          (double)in->token_count / (mean_s * (double)n));
        } else if (ef->scenario == LG_SERVER) {
            ms_buf_printf(o, "Completed tokens per second                 : %.2f\n",
                          (double)in->token_count / in->final_query_all_samples_done_time);
        }
        if (ef->scenario != LG_OFFLINE) {
            ms_buf_printf(o, "Min First Token latency (ns)                : %lld\n", (long long)r->ttft.min);
            ms_buf_printf(o, "Max First Token latency (ns)                : %lld\n", (long long)r->ttft.max);
            ms_buf_printf(o, "Mean First Token latency (ns)               : %lld\n", (long long)r->ttft.mean);
            for (int i = 0; i < 6; i++)
                ms_buf_printf(o, "%s percentile first token latency (ns)   : %lld\n", kPctLabels[i],
                              (long long)r->ttft.pct[i]);
            ms_buf_puts(o, "\n");
            const char *word = lg_version_rules_of_compat(in->compat)->tpot_word;
            ms_buf_printf(o, "Min Time %s Output Token (ns)                : %lld\n", word, (long long)r->tpot.min);
            ms_buf_printf(o, "Max Time %s Output Token (ns)                : %lld\n", word, (long long)r->tpot.max);
            ms_buf_printf(o, "Mean Time %s Output Token (ns)               : %lld\n", word, (long long)r->tpot.mean);
            for (int i = 0; i < 6; i++)
                ms_buf_printf(o, "%s percentile time to output token (ns)   : %lld\n", kPctLabels[i],
                              (long long)r->tpot.pct[i]);
        }
    }
params:
    ms_buf_puts(o, "\n================================================\nTest Parameters Used\n"
                   "================================================\n");
    ms_buf_printf(o, "samples_per_query : %llu\n", (unsigned long long)ef->samples_per_query);
    lg_fmt_g(g, sizeof g, ef->target_qps);
    ms_buf_printf(o, "target_qps : %s\n", g);
    if (!tok) {
        ms_buf_printf(o, "target_latency (ns): %llu\n", (unsigned long long)ef->target_latency_ns);
    } else {
        ms_buf_printf(o, "ttft_latency (ns): %llu\n", (unsigned long long)ef->server_ttft_latency);
        ms_buf_printf(o, "tpot_latency (ns): %llu\n", (unsigned long long)ef->server_tpot_latency);
    }
    ms_buf_printf(o, "max_async_queries : %llu\n", (unsigned long long)ef->max_async_queries);
    ms_buf_printf(o, "min_duration (ms): %llu\n", (unsigned long long)ef->min_duration_ms);
    ms_buf_printf(o, "max_duration (ms): %llu\n", (unsigned long long)ef->max_duration_ms);
    ms_buf_printf(o, "min_query_count : %llu\n", (unsigned long long)ef->min_query_count);
    ms_buf_printf(o, "max_query_count : %llu\n", (unsigned long long)ef->max_query_count);
    ms_buf_printf(o, "qsl_rng_seed : %llu\n", (unsigned long long)ef->qsl_rng_seed);
    ms_buf_printf(o, "sample_index_rng_seed : %llu\n", (unsigned long long)ef->sample_index_rng_seed);
    ms_buf_printf(o, "schedule_rng_seed : %llu\n", (unsigned long long)ef->schedule_rng_seed);
    ms_buf_printf(o, "accuracy_log_rng_seed : %llu\n", (unsigned long long)ef->accuracy_log_rng_seed);
    lg_fmt_g(g, sizeof g, ef->accuracy_log_probability);
    ms_buf_printf(o, "accuracy_log_probability : %s\n", g);
    const lg_version_rules *pvr = lg_version_rules_of_compat(in->compat);
    if (pvr->logs_sampling_target)
        ms_buf_printf(o, "accuracy_log_sampling_target : %llu\n",
                  (unsigned long long)ef->accuracy_log_sampling_target);
    /* bools as "true"/"false" in the text-log releases (logging.h ArgValueTransform(bool) of
     * tag r0.5), as 0/1 later */
    static const char *const b01[2] = {"0", "1"}, *const btf[2] = {"false", "true"};
    const char *const *bs = pvr->text_detail_log ? btf : b01;
    ms_buf_printf(o, "print_timestamps : %s\n", bs[ef->print_timestamps ? 1 : 0]);
    ms_buf_printf(o, "performance_issue_unique : %s\n", bs[ef->performance_issue_unique ? 1 : 0]);
    ms_buf_printf(o, "performance_issue_same : %s\n", bs[ef->performance_issue_same ? 1 : 0]);
    ms_buf_printf(o, "performance_issue_same_index : %llu\n",
                  (unsigned long long)ef->performance_issue_same_index);
    ms_buf_printf(o, "performance_sample_count : %llu\n", (unsigned long long)ef->performance_sample_count);
    if (lg_version_rules_of_compat(in->compat)->logs_accuracy_sample_count)
        ms_buf_printf(o, "accuracy_sample_count : %llu\n", (unsigned long long)ef->accuracy_sample_count);
    /* the warning came with generated_samples_per_query logging the query's real size
     * (test_settings_internal.cc TestSettingsInternal::LogSummary of tag v5.0.1; not in v4.1) */
    if (ef->sample_concatenate_permutation && lg_version_rules_of_compat(in->compat)->logs_query_spq)
        ms_buf_puts(o, "WARNING: sample_concatenate_permutation was set to true. \n"
                       "Generated samples per query might be different as the one in the setting.\n"
                       "Check the generated_samples_per_query line in the detailed log for the real\n"
                       "samples_per_query value\n");
    return o->data ? 0 : -1;
}

/* ---- detail log result entries (reference results.cc, PerformanceSummary::LogDetail) --------- */

static void nl_to_space(char *s)
{
    for (; s && *s; s++)
        if (*s == '\n')
            *s = ' ';
}

#define LN __LINE__

/* A latency block: min, max and mean under their keys, then the six percentiles (pct_key: the
 * key with %s for the percentile's label). */
static void detail_latstats(lg_logger *L, int64_t t, const lg_latstats *st, const char *min_key, const char *max_key,
                            const char *mean_key, const char *pct_key)
{
    lg_detail_i64(L, t, min_key, st->min, LN);
    lg_detail_i64(L, t, max_key, st->max, LN);
    lg_detail_i64(L, t, mean_key, st->mean, LN);
    for (int i = 0; i < 6; i++) {
        char key[128];
        snprintf(key, sizeof key, pct_key, kPctLabels[i]);
        lg_detail_i64(L, t, key, st->pct[i], LN);
    }
}

void lg_perf_log_detail(lg_logger *L, int64_t t, const lg_perf_input *in, const lg_perf_result *r)
{
    const lg_effective *ef = in->ef;
    uint64_t n = in->sample_count;
    char key[128];
    int early = in->early_ms && ef->scenario == LG_MULTI_STREAM, es = es_on(in);
    lg_detail_str(L, t, "result_validity", r->valid ? "VALID" : "INVALID", LN);
    if (ef->scenario == LG_SERVER || early)
        lg_detail_bool(L, t, "result_perf_constraints_met", r->perf_constraints_met, LN);
    lg_detail_bool(L, t, "result_min_duration_met", r->min_duration_met, LN);
    lg_detail_bool(L, t, "result_min_queries_met", r->min_queries_met, LN);
    if (!early && es)
        lg_detail_bool(L, t, "early_stopping_met", r->early_stopping_met, LN);
    if (!r->valid) {
        ms_buf reason = MS_BUF_INIT;
        ms_buf_puts(&reason, "");
        if (!r->perf_constraints_met)
            ms_buf_printf(&reason, "%s ", r->perf_rec);
        if (!r->min_duration_met)
            ms_buf_printf(&reason, "%s ", r->min_duration_rec);
        if (!r->min_queries_met)
            ms_buf_puts(&reason, "The test exited early, before enough queries were issued.");
        nl_to_space(reason.data);
        lg_detail_str(L, t, "result_invalid_reason", reason.data ? reason.data : "", LN);
        ms_buf_free(&reason);
    }
    if (early) {
        /* the early MultiStream's figures (reference r0.5 loadgen.cc PerformanceSummary):
         * per-query interval counts and what overran */
        lg_detail_u64(L, t, "result_samples_per_query", ef->samples_per_query, LN);
        lg_detail_i64(L, t, "result_target_percentile_query_intervals", r->intervals_target, LN);
        lg_detail_u64(L, t, "result_overtime_query_count", r->overtime_query_count, LN);
        lg_detail_u64(L, t, "result_skipped_intervals", r->skipped_intervals, LN);
    } else if (!es) {
        /* no early stopping before LoadGen 2.0 */
    } else if (!in->token_mode) {
        char *s = strdup(r->es_text.data ? r->es_text.data : "");
        nl_to_space(s);
        lg_detail_str(L, t, "early_stopping_result", s ? s : "", LN);
        free(s);
    } else {
        char *a = strdup(r->es_ttft_text.data ? r->es_ttft_text.data : "");
        char *b = strdup(r->es_tpot_text.data ? r->es_tpot_text.data : "");
        nl_to_space(a);
        nl_to_space(b);
        lg_detail_str(L, t, "early_stopping_ttft_result", a ? a : "", LN);
        lg_detail_str(L, t, "early_stopping_tpot_result", b ? b : "", LN);
        free(a);
        free(b);
    }
    if (lg_version_rules_of_compat(in->compat)->logs_result_query_count)
        lg_detail_u64(L, t, "result_query_count", in->queries_issued, LN);
    if (ef->scenario == LG_SERVER)
        lg_detail_u64(L, t, "result_overlatency_query_count", r->overlatency_query_count, LN);
    switch (ef->scenario) {
    case LG_SINGLE_STREAM:
        lg_detail_double(L, t, "result_qps_with_loadgen_overhead",
                         (double)(n - 1) / in->final_query_issued_time, LN);
        lg_detail_double(L, t, "result_qps_without_loadgen_overhead",
                         1 / ((double)r->sample.mean / 1e9), LN);
        if (es) {
            lg_detail_i64(L, t, "early_stopping_latency_ss", r->es_latency_ss, LN);
            lg_detail_i64(L, t, "early_stopping_latency_ms", r->es_latency_ms, LN);
        }
        break;
    case LG_MULTI_STREAM:
        detail_latstats(L, t, &r->query, "result_min_query_latency_ns", "result_max_query_latency_ns",
                        "result_mean_query_latency_ns", "result_%s_percentile_per_query_latency_ns");
        if (!early && es)
            lg_detail_i64(L, t, "early_stopping_latency_ms", r->es_latency_ms, LN);
        break;
    case LG_SERVER:
        lg_detail_double(L, t, "result_scheduled_samples_per_sec",
                         (double)(n - 1) / in->final_query_scheduled_time, LN);
        lg_detail_double(L, t, "result_completed_samples_per_sec",
                         (double)(n - 1) / in->final_query_all_samples_done_time, LN);
        break;
    case LG_OFFLINE:
        lg_detail_double(L, t, "result_samples_per_second", (double)n / in->max_latency, LN);
        break;
    }
    detail_latstats(L, t, &r->sample, "result_min_latency_ns", "result_max_latency_ns", "result_mean_latency_ns",
                    "result_%s_percentile_latency_ns");
    if (in->token_mode) {
        if (ef->scenario != LG_OFFLINE) {
            detail_latstats(L, t, &r->ttft, "result_first_token_min_latency_ns", "result_first_token_max_latency_ns",
                            "result_first_token_mean_latency_ns", "result_first_token_%s_percentile_latency_ns");
            lg_detail_double(L, t, "result_token_throughput_with_loadgen_overhead",
                             (double)in->token_count / in->final_query_issued_time, LN);
            lg_detail_double(L, t, "result_token_throughput",
                             (double)in->token_count / ((double)r->sample.mean * (double)n), LN);
            for (int i = 0; i < 6; i++) {
                snprintf(key, sizeof key, "result_time_per_output_token_%s_percentile_ns", kPctLabels[i]);
                lg_detail_i64(L, t, key, r->tpot.pct[i], LN);
            }
            lg_detail_i64(L, t, "result_time_to_output_token_min", r->tpot.min, LN);
            lg_detail_i64(L, t, "result_time_to_output_token_max", r->tpot.max, LN);
            lg_detail_i64(L, t, "result_time_to_output_token_mean", r->tpot.mean, LN);
            lg_detail_double(L, t, "result_completed_tokens_per_second",
                             (double)in->token_count / in->final_query_all_samples_done_time, LN);
        } else {
            lg_detail_double(L, t, "result_tokens_per_second",
                             (double)in->token_count / in->max_latency, LN);
        }
    }
    if (ef->infer_token_latencies) {
        double scale = (double)ef->token_latency_scaling_factor;
        if (ef->scenario == LG_SERVER)
            lg_detail_double(L, t, "result_inferred_completed_tokens_per_second",
                             (double)(n - 1) * scale / in->final_query_all_samples_done_time, LN);
        else if (ef->scenario == LG_OFFLINE)
            lg_detail_double(L, t, "result_inferred_tokens_per_second",
                             scale * (double)n / in->max_latency, LN);
    }
}
