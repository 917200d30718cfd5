/* Performance results (reference results.cc): latency statistics, early stopping, validity, and
 * the summary and detail-log result entries. Internal to the LoadGen (the early-stopping finder is
 * also used by `audit replay` through loadgen.h-level helpers later). */
#ifndef LG_RESULTS_H
#define LG_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "loadgen/internal.h"
#include "loadgen/logger.h"

typedef struct lg_perf_input {
    const lg_effective *ef;
    lg_compat compat;
    const char *sut_name;
    int64_t *sample_lat;        /* sample_count entries; sorted in place */
    uint64_t sample_count;
    int64_t *query_lat;         /* MultiStream: queries_issued entries; sorted in place */
    /* the early MultiStream (rules->early_multistream): per query, the intervals it occupied
     * (1 = on time; k > 1 = k - 1 intervals skipped after it); sorted in place */
    int early_ms;
    int64_t *query_intervals;
    uint64_t queries_issued;
    int token_mode;             /* use_token_latencies as requested */
    int64_t *ttft;              /* token mode, non-Offline: sample_count entries */
    int64_t *tpot;
    int64_t token_count;
    double max_latency;                       /* seconds */
    double final_query_scheduled_time;
    double final_query_issued_time;
    double final_query_all_samples_done_time;
} lg_perf_input;

typedef struct lg_latstats {
    int64_t min, max, mean, target;
    int64_t pct[6];             /* 50, 90, 95, 97, 99, 99.9 */
} lg_latstats;

typedef struct lg_perf_result {
    lg_latstats sample, query, ttft, tpot;
    uint64_t overlatency_query_count;
    /* early MultiStream: interval counts at the target and the six percentiles, the queries
     * that overran their interval and the intervals skipped in all */
    int64_t intervals_target, intervals_pct[6];
    uint64_t overtime_query_count, skipped_intervals;
    int min_duration_met, min_queries_met, perf_constraints_met, early_stopping_met, valid;
    char perf_rec[160];
    const char *min_duration_rec;
    ms_buf es_text, es_ttft_text, es_tpot_text;
    int64_t es_latency_ss, es_latency_ms;
    double metric;              /* headline value for lg_run_result */
} lg_perf_result;

/* Computes everything (sorts the input arrays). */
int lg_perf_compute(const lg_perf_input *in, lg_perf_result *r);
void lg_perf_result_free(lg_perf_result *r);
/* Appends the performance part of the summary file. */
int lg_perf_summary(const lg_perf_input *in, const lg_perf_result *r, ms_buf *out);
/* Logs the result_* entries (reference results.cc, PerformanceSummary::LogDetail). */
void lg_perf_log_detail(lg_logger *L, int64_t t, const lg_perf_input *in, const lg_perf_result *r);

/* Early stopping primitives (reference results.cc PerformanceSummary::EarlyStopping,
 * early_stopping.cc), exposed for tests and audits. */
typedef struct lg_es_finder lg_es_finder;
lg_es_finder *lg_es_finder_new(void);
void lg_es_finder_free(lg_es_finder *f);
/* Minimum h with odds(h, t) < 1 - c, reproducing the reference's bracketing; -1 on OOM. */
int64_t lg_es_find(lg_es_finder *f, int64_t t, double p, double d, double c);
/* The reference's odds(h, t, p, d) (regularised incomplete beta), evaluated exactly as it is. */
double lg_es_odds(int64_t h, int64_t t, double p, double d);
/* Decides odds(h, t, p, d) < thr with the same outcome as evaluating lg_es_odds, usually
 * much faster (exact partial-sum bounds). */
int lg_es_odds_below(int64_t h, int64_t t, double p, double d, double thr);

/* In-place ascending sort of int64 values (LSD radix sort). Returns -1 on OOM. */
int lg_sort_i64(int64_t *a, size_t n);

#endif
