/* lg_start_test: the test flow of the reference loadgen.cc (StartTest, IssueQueries,
 * QuerySamplesComplete), accuracy-log sampling (GenerateQueries) and the detail-log sequence (LogDetail).
 *
 * Per series the LoadGen keeps one int64 slot per generated sample (its scheduled time until it
 * completes, then its latency), a completion bitmap, and only when needed the QSL index (for
 * the accuracy log) and token data. Response ids are sequence id + 1, so a completion finds its
 * sample in O(1) and an unknown or repeated id is detected, not trusted. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/progress.h"
#include "loadgen/internal.h"
#include "loadgen/loadgen.h"
#include "loadgen/logger.h"
#include "loadgen/querygen.h"
#include "loadgen/results.h"
#include "loadgen/rng.h"

#define LN __LINE__

extern const char lg_loadgen_file_sha1_json[];

typedef struct series {
    int accuracy;
    lg_scenario scen;
    uint64_t base;                 /* sequence id of the first sample */
    uint64_t cap;                  /* generated samples */
    int64_t *slot;                 /* scheduled time (abs ns), then latency */
    _Atomic uint64_t *done;        /* completion bitmap */
    int log_possible;
    uint32_t *qsl;                 /* QSL index per sample (when log_possible) */
    uint64_t *logsel;              /* bitmap: selected for the accuracy log */
    int64_t *ttft;                 /* token mode, non-Offline; INT64_MIN = none */
    int64_t *ntok;                 /* token mode; INT64_MIN = none */
    void **tokdata;                /* first-token payloads of logged samples */
    size_t *toksize;
    int64_t *sched, *issue;        /* only with the trace enabled */
    int64_t *qint;                 /* early MultiStream: intervals each query's tick advanced */
    int32_t *issue_tid, *done_tid, *ftok_tid; /* threads that issued / completed / sent the
                                                 first token of each sample (trace only) */
    uint64_t query_base, spq;
    _Atomic uint64_t issued;       /* samples handed to the SUT so far */
    _Atomic uint64_t completed;
    _Atomic int64_t last_done;     /* latest completion (abs ns) */
    _Atomic uint32_t wake;
    _Atomic int waiting;
    _Atomic uint64_t errors;
} series;

struct lg_test {
    const lg_sut *sut;
    const lg_qsl *qsl;
    lg_logger *L;
    lg_effective ef;
    lg_test_settings req;
    lg_compat compat;
    const lg_version_rules *vr;    /* the emulated release's row (rules/loadgen.json) */
    int early_ms;                  /* the fixed-interval MultiStream of LoadGen 0.5 to 1.1 */
    int token_mode;
    int first_token_scenario;
    uint64_t next_query_id;
    uint64_t next_sample_id;
    lg_mt19937 acc_rng;            /* SequenceGen's engine: never seeded (5489) */
    _Atomic(series *) cur;
    const lg_run_options *opts;
    char sut_name[256];
    int timed_out;
    int canceled;
    int qsl_failed;
    _Atomic int closed;            /* set when the test ends: late completions are ignored */
    _Atomic int inflight;          /* completion calls currently inside the LoadGen */
    ms_progress prog;
    lg_sink_fn sink;               /* a completion sink (sink.c): no run, completions go here */
    void *sink_ctx;
};

lg_test *lg_test_new_sink(lg_sink_fn fn, void *ctx)
{
    lg_test *t = calloc(1, sizeof *t);
    if (t) {
        t->sink = fn;
        t->sink_ctx = ctx;
    }
    return t;
}

/* A sink test hands completions to its callback instead of a run (lg_sink_new). */
static int to_sink(lg_test *t, int first_token, lg_response *r, size_t n)
{
    if (!t->sink)
        return 0;
    t->sink(t->sink_ctx, first_token, r, n);
    return 1;
}

/* ---- small helpers ------------------------------------------------------------------------ */

static int64_t mono_now(void)
{
    return ms_now_ns();
}

static int64_t tv_us(const struct timeval *tv)
{
    return (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
}

/* The monotonic clock and the wall clock read at (nearly) the same instant: the wall clock is
 * read on both sides of the monotonic one, up to 32 times until the two wall readings are at
 * most 1 us apart (they are, unless preempted), and the midpoint of the closest pair is kept.
 * The check compares whole milliseconds (as the reference does), so on a run of about 100 ms an
 * error of a few tens of us (the 100 us this once accepted) could tip the two durations to
 * either side of a millisecond (97 and 98 ms: "more than 1%"; seen in CI). The end-of-run clock check
 * compares the two clocks' durations; a thread preempted between two unpaired reads (common
 * under valgrind or on a loaded machine) would otherwise look like clock drift and log a
 * spurious "differ by more than 1%" error on short runs. */
static void paired_clocks(struct timeval *wall, int64_t *mono)
{
    int64_t best_gap = INT64_MAX;
    for (int i = 0; i < 32 && best_gap > 1; i++) {
        struct timeval a, b;
        gettimeofday(&a, NULL);
        int64_t m = mono_now();
        gettimeofday(&b, NULL);
        int64_t gap = tv_us(&b) - tv_us(&a);
        if (gap < 0)
            gap = 0;
        if (gap < best_gap) {
            int64_t mid = tv_us(&a) + gap / 2;
            best_gap = gap;
            wall->tv_sec = (time_t)(mid / 1000000);
            wall->tv_usec = (suseconds_t)(mid % 1000000);
            *mono = m;
        }
    }
}

static void futex_wait(_Atomic uint32_t *addr, uint32_t val, int64_t timeout_ns)
{
    struct timespec ts, *tsp = NULL;
    if (timeout_ns > 0) {
        ts.tv_sec = timeout_ns / 1000000000;
        ts.tv_nsec = timeout_ns % 1000000000;
        tsp = &ts;
    }
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, tsp, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *addr)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void errorf(lg_test *t, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void errorf(lg_test *t, const char *key, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lg_detail_error(t->L, lg_logger_now(t->L), key, msg, LN);
}

/* ---- the text detail log of LoadGen 0.5/0.7 (row text_detail_log) --------------------------
 * The reference r0.5 / v0.7.1 LoadGen logs free text (AsyncLog::LogDetail in logging.h,
 * detail("...", args) with LogArgs' `"name" : value` pairs) where later releases log keys; the
 * logger drops the keyed entries in that format (errors and warnings keep their message) and
 * these entries are written instead. Nothing is written in the :::MLLOG format. */
static int text_log(const lg_test *t)
{
    return t->L && lg_logger_is_text(t->L);
}

static void txt(lg_test *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void txt(lg_test *t, const char *fmt, ...)
{
    if (!text_log(t))
        return;
    ms_buf b = MS_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    int rc = ms_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (rc == 0 && b.data)
        lg_detail_text(t->L, lg_logger_now(t->L), b.data, 0, LN);
    ms_buf_free(&b);
}

/* an error of the text log: a keyed error entry is written as "ERROR : message" there */
#define text_error(t, ...) errorf((t), "error_runtime", __VA_ARGS__)

/* A generic message: the :::MLLOG text, or the text log's own wording (r0.5 loadgen.cc ends
 * "Starting ... mode" with a colon) */
static void generic(lg_test *t, const char *mllog, const char *text)
{
    if (text_log(t))
        lg_detail_text(t->L, lg_logger_now(t->L), text, 0, LN);
    else
        lg_detail_str(t->L, lg_logger_now(t->L), "generic_message", mllog, LN);
}

static void generic_warning(lg_test *t, const char *msg)
{
    if (text_log(t))
        lg_detail_text(t->L, lg_logger_now(t->L), msg, 0, LN);
    else
        lg_detail_warning(t->L, lg_logger_now(t->L), msg, LN);
}

/* test_settings_internal.cc ToString of tags r0.5 / v0.7.1 */
static const char *text_scenario(lg_scenario s)
{
    return s == LG_SINGLE_STREAM ? "Single Stream" : s == LG_MULTI_STREAM ? "Multi Stream" : lg_scenario_name(s);
}

static const char *text_mode(lg_mode m)
{
    return m == LG_ACCURACY_ONLY ? "Accuracy" : m == LG_PERFORMANCE_ONLY ? "Performance"
           : m == LG_SUBMISSION_RUN ? "Submission" : "Find Peak Performance";
}

static const char *tf(int b)
{
    return b ? "true" : "false";
}

/* "name : value" of a double as the reference's ostream writes it (%g) */
static void txt_g(lg_test *t, const char *name, double v)
{
    char g[64];
    lg_fmt_g(g, sizeof g, v);
    txt(t, "%s : %s", name, g);
}

/* the lines both settings blocks end with (the effective and the requested values) */
typedef struct text_block {
    int effective;                 /* the effective block ("min_duration (ms): ", min_sample_count) */
    uint64_t min_ms, max_ms, min_q, max_q, min_samples;
} text_block;

static void text_common(lg_test *t, const text_block *k, uint64_t qsl, uint64_t sidx, uint64_t sched,
                        uint64_t acc, double prob, uint64_t target, int stamps, int uniq, int same,
                        uint64_t same_idx)
{
    txt(t, k->effective ? "min_duration (ms): %" PRIu64 : "min_duration_ms : %" PRIu64, k->min_ms);
    txt(t, k->effective ? "max_duration (ms): %" PRIu64 : "max_duration_ms : %" PRIu64, k->max_ms);
    txt(t, "min_query_count : %" PRIu64, k->min_q);
    txt(t, "max_query_count : %" PRIu64, k->max_q);
    if (k->effective)
        txt(t, "min_sample_count : %" PRIu64, k->min_samples);
    txt(t, "qsl_rng_seed : %" PRIu64, qsl);
    txt(t, "sample_index_rng_seed : %" PRIu64, sidx);
    txt(t, "schedule_rng_seed : %" PRIu64, sched);
    txt(t, "accuracy_log_rng_seed : %" PRIu64, acc);
    txt_g(t, "accuracy_log_probability", prob);
    if (t->vr->logs_sampling_target)
        txt(t, "accuracy_log_sampling_target : %" PRIu64, target);
    txt(t, "print_timestamps : %s", tf(stamps));
    txt(t, "performance_issue_unique : %s", tf(uniq));
    txt(t, "performance_issue_same : %s", tf(same));
    txt(t, "performance_issue_same_index : %" PRIu64, same_idx);
}

/* TestSettingsInternal::LogEffectiveSettings, then LogRequestedTestSettings (LogAllSettings of
 * test_settings_internal.cc, tags r0.5 and v0.7.1) */
static void text_settings(lg_test *t)
{
    const lg_effective *e = &t->ef;
    const lg_test_settings *r = &t->req;
    int st = t->vr->logs_sampling_target;
    txt(t, "%s", "");
    txt(t, "Effective Settings:");
    txt(t, "Scenario : %s", text_scenario(e->scenario));
    txt(t, "Test mode : %s", text_mode(e->mode));
    txt(t, "samples_per_query : %" PRIu64, e->samples_per_query);
    txt_g(t, "target_qps", e->target_qps);
    txt(t, "target_latency (ns): %" PRIu64, e->target_latency_ns);
    /* Offline leaves it unset in these releases (offline_percentile_unset): most logs show 0 */
    txt_g(t, "target_latency_percentile",
          e->scenario == LG_OFFLINE && t->vr->offline_percentile_unset ? 0.0 : e->target_latency_percentile);
    txt(t, "max_async_queries : %" PRIu64, e->max_async_queries);
    txt(t, "target_duration (ms): %" PRIu64, e->target_duration_ms);
    text_block ke = {1, e->min_duration_ms, e->max_duration_ms, e->min_query_count, e->max_query_count,
                     e->min_sample_count};
    text_common(t, &ke, e->qsl_rng_seed, e->sample_index_rng_seed, e->schedule_rng_seed, e->accuracy_log_rng_seed,
                e->accuracy_log_probability, e->accuracy_log_sampling_target, e->print_timestamps,
                e->performance_issue_unique, e->performance_issue_same, e->performance_issue_same_index);
    txt(t, "performance_sample_count : %" PRIu64, e->performance_sample_count);

    txt(t, "%s", "");
    txt(t, "Requested Settings:");
    txt(t, "Scenario : %s", text_scenario(r->scenario));
    txt(t, "Test mode : %s", text_mode(r->mode));
    switch (r->scenario) {
    case LG_SINGLE_STREAM:
        txt(t, "single_stream_expected_latency_ns : %" PRIu64, (uint64_t)r->single_stream_expected_latency_ns);
        txt_g(t, "single_stream_target_latency_percentile", r->single_stream_target_latency_percentile);
        break;
    case LG_MULTI_STREAM:
        txt_g(t, "multi_stream_target_qps", r->multi_stream_target_qps);
        txt(t, "multi_stream_target_latency_ns : %" PRIu64, r->multi_stream_target_latency_ns);
        txt_g(t, "multi_stream_target_latency_percentile", r->multi_stream_target_latency_percentile);
        txt(t, "multi_stream_samples_per_query : %" PRIu64, r->multi_stream_samples_per_query);
        txt(t, "multi_stream_max_async_queries : %" PRIu64, r->multi_stream_max_async_queries);
        break;
    case LG_SERVER:
        txt_g(t, "server_target_qps", r->server_target_qps);
        txt(t, "server_target_latency_ns : %" PRIu64, r->server_target_latency_ns);
        txt_g(t, "server_target_latency_percentile", r->server_target_latency_percentile);
        txt(t, "server_coalesce_queries : %s", tf(r->server_coalesce_queries));
        txt(t, "server_find_peak_qps_decimals_of_precision : %d", r->server_find_peak_qps_decimals_of_precision);
        txt_g(t, "server_find_peak_qps_boundary_step_size", r->server_find_peak_qps_boundary_step_size);
        txt(t, "server_max_async_queries : %" PRIu64, r->server_max_async_queries);
        if (st)
            txt(t, "server_num_issue_query_threads : %" PRIu64, r->server_num_issue_query_threads);
        break;
    case LG_OFFLINE:
        txt_g(t, "offline_expected_qps", r->offline_expected_qps);
        break;
    }
    text_block kr = {0, r->min_duration_ms, r->max_duration_ms, r->min_query_count, r->max_query_count, 0};
    text_common(t, &kr, r->qsl_rng_seed, r->sample_index_rng_seed, r->schedule_rng_seed, r->accuracy_log_rng_seed,
                r->accuracy_log_probability, r->accuracy_log_sampling_target, r->print_timestamps,
                r->performance_issue_unique, r->performance_issue_same, r->performance_issue_same_index);
    txt(t, "performance_sample_count_override : %" PRIu64, r->performance_sample_count_override);
    txt(t, "%s", "");
}

static void series_free(series *s)
{
    if (!s)
        return;
    free(s->slot);
    free((void *)s->done);
    free(s->qsl);
    free(s->logsel);
    free(s->ttft);
    free(s->ntok);
    if (s->tokdata) {
        for (uint64_t i = 0; i < s->cap; i++)
            free(s->tokdata[i]);
    }
    free(s->tokdata);
    free(s->toksize);
    free(s->sched);
    free(s->issue_tid);
    free(s->done_tid);
    free(s->ftok_tid);
    free(s->issue);
    free(s->qint);
    free(s);
}

static series *series_new(lg_test *t, int accuracy, uint64_t cap, int log_possible)
{
    series *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->accuracy = accuracy;
    s->scen = t->ef.scenario;
    s->base = t->next_sample_id;
    s->cap = cap;
    s->log_possible = log_possible;
    size_t words = (size_t)(cap / 64 + 1);
    s->slot = malloc((cap ? cap : 1) * sizeof *s->slot);
    s->done = calloc(words, sizeof *s->done);
    int ok = s->slot && s->done;
    if (ok && log_possible) {
        s->qsl = malloc((cap ? cap : 1) * sizeof *s->qsl);
        s->logsel = calloc(words, sizeof *s->logsel);
        ok = s->qsl && s->logsel;
        if (ok && t->token_mode && t->first_token_scenario) {
            s->tokdata = calloc(cap ? cap : 1, sizeof *s->tokdata);
            s->toksize = calloc(cap ? cap : 1, sizeof *s->toksize);
            ok = s->tokdata && s->toksize;
        }
    }
    if (ok && t->token_mode) {
        s->ntok = malloc((cap ? cap : 1) * sizeof *s->ntok);
        ok = s->ntok != NULL;
        for (uint64_t i = 0; ok && i < cap; i++)
            s->ntok[i] = INT64_MIN;
        if (ok && t->first_token_scenario) {
            s->ttft = malloc((cap ? cap : 1) * sizeof *s->ttft);
            ok = s->ttft != NULL;
            for (uint64_t i = 0; ok && i < cap; i++)
                s->ttft[i] = INT64_MIN;
        }
    }
    if (ok && lg_trace_enabled(t->L)) {
        s->sched = malloc((cap ? cap : 1) * sizeof *s->sched);
        s->issue = malloc((cap ? cap : 1) * sizeof *s->issue);
        s->issue_tid = calloc(cap ? cap : 1, sizeof *s->issue_tid);
        s->done_tid = calloc(cap ? cap : 1, sizeof *s->done_tid);
        s->ftok_tid = calloc(cap ? cap : 1, sizeof *s->ftok_tid);
        ok = s->sched && s->issue && s->issue_tid && s->done_tid && s->ftok_tid;
    }
    s->query_base = t->next_query_id;
    if (!ok) {
        series_free(s);
        return NULL;
    }
    return s;
}

/* Per-sample trace events of a finished series (slot holds latencies by now). */
static void trace_series(lg_test *t, series *s, uint64_t n, uint64_t spq)
{
    if (!s->sched)
        return;
    int64_t origin = lg_logger_origin_mono(t->L);
    for (uint64_t k = 0; k < n; k++) {
        int64_t sc = s->sched[k] - origin;
        lg_trace_sample_ev ev = {s->base + k, s->query_base + k / (spq ? spq : 1), k, sc,
                                 s->issue[k] - origin, sc + s->slot[k],
                                 s->ttft && s->ttft[k] != INT64_MIN && s->ftok_tid[k] ? sc + s->ttft[k] : INT64_MIN,
                                 s->issue_tid[k], s->done_tid[k], s->ftok_tid[k]};
        lg_trace_sample(t->L, &ev);
    }
}

static int bit_test(const uint64_t *bm, uint64_t k)
{
    return (bm[k >> 6] >> (k & 63)) & 1;
}

/* ---- completion path (thread safe) ----------------------------------------------------------- */

/* Resolves an id to an index in the current series, logging the reference's errors. */
static int resolve(lg_test *t, series *s, lg_response_id id, uint64_t *k)
{
    uint64_t seq = (uint64_t)id - 1;
    if (!s || id == 0) {
        errorf(t, "error_runtime", "Received completion for an unknown sample id %" PRIuPTR "", id);
        return -1;
    }
    if (seq < s->base) {
        if (seq < t->next_sample_id)
            errorf(t, "error_runtime",
                   "Received completion for an old sample. Min expected id: %" PRIu64
                   " Actual id: %" PRIu64,
                   s->base, seq);
        else
            errorf(t, "error_runtime", "Received completion for an unknown sample id %" PRIuPTR "", id);
        return -1;
    }
    uint64_t kk = seq - s->base;
    if (kk >= atomic_load_explicit(&s->issued, memory_order_acquire)) {
        errorf(t, "error_runtime",
               "Received completion for an unknown sample id %" PRIuPTR
               " (never issued in this series)",
               id);
        return -1;
    }
    *k = kk;
    return 0;
}

static void complete_impl(lg_test *t, lg_response *r, size_t n, lg_response_cb cb, void *cb_ctx)
{
    int64_t T = mono_now();
    series *s = atomic_load_explicit(&t->cur, memory_order_acquire);
    int32_t tid = s && s->done_tid ? (int32_t)gettid() : 0;
    uint64_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k;
        if (resolve(t, s, r[i].id, &k) != 0)
            continue;
        uint64_t bit = 1ull << (k & 63);
        if (atomic_fetch_or_explicit(&s->done[k >> 6], bit, memory_order_acq_rel) & bit) {
            errorf(t, "error_runtime", "Attempted to complete a sample twice.");
            continue;
        }
        if (tid)
            s->done_tid[k] = tid;
        int64_t lat = T - s->slot[k];
        s->slot[k] = lat;
        if (s->ntok) {
            int64_t nt = r[i].n_tokens;
            if (s->ttft && s->ttft[k] == INT64_MIN) {
                errorf(t, "error_runtime",
                       "Attempted to record a sample latency before it's first token latency");
                s->ttft[k] = 0;
            }
            if (nt == 0) {
                errorf(t, "error_runtime",
                       "n_tokens argument missing or attempted to record 0 as number of tokens");
            } else if (nt < 0) {
                errorf(t, "error_runtime", "Attempted to record a negative number of tokens");
                nt = 0;
            } else if (nt == 1) {
                errorf(t, "error_runtime", "Number of tokens need to be greater than 1");
                nt = 0;
            }
            s->ntok[k] = nt;
        }
        if (s->accuracy || (s->logsel && bit_test(s->logsel, k))) {
            if (cb)
                cb(cb_ctx, &r[i]);
            lg_accuracy_entry(t->L, s->base + k, s->qsl[k], (const void *)r[i].data, r[i].size,
                              s->tokdata ? s->tokdata[k] : NULL, s->toksize ? s->toksize[k] : 0,
                              r[i].n_tokens); /* as the SUT passed it: loadgen.cc logs the
                                                * response's n_tokens, before
                                                * RecordSampleCompletion corrects 1 or less */
        }
        ok++;
    }
    if (!s || !ok)
        return;
    int64_t prev = atomic_load_explicit(&s->last_done, memory_order_relaxed);
    while (prev < T && !atomic_compare_exchange_weak(&s->last_done, &prev, T))
        ;
    atomic_fetch_add(&s->completed, ok);
    if (atomic_load(&s->waiting)) {
        atomic_fetch_add(&s->wake, 1);
        futex_wake_all(&s->wake);
    }
}

/* Completion calls pass a gate, so that the test can end (or give up on a hung SUT) and free
 * its state while an SUT thread is still answering: late calls are ignored. */
static int gate_enter(lg_test *t)
{
    atomic_fetch_add(&t->inflight, 1);
    if (atomic_load(&t->closed)) {
        atomic_fetch_sub(&t->inflight, 1);
        return 0;
    }
    return 1;
}

static void gate_leave(lg_test *t)
{
    atomic_fetch_sub(&t->inflight, 1);
}

static void gate_close(lg_test *t)
{
    atomic_store(&t->closed, 1);
    while (atomic_load(&t->inflight) != 0)
        sched_yield();
}

void lg_query_samples_complete(lg_test *test, lg_response *responses, size_t n)
{
    if (to_sink(test, 0, responses, n))
        return;
    if (!gate_enter(test))
        return;
    complete_impl(test, responses, n, NULL, NULL);
    gate_leave(test);
}

void lg_query_samples_complete_cb(lg_test *test, lg_response *responses, size_t n,
                                  lg_response_cb cb, void *cb_ctx)
{
    if (to_sink(test, 0, responses, n))
        return;
    if (!gate_enter(test))
        return;
    complete_impl(test, responses, n, cb, cb_ctx);
    gate_leave(test);
}

static void first_token_impl(lg_test *t, lg_response *r, size_t n)
{
    int64_t T = mono_now();
    series *s = atomic_load_explicit(&t->cur, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        uint64_t k;
        if (resolve(t, s, r[i].id, &k) != 0)
            continue;
        if (!s->ttft) /* not a token run, or Offline: nothing is recorded */
            continue;
        if (bit_test((const uint64_t *)s->done, k)) {
            errorf(t, "error_runtime", "Attempted to record token latency after sample was completed");
            continue;
        }
        s->ttft[k] = T - s->slot[k];
        if (s->ftok_tid)
            s->ftok_tid[k] = (int32_t)gettid();
        if (s->tokdata && (s->accuracy || bit_test(s->logsel, k)) && !s->tokdata[k]) {
            void *copy = malloc(r[i].size ? r[i].size : 1);
            if (copy) {
                if (r[i].size)
                    memcpy(copy, (const void *)r[i].data, r[i].size);
                s->toksize[k] = r[i].size;
                s->tokdata[k] = copy;
            }
        }
    }
}

void lg_first_token_complete(lg_test *test, lg_response *responses, size_t n)
{
    if (to_sink(test, 1, responses, n))
        return;
    if (!gate_enter(test))
        return;
    first_token_impl(test, responses, n);
    gate_leave(test);
}

void lg_first_token_complete_cb(lg_test *test, lg_response *responses, size_t n,
                                lg_response_cb cb, void *cb_ctx)
{
    (void)cb;
    (void)cb_ctx; /* the reference does not invoke the callback for first tokens */
    if (to_sink(test, 1, responses, n))
        return;
    if (!gate_enter(test))
        return;
    first_token_impl(test, responses, n);
    gate_leave(test);
}

/* ---- waiting --------------------------------------------------------------------------------- */

/* lg_run_options.cancel was set: the test stops where it is. */
static int canceled(lg_test *t)
{
    if (!t->canceled && t->opts->cancel && atomic_load(t->opts->cancel))
        t->canceled = 1;
    return t->canceled;
}

/* Waits until every issued sample completed. Returns 0, or -1 on timeout (no completion for
 * timeout_ns) or cancellation. */
static int wait_count(lg_test *t, series *s, uint64_t want);

static int wait_all(lg_test *t, series *s)
{
    return wait_count(t, s, UINT64_MAX);
}

/* Waits until want samples (at most the issued ones) completed. */
static int wait_count(lg_test *t, series *s, uint64_t want)
{
    int64_t timeout = t->opts->timeout_ns;
    uint64_t last = atomic_load(&s->completed);
    int64_t last_progress = mono_now();
    for (;;) {
        uint64_t issued = atomic_load(&s->issued);
        if (want < issued)
            issued = want;
        uint64_t c = atomic_load(&s->completed);
        if (c >= issued)
            return 0;
        if (canceled(t))
            return -1;
        if (c != last) {
            last = c;
            last_progress = mono_now();
        }
        uint32_t w = atomic_load(&s->wake);
        atomic_store(&s->waiting, 1);
        if (atomic_load(&s->completed) >= issued) {
            atomic_store(&s->waiting, 0);
            return 0;
        }
        int64_t slice = 200000000; /* re-check every 200 ms */
        if (timeout > 0) {
            int64_t left = last_progress + timeout - mono_now();
            if (left <= 0) {
                atomic_store(&s->waiting, 0);
                if (atomic_load(&s->completed) != last)
                    continue;
                return -1;
            }
            if (left < slice)
                slice = left;
        }
        futex_wait(&s->wake, w, slice);
        atomic_store(&s->waiting, 0);
    }
}

static void sleep_until(int64_t target)
{
    for (;;) {
        int64_t now = mono_now();
        int64_t left = target - now;
        if (left <= 0)
            return;
        if (left > 80000) {
            int64_t wake = target - 50000;
            struct timespec ts = {wake / 1000000000, wake % 1000000000};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        } else {
            while (mono_now() < target)
                __asm__ __volatile__("pause");
            return;
        }
    }
}

/* ---- the timeout report ---------------------------------------------------------------------- */

static void report_timeout(lg_test *t, series *s)
{
    uint64_t issued = atomic_load(&s->issued), c = atomic_load(&s->completed);
    ms_buf b = MS_BUF_INIT;
    ms_buf_printf(&b,
                  "The SUT did not complete any sample for %.3f s (timeout): %" PRIu64
                  " of %" PRIu64 " issued samples are outstanding; first outstanding ids:",
                  (double)t->opts->timeout_ns / 1e9, issued - c, issued);
    int shown = 0;
    for (uint64_t k = 0; k < issued && shown < 16; k++)
        if (!bit_test((const uint64_t *)s->done, k)) {
            ms_buf_printf(&b, " %" PRIu64, s->base + k + 1);
            shown++;
        }
    errorf(t, "error_runtime", "%s", b.data ? b.data : "SUT timeout");
    ms_buf_free(&b);
    t->timed_out = 1;
}

/* ---- issuing a series ------------------------------------------------------------------------ */

typedef struct series_stats {
    uint64_t queries_issued;
    uint64_t samples_issued;
    int64_t start;              /* abs ns */
    int64_t last_sched;         /* abs ns, final issued query */
    int64_t last_issue;
    uint64_t last_k0, last_n;   /* samples of the final issued query */
    struct timeval start_wall;
    int natural_end;
    int exhausted;
    uint64_t i_period;          /* early MultiStream: intervals ticked so far */
} series_stats;

double lg_accuracy_log_probability(const lg_effective *ef)
{
    double p = ef->accuracy_log_probability;
    if (ef->accuracy_log_sampling_target > 0) {
        uint64_t expected = (uint64_t)(ef->target_qps * (double)ef->min_duration_ms / 1000);
        uint64_t minimum = ef->min_query_count * ef->samples_per_query;
        if (ef->scenario != LG_OFFLINE)
            expected *= ef->samples_per_query;
        else
            minimum = ef->min_sample_count;
        /* the floor came with tag v1.0.1 (loadgen.cc RunPerformanceMode); tag v0.7.1 divides by
         * the duration's count alone (infinite with min_duration 0: every sample logged) */
        const lg_version_rules *vr = ef->rules ? ef->rules : lg_version_rules_latest();
        if (vr->sampling_expected_floor && expected < minimum)
            expected = minimum;
        p = (double)ef->accuracy_log_sampling_target / (double)expected;
    }
    return p;
}

static void dump_line(FILE *f, char tag, const size_t *idx, size_t n)
{
    fputc(tag, f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, " %zu", idx[i]);
    fputc('\n', f);
}

/* Issues every query of g (reference loadgen.cc, IssueQueries); on return all issued samples have
 * completed (or the SUT timed out: returns -1). */
static int issue_series(lg_test *t, series *s, lg_qgen *g, double log_p, double log_offset,
                        series_stats *st)
{
    const lg_effective *ef = &t->ef;
    lg_scenario scen = ef->scenario;
    int acc = s->accuracy;
    uint64_t maxq = lg_qgen_max_query_samples(g);
    if (g->offline_remainder && g->L->len % g->spq > maxq)
        maxq = g->L->len % g->spq;
    size_t cap = (size_t)maxq;
    size_t *idx = malloc((cap + 1) * sizeof *idx);
    lg_query_sample *qs = malloc((cap + 1) * sizeof *qs);
    size_t qs_cap = cap + 1;
    if (!idx || !qs) {
        free(idx);
        free(qs);
        return -2;
    }
    /* lookahead for Server coalescing */
    size_t *la_idx = NULL;
    size_t la_n = 0;
    int64_t la_delta = 0;
    int coalesce = scen == LG_SERVER && ef->server_coalesce_queries;
    if (coalesce) {
        la_idx = malloc((cap + 1) * sizeof *la_idx);
        if (!la_idx) {
            free(idx);
            free(qs);
            return -2;
        }
    }
    int64_t target_duration_ns = (int64_t)ef->target_duration_ms * 1000000;
    int64_t max_duration_ns = (int64_t)ef->max_duration_ms * 1000000;
    uint64_t k = 0; /* samples assigned so far */
    int rc = 0;
    FILE *dump = t->opts->dump_issued;
    /* everything logged so far reaches the files before the SUT gets to run */
    lg_detail_flush(t->L);
    /* precise wake-ups for the Server schedule (default timer slack is 50 us) */
    int old_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
    paired_clocks(&st->start_wall, &st->start);
    int64_t start = st->start;

    /* assigns ids and bookkeeping for one generated query's samples, appends to qs */
    size_t nq = 0;
#define ASSIGN(IDXARR, N, SCHED)                                                            \
    do {                                                                                    \
        for (size_t i_ = 0; i_ < (N); i_++) {                                               \
            double v_ = lg_uniform_real(&t->acc_rng, 0, 1);                                 \
            if (s->log_possible) {                                                          \
                s->qsl[k] = (uint32_t)(IDXARR)[i_];                                         \
                if (!acc) {                                                                 \
                    double w_ = v_ + log_offset;                                            \
                    if (w_ >= 1.0)                                                          \
                        w_ -= 1.0;                                                          \
                    if (w_ <= log_p)                                                        \
                        s->logsel[k >> 6] |= 1ull << (k & 63);                              \
                }                                                                           \
            }                                                                               \
            s->slot[k] = (SCHED);                                                           \
            if (s->sched) {                                                                 \
                s->sched[k] = (SCHED);                                                      \
                s->issue[k] = now;                                                          \
                s->issue_tid[k] = (int32_t)gettid();                                        \
            }                                                                               \
            qs[nq].id = (lg_response_id)(s->base + k + 1);                                  \
            qs[nq].index = (IDXARR)[i_];                                                    \
            nq++;                                                                           \
            k++;                                                                            \
        }                                                                                   \
        t->next_query_id++;                                                                 \
    } while (0)

    int64_t delta;
    int stopped = 0;
    uint64_t query_base = t->next_query_id;
    size_t n = lg_qgen_next(g, idx, &delta);
    while (n > 0) {
        int64_t now, sched;
        if (canceled(t)) {
            rc = -1;
            goto out;
        }
        switch (scen) {
        case LG_MULTI_STREAM:
            if (t->early_ms && !acc) {
                /* reference r0.5 loadgen.cc, QueryScheduler<MultiStream>::Wait: at most
                 * max_async_queries in flight (the oldest waited for; queries are counted by
                 * completed samples), then the next interval tick not yet past; the ticks
                 * passed over are the skipped intervals of the previous query */
                uint64_t qi = st->queries_issued, ma = ef->max_async_queries ? ef->max_async_queries : 1;
                if (qi >= ma && wait_count(t, s, (qi - ma + 1) * ef->samples_per_query) != 0) {
                    rc = -1;
                    goto out;
                }
                now = mono_now();
                uint64_t old = st->i_period;
                int64_t tick;
                do {
                    st->i_period++;
                    tick = start + lg_seconds_to_ns((double)st->i_period / ef->target_qps);
                } while (tick < now);
                if (s->qint)
                    s->qint[qi] = (int64_t)(st->i_period - old);
                sleep_until(tick);
                now = mono_now();
                sched = tick;
                break;
            }
            /* fall through */
        case LG_SINGLE_STREAM:
            if (wait_all(t, s) != 0) {
                rc = -1;
                goto out;
            }
            now = mono_now();
            sched = now;
            break;
        case LG_SERVER: {
            int64_t target = start + delta;
            now = mono_now();
            if (now < target) {
                sleep_until(target);
                now = mono_now();
            }
            sched = target;
            break;
        }
        default:
            now = mono_now();
            sched = start;
            break;
        }
        nq = 0;
        uint64_t last_k0 = k, last_n = n;
        int64_t last_sched = sched;
        ASSIGN(idx, n, sched);
        if (dump)
            dump_line(dump, 'Q', idx, n);
        uint64_t merged = 0;
        if (coalesce) {
            /* merge the following queries that are already due (reference IssueQueries,
             * server_coalesce_queries) */
            la_n = lg_qgen_next(g, la_idx, &la_delta);
            while (la_n > 0 && start + la_delta <= now) {
                if (nq + la_n > qs_cap) {
                    size_t nc = (nq + la_n) * 2;
                    lg_query_sample *nqs = realloc(qs, nc * sizeof *nqs);
                    if (!nqs) {
                        rc = -2;
                        goto out;
                    }
                    qs = nqs;
                    qs_cap = nc;
                }
                last_k0 = k;
                last_n = la_n;
                last_sched = start + la_delta;
                ASSIGN(la_idx, la_n, start + la_delta);
                if (dump)
                    dump_line(dump, 'Q', la_idx, la_n);
                merged++;
                la_n = lg_qgen_next(g, la_idx, &la_delta);
            }
        }
        atomic_store_explicit(&s->issued, k, memory_order_release);
        t->sut->issue_query(t->sut->ctx, t, qs, nq);
        st->queries_issued += merged + 1;
        st->last_sched = last_sched;
        st->last_issue = now;
        st->last_k0 = last_k0;
        st->last_n = last_n;
        if (t->opts->progress && (st->queries_issued & 1023) == 0)
            ms_progress_update(&t->prog, st->queries_issued, g->query_count, "queries");
        if (!acc) {
            int64_t duration = now - start;
            if (scen == LG_SERVER) {
                uint64_t outstanding = st->queries_issued - atomic_load(&s->completed);
                if (ef->max_async_queries != 0 && outstanding > ef->max_async_queries) {
                    if (text_log(t)) /* IssueQueryController / r0.5 loadgen.cc IssueQueries */
                        text_error(t, t->vr->issue_query_controller
                                          ? "IssueQueryThread \"0\" :  Ending early: Too many outstanding "
                                            "queries., \"issued\" : %" PRIu64 ", \"outstanding\" : %" PRIu64
                                          : "Ending early: Too many outstanding queries.\"issued\" : %" PRIu64
                                            ", \"outstanding\" : %" PRIu64,
                                   st->queries_issued, outstanding);
                    else
                    errorf(t, "error_runtime",
                           "IssueQueryThread 0 Ending early: Too many outstanding queries. issued %" PRIu64
                           " outstanding %" PRIu64,
                           st->queries_issued, outstanding);
                    stopped = 1;
                    break;
                }
            } else if (st->queries_issued >= ef->min_query_count && duration >= target_duration_ns) {
                /* v0.7.1 issue_query_controller.cc: with a leading space in the text log */
                generic(t, "Ending naturally: Minimum query count and test duration met.",
                        t->vr->issue_query_controller
                            ? " Ending naturally: Minimum query count and test duration met."
                            : "Ending naturally: Minimum query count and test duration met.");
                st->natural_end = 1;
                stopped = 1;
                break;
            }
            if (ef->max_query_count != 0 && st->queries_issued >= ef->max_query_count) {
                if (text_log(t))
                    text_error(t, t->vr->issue_query_controller
                                      ? "IssueQueryThread \"0\" :  Ending early: Max query count reached., "
                                        "\"query_count\" : %" PRIu64
                                      : "Ending early: Max query count reached.\"query_count\" : %" PRIu64,
                               st->queries_issued);
                else
                errorf(t, "error_runtime",
                       "IssueQueryThread 0 Ending early: Max query count reached. query_count %" PRIu64,
                       st->queries_issued);
                stopped = 1;
                break;
            }
            if (ef->max_duration_ms != 0 && duration > max_duration_ns) {
                if (text_log(t))
                    text_error(t, t->vr->issue_query_controller
                                      ? "IssueQueryThread \"0\" :  Ending early: Max test duration reached., "
                                        "\"duration_ns\" : %" PRId64
                                      : "Ending early: Max test duration reached.\"duration_ns\" : %" PRId64,
                               duration);
                else
                errorf(t, "error_runtime",
                       "IssueQueryThread 0 Ending early: Max test duration reached. duration_ns %" PRId64,
                       duration);
                stopped = 1;
                break;
            }
        }
        if (coalesce) {
            n = la_n;
            delta = la_delta;
            if (n)
                memcpy(idx, la_idx, n * sizeof *idx);
        } else {
            n = lg_qgen_next(g, idx, &delta);
        }
    }
    st->exhausted = !stopped;
    st->samples_issued = k;
    t->sut->flush_queries(t->sut->ctx);
    if (!acc && scen != LG_SERVER && st->exhausted && !st->natural_end && text_log(t)) {
        /* r0.5 loadgen.cc IssueQueries: an error, then a plain entry */
        text_error(t, "%s", "Ending early: Ran out of generated queries to issue before the minimum query "
                            "count and test duration were reached.");
        txt(t, "Please update the relevant expected latency or target qps in the TestSettings so they "
               "are more accurate.");
    } else if (!acc && scen != LG_SERVER && st->exhausted && !st->natural_end)
        errorf(t, "error_runtime",
               "Ending early: Ran out of generated queries to issue before the minimum query count "
               "and test duration were reached. Please update the relevant expected latency or "
               "target qps in the TestSettings so they are more accurate.");
    if (wait_all(t, s) != 0)
        rc = -1;
out:
    if (rc == -1 && !t->canceled)
        report_timeout(t, s);
    /* Generated-but-unissued queries still consume ids and accuracy-log draws (reference
     * loadgen.cc, GenerateQueries: accuracy_log_rng_seed). */
    for (uint64_t i = k; i < g->sample_count; i++)
        (void)lg_uniform_real(&t->acc_rng, 0, 1);
    t->next_query_id = query_base + g->query_count;
    t->next_sample_id = s->base + g->sample_count;
    if (old_slack > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)old_slack, 0, 0, 0);
    if (t->opts->progress)
        ms_progress_end(&t->prog);
    free(idx);
    free(qs);
    free(la_idx);
    return rc;
#undef ASSIGN
}

/* ---- detail-log blocks ----------------------------------------------------------------------- */

static void log_index_list(lg_logger *L, const char *key, const size_t *idx, size_t n)
{
    ms_buf b = MS_BUF_INIT;
    if (ms_buf_reserve(&b, n * 8 + 2) != 0)
        return;
    ms_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++)
        ms_buf_printf(&b, i ? ",%zu" : "%zu", idx[i]);
    ms_buf_putc(&b, ']');
    lg_detail_raw(L, lg_logger_now(L), key, b.data, b.len, LN);
    ms_buf_free(&b);
}

static void fmt_power_time(char *buf, size_t n, const struct timeval *base, int64_t offset_ns)
{
    int64_t us = (int64_t)base->tv_sec * 1000000 + base->tv_usec + offset_ns / 1000;
    time_t secs = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char d[32];
    strftime(d, sizeof d, "%m-%d-%Y %H:%M:%S", &tm);
    snprintf(buf, n, "%.20s.%03d", d, (int)((us / 1000) % 1000));
}

static void log_series_end(lg_test *t, const series_stats *st, series *s)
{
    lg_logger *L = t->L;
    int64_t now = lg_logger_now(L);
    static const char *const counters[] = {
        "logger_swap_request_slots_retry_count", "logger_swap_request_slots_retry_retry_count",
        "logger_swap_request_slots_retry_reencounter_count", "logger_start_reading_entries_retry_count",
        "logger_tls_total_log_cas_fail_count", "logger_tls_total_swap_buffers_slot_retry_count"};
    for (int i = 0; i < 6; i++)
        lg_detail_i64(L, now, counters[i], 0, LN);
    int64_t last = atomic_load(&s->last_done);
    int64_t span = last > st->start ? last - st->start : 0;
    char b[64], e[64];
    fmt_power_time(b, sizeof b, &st->start_wall, 0);
    fmt_power_time(e, sizeof e, &st->start_wall, span);
    lg_detail_str(L, now, "power_begin", b, LN);
    lg_detail_str(L, now, "power_end", e, LN);
    if (text_log(t)) { /* r0.5 logging.cc Logger::LogContentionCounters; loadgen.cc POWER_BEGIN */
        txt(t, "Log Contention Counters:");
        for (int i = 0; i < 6; i++)
            txt(t, "0 : %s", counters[i] + strlen("logger_"));
        txt(t, "POWER_BEGIN: \"mode\" : %s, \"time\" : %s", s->accuracy ? "Accuracy" : "Performance", b);
        txt(t, "POWER_END: \"mode\" : %s, \"time\" : %s", s->accuracy ? "Accuracy" : "Performance", e);
    }
}

static int load_set(lg_test *t, const lg_lset *set)
{
    log_index_list(t->L, "loaded_qsl_set", set->idx, set->len);
    if (text_log(t)) { /* r0.5 loadgen.cc LoadSamplesToRam: detail("Loading QSL : ", "set", ...) */
        ms_buf b = MS_BUF_INIT;
        ms_buf_puts(&b, "Loading QSL : \"set\" : \"[");
        for (size_t i = 0; i < set->len; i++)
            ms_buf_printf(&b, i ? ",%zu" : "%zu", set->idx[i]);
        ms_buf_puts(&b, "]\"");
        if (b.data)
            lg_detail_text(t->L, lg_logger_now(t->L), b.data, 0, LN);
        ms_buf_free(&b);
    }
    if (t->opts->dump_issued)
        dump_line(t->opts->dump_issued, 'L', set->idx, set->len);
    if (t->qsl->load_samples && t->qsl->load_samples(t->qsl->ctx, set->idx, set->len) != 0) {
        errorf(t, "error_runtime", "The QSL failed to load the samples of the loadable set.");
        t->qsl_failed = 1;
        return -1;
    }
    return 0;
}

static void unload_set(lg_test *t, const lg_lset *set)
{
    if (t->qsl->unload_samples && t->qsl->unload_samples(t->qsl->ctx, set->idx, set->len) != 0)
        errorf(t, "error_runtime", "The QSL failed to unload the samples of the loadable set.");
}

static void log_generated(lg_test *t, const lg_qgen *g)
{
    int64_t now = lg_logger_now(t->L);
    lg_detail_u64(t->L, now, "generated_query_count", g->query_count, LN);
    /* the generated query's size from tag v5.0.1; before, the effective samples_per_query
     * whatever the queries hold (loadgen.cc GenerateQueries of tag v4.1: settings.samples_per_query) */
    lg_detail_u64(t->L, now, "generated_samples_per_query",
                  t->vr->logs_query_spq ? g->spq : t->ef.samples_per_query, LN);
    lg_detail_i64(t->L, now, "generated_query_duration", g->total_duration_ns, LN);
    txt(t, "GeneratedQueries: \"queries\" : %" PRIu64 ", \"samples per query\" : %" PRIu64
           ", \"duration\" : %" PRId64,
        g->query_count, t->vr->logs_query_spq ? g->spq : t->ef.samples_per_query, g->total_duration_ns);
}

/* ---- accuracy mode (reference loadgen.cc, RunAccuracyMode) ----------------------------------- */

static int run_accuracy(lg_test *t)
{
    ms_err e;
    generic(t, "Starting accuracy mode", "Starting accuracy mode:");
    lg_lset *sets;
    size_t nsets;
    if (lg_make_loadable_sets(&t->ef, t->qsl->total_sample_count, t->compat, 1, &sets, &nsets, &e)) {
        errorf(t, "error_runtime", "%s", e.msg);
        return -2;
    }
    int rc = 0;
    for (size_t c = 0; c < nsets && rc == 0; c++) {
        if (load_set(t, &sets[c]) != 0) {
            rc = -2;
            break;
        }
        lg_qgen g;
        if (lg_qgen_init(&g, &t->ef, &sets[c], 1, &e) != MS_OK) {
            errorf(t, "error_runtime", "%s", e.msg);
            rc = -2;
            break;
        }
        log_generated(t, &g);
        series *s = series_new(t, 1, g.sample_count, 1);
        if (!s) {
            lg_qgen_free(&g);
            rc = -2;
            break;
        }
        lg_mt19937 off;
        lg_mt_seed(&off, t->ef.accuracy_log_rng_seed);
        double offset = lg_uniform_real(&off, 0, 1);
        atomic_store(&t->cur, s);
        series_stats st;
        memset(&st, 0, sizeof st);
        int64_t t0 = lg_logger_now(t->L);
        rc = issue_series(t, s, &g, 0, offset, &st);
        lg_trace_complete(t->L, "AccuracySeries", t0, lg_logger_now(t->L));
        if (rc == 0)
            trace_series(t, s, st.samples_issued, g.spq);
        log_series_end(t, &st, s);
        unload_set(t, &sets[c]);
        lg_qgen_free(&g);
        if (rc != -1) {
            atomic_store(&t->cur, NULL);
            series_free(s);
        } /* after a timeout the SUT may still touch the series: keep it */
    }
    lg_lsets_free(sets, nsets);
    return rc;
}

/* ---- performance mode (reference loadgen.cc, RunPerformanceMode) ----------------------------- */

typedef struct perf_run {
    series *s;
    series_stats st;
    lg_effective ef;       /* settings of this trial (FindPeak changes target_qps) */
    int64_t *qlat;
    int64_t *qiv;          /* early MultiStream: per-query interval counts */
    lg_perf_input in;
    lg_perf_result res;
    int have_result;
    int report;            /* hand the latencies to lg_run_options.report_latencies */
} perf_run;

static void perf_run_move(perf_run *dst, perf_run *src)
{
    *dst = *src;
    dst->in.ef = &dst->ef;
    memset(src, 0, sizeof *src);
}

static void perf_run_free(perf_run *p)
{
    if (p->have_result)
        lg_perf_result_free(&p->res);
    series_free(p->s);
    free(p->qlat);
    free(p->qiv);
    memset(p, 0, sizeof *p);
}

/* One series on an already loaded set; computes the results (not logged). */
static int perf_series(lg_test *t, const lg_lset *set, perf_run *pr)
{
    ms_err e;
    lg_effective saved = t->ef;
    t->ef = pr->ef;
    lg_qgen g;
    if (lg_qgen_init(&g, &t->ef, set, 0, &e) != MS_OK) {
        errorf(t, "error_runtime", "%s", e.msg);
        t->ef = saved;
        return -2;
    }
    log_generated(t, &g);
    double p = lg_accuracy_log_probability(&t->ef);
    series *s = series_new(t, 0, g.sample_count, p > 0);
    if (!s) {
        lg_qgen_free(&g);
        t->ef = saved;
        errorf(t, "error_runtime", "out of memory for %" PRIu64 " samples", g.sample_count);
        return -2;
    }
    if (t->early_ms && !(s->qint = calloc(g.query_count + 1, sizeof *s->qint))) {
        series_free(s);
        lg_qgen_free(&g);
        t->ef = saved;
        errorf(t, "error_runtime", "out of memory for %" PRIu64 " queries", g.query_count);
        return -2;
    }
    lg_mt19937 off;
    lg_mt_seed(&off, t->ef.accuracy_log_rng_seed);
    double offset = lg_uniform_real(&off, 0, 1);
    atomic_store(&t->cur, s);
    pr->s = s;
    int64_t t0 = lg_logger_now(t->L);
    int rc = issue_series(t, s, &g, p, offset, &pr->st);
    lg_trace_complete(t->L, "PerformanceSeries", t0, lg_logger_now(t->L));
    lg_qgen_free(&g);
    t->ef = saved;
    if (rc != 0) {
        if (rc == -1)
            pr->s = NULL; /* the SUT may still hold ids of this series */
        return rc;
    }
    atomic_store(&t->cur, NULL);

    /* results inputs */
    series_stats *st = &pr->st;
    uint64_t n = st->samples_issued;
    int64_t start = st->start;
    int64_t *lat = s->slot;
    double max_latency = 0;
    int64_t maxl = INT64_MIN;
    for (uint64_t i = 0; i < n; i++)
        if (lat[i] > maxl)
            maxl = lat[i];
    if (n)
        max_latency = (double)maxl / 1e9;
    int64_t last_done = 0;
    for (uint64_t i = st->last_k0; i < st->last_k0 + st->last_n && i < n; i++) {
        int64_t d = s->slot[i];
        if (d > last_done)
            last_done = d;
    }
    int64_t last_done_abs = st->last_sched + last_done;
    pr->in.ef = &pr->ef;
    pr->in.compat = t->compat;
    pr->in.sut_name = t->sut_name;
    pr->in.sample_lat = lat;
    pr->in.sample_count = n;
    pr->in.queries_issued = st->queries_issued;
    pr->in.token_mode = t->token_mode;
    pr->in.max_latency = max_latency;
    pr->in.final_query_scheduled_time = (double)(st->last_sched - start) / 1e9;
    pr->in.final_query_issued_time = (double)(st->last_issue - start) / 1e9;
    pr->in.final_query_all_samples_done_time = (double)(last_done_abs - start) / 1e9;
    if (pr->ef.scenario == LG_MULTI_STREAM) {
        uint64_t spq = pr->ef.samples_per_query, nq = st->queries_issued;
        pr->qlat = malloc((nq ? nq : 1) * sizeof *pr->qlat);
        if (!pr->qlat)
            return -2;
        for (uint64_t q = 0; q < nq; q++) {
            int64_t m = INT64_MIN;
            for (uint64_t j = q * spq; j < (q + 1) * spq && j < n; j++)
                if (lat[j] > m)
                    m = lat[j];
            pr->qlat[q] = m;
        }
        pr->in.query_lat = pr->qlat;
        if (t->early_ms) {
            /* reference r0.5 loadgen.cc, IssueQueries: a query's intervals are the ticks the
             * query max_async_queries later advanced; the last queries, which have none, are
             * judged by their latency (ceil(target_qps * latency)) */
            uint64_t ma = pr->ef.max_async_queries ? pr->ef.max_async_queries : 1;
            pr->qiv = malloc((nq ? nq : 1) * sizeof *pr->qiv);
            if (!pr->qiv)
                return -2;
            for (uint64_t q = 0; q < nq; q++)
                pr->qiv[q] = q + ma < nq ? s->qint[q + ma]
                                         : (int64_t)ceil(pr->ef.target_qps * ((double)pr->qlat[q] / 1e9));
            pr->in.early_ms = 1;
            pr->in.query_intervals = pr->qiv;
        }
    }
    if (t->token_mode) {
        int64_t tc = 0;
        for (uint64_t i = 0; i < n; i++)
            if (s->ntok[i] != INT64_MIN)
                tc += s->ntok[i];
        pr->in.token_count = tc;
        if (s->ttft) {
            /* TPOT = (latency - TTFT) / (n_tokens - 1), int64 division, stored n_tokens */
            for (uint64_t i = 0; i < n; i++) {
                int64_t ft = s->ttft[i] == INT64_MIN ? 0 : s->ttft[i];
                int64_t nt = s->ntok[i] == INT64_MIN ? 0 : s->ntok[i];
                s->ntok[i] = nt - 1 != 0 ? (lat[i] - ft) / (nt - 1) : 0;
                s->ttft[i] = ft;
            }
            pr->in.ttft = s->ttft;
            pr->in.tpot = s->ntok;
        }
    }
    /* the trace gets per-sample events before the arrays are sorted */
    trace_series(t, s, n, pr->ef.samples_per_query);
    if (pr->report && t->opts->report_latencies)
        t->opts->report_latencies(t->opts->report_latencies_ctx, lat, (size_t)n);
    double pct = pr->ef.target_latency_percentile;
    if (pr->ef.scenario != LG_OFFLINE && !(pct >= 0 && pct <= 1)) {
        /* the reference indexes its sorted latencies with it (results.cc / loadgen.cc
         * PerformanceSummary::ProcessLatencies): undefined past 1; no result here */
        errorf(t, "error_runtime", "target_latency_percentile %g is outside [0, 1]: no result can be computed",
               pct);
        return -2;
    }
    if (lg_perf_compute(&pr->in, &pr->res) != 0) {
        errorf(t, "error_runtime", "out of memory computing results");
        return -2;
    }
    pr->have_result = 1;
    return 0;
}

static void write_perf_result(lg_test *t, perf_run *pr)
{
    ms_buf sum = MS_BUF_INIT;
    if (lg_perf_summary(&pr->in, &pr->res, &sum) == 0)
        lg_summary_write(t->L, sum.data, sum.len);
    ms_buf_free(&sum);
    int64_t now = lg_logger_now(t->L);
    lg_perf_log_detail(t->L, now, &pr->in, &pr->res);
}

/* What the reference LoadGen prints on stdout goes to lg_run_options.console (dropped without one). */
static void console_printf(lg_test *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void console_printf(lg_test *t, const char *fmt, ...)
{
    if (!t->opts->console)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->opts->console(t->opts->console_ctx, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void clock_check(lg_test *t, const series_stats *st)
{
    struct timeval now;
    int64_t mono;
    paired_clocks(&now, &mono);
    int64_t perf_ms = (mono - st->start) / 1000000;
    int64_t sys_ms = (tv_us(&now) - tv_us(&st->start_wall)) / 1000;
    float ratio = (float)perf_ms / (float)sys_ms;
    if (t->ef.print_timestamps)
        console_printf(t, "Loadgen :: Perf mode stop. systme_clock Timestamp = %lld\n"
                          "Loadgen :: PerfClock Perf duration = %lldms\n"
                          "Loadgen :: system_clock Perf duration = %lldms\n"
                          "Loadgen :: PerfClock/system_clock ratio = %.4f\n",
                       (long long)now.tv_sec, (long long)perf_ms, (long long)sys_ms, ratio);
    char msg[160];
    if (ratio > 1.01 || ratio < 0.99) {
        snprintf(msg, sizeof msg, "PerfClock and system_clock differ by more than 1%%!  pc_sc_ratio: %g", ratio);
        errorf(t, "error_runtime", "%s", msg);
    } else if (ratio > 1.001 || ratio < 0.999) {
        snprintf(msg, sizeof msg, "PerfClock and system_clock differ by more than 0.1%%!  pc_sc_ratio: %g", ratio);
        lg_detail_warning(t->L, lg_logger_now(t->L), msg, LN);
    }
}

/* The performance run's loadable sets (reference loadgen.cc GenerateLoadableSets), the first one
 * loaded. Returns 0, or -2 (logged). */
static int load_perf_set(lg_test *t, const lg_effective *ef, lg_lset **sets, size_t *nsets)
{
    ms_err e;
    if (lg_make_loadable_sets(ef, t->qsl->total_sample_count, t->compat, 0, sets, nsets, &e)) {
        errorf(t, "error_runtime", "%s", e.msg);
        return -2;
    }
    if (load_set(t, &(*sets)[0]) != 0) {
        lg_lsets_free(*sets, *nsets);
        return -2;
    }
    return 0;
}

static int run_performance(lg_test *t, lg_run_result *res)
{
    generic(t, "Starting performance mode", "Starting performance mode:");
    lg_lset *sets;
    size_t nsets;
    if (load_perf_set(t, &t->ef, &sets, &nsets) != 0)
        return -2;
    if (t->ef.print_timestamps) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        console_printf(t, "Loadgen :: Perf mode start. system_clock Timestamp = %lld\n", (long long)tv.tv_sec);
    }
    perf_run pr;
    memset(&pr, 0, sizeof pr);
    pr.ef = t->ef;
    pr.report = 1;
    int rc = perf_series(t, &sets[0], &pr);
    if (rc == 0) {
        clock_check(t, &pr.st);
        log_series_end(t, &pr.st, pr.s);
        write_perf_result(t, &pr);
        res->ran_performance = 1;
        res->valid = pr.res.valid;
        res->metric = pr.res.metric;
        res->query_count = pr.st.queries_issued;
        res->sample_count = pr.st.samples_issued;
    } else if (pr.s) {
        log_series_end(t, &pr.st, pr.s);
    }
    unload_set(t, &sets[0]);
    if (rc != -1)
        perf_run_free(&pr);
    lg_lsets_free(sets, nsets);
    return rc;
}

/* ---- FindPeakPerformance (reference loadgen.cc, FindPeakPerformanceMode) --------------------- */

static int find_peak(lg_test *t, lg_run_result *res)
{
    ms_err e;
    char msg[256];
    lg_logger *L = t->L;
    if (t->ef.scenario != LG_SERVER) {
        errorf(t, "error_invalid_config", "Finding peak performance is only supported in Server scenarios.");
        return 0;
    }
    generic(t, "Starting FindPeakPerformance mode", "Starting FindPeakPerformance mode:");
    snprintf(msg, sizeof msg, "FindPeakPerformance: Check validity of the base settings field: %f",
             t->ef.target_qps);
    lg_detail_str(L, lg_logger_now(L), "generic_message", msg, LN);
    lg_lset *sets;
    size_t nsets;
    if (lg_make_loadable_sets(&t->ef, t->qsl->total_sample_count, t->compat, 0, &sets, &nsets, &e)) {
        errorf(t, "error_runtime", "%s", e.msg);
        return -2;
    }
    perf_run best, trial;
    memset(&best, 0, sizeof best);
    int rc = 0;
    double lo = t->ef.target_qps;
    /* the base run */
    if (load_set(t, &sets[0]) != 0) {
        lg_lsets_free(sets, nsets);
        return -2;
    }
    best.ef = t->ef;
    rc = perf_series(t, &sets[0], &best);
    if (rc != 0)
        goto done;
    log_series_end(t, &best.st, best.s);
    unload_set(t, &sets[0]);
    if (!best.res.perf_constraints_met) {
        snprintf(msg, sizeof msg,
                 "FindPeakPerformance: Initial lower bound does not satisfy performance "
                 "constraints, msg: %s",
                 best.res.perf_rec);
        errorf(t, "error_runtime", "%s", msg);
        write_perf_result(t, &best);
        goto fill;
    }
    double hi;
    for (;;) {
        hi = lo * (1 + t->ef.server_find_peak_qps_boundary_step_size);
        snprintf(msg, sizeof msg, "FindBoundaries: Checking fields [%f, %f)", lo, hi);
        lg_detail_str(L, lg_logger_now(L), "generic_message", msg, LN);
        if (load_set(t, &sets[0]) != 0) {
            rc = -2;
            goto done;
        }
        memset(&trial, 0, sizeof trial);
        trial.ef = t->ef;
        trial.ef.target_qps = hi;
        rc = perf_series(t, &sets[0], &trial);
        if (rc != 0)
            goto done;
        log_series_end(t, &trial.st, trial.s);
        unload_set(t, &sets[0]);
        if (!trial.res.perf_constraints_met) {
            perf_run_free(&trial);
            break;
        }
        perf_run_free(&best);
        perf_run_move(&best, &trial);
        lo = hi;
    }
    snprintf(msg, sizeof msg, "FindPeakPerformance: Found boundaries: [%f, %f)", lo, hi);
    lg_detail_str(L, lg_logger_now(L), "generic_message", msg, LN);
    if (load_set(t, &sets[0]) != 0) {
        rc = -2;
        goto done;
    }
    int d = t->ef.server_find_peak_qps_decimals_of_precision;
    double scale = pow(10, d);
    while (!(floor(lo * scale) + 1 >= floor(hi * scale))) {
        double mid = lo + (hi - lo) / 2;
        snprintf(msg, sizeof msg,
                 "FindPeakPerformanceBinarySearch: Testing the mid value of bounds [%f, %f): %f", lo,
                 hi, mid);
        lg_detail_str(L, lg_logger_now(L), "generic_message", msg, LN);
        memset(&trial, 0, sizeof trial);
        trial.ef = t->ef;
        trial.ef.target_qps = mid;
        rc = perf_series(t, &sets[0], &trial);
        if (rc != 0)
            goto done;
        log_series_end(t, &trial.st, trial.s);
        if (trial.res.perf_constraints_met) {
            perf_run_free(&best);
            perf_run_move(&best, &trial);
            lo = mid;
        } else {
            perf_run_free(&trial);
            hi = mid;
        }
    }
    unload_set(t, &sets[0]);
    snprintf(msg, sizeof msg, "FindPeakPerformance: Found peak performance field: %f", lo);
    lg_detail_str(L, lg_logger_now(L), "generic_message", msg, LN);
    write_perf_result(t, &best);
fill:
    res->ran_performance = 1;
    res->valid = best.res.valid;
    res->metric = best.res.metric;
    res->query_count = best.st.queries_issued;
    res->sample_count = best.st.samples_issued;
done:
    if (rc != -1)
        perf_run_free(&best);
    lg_lsets_free(sets, nsets);
    return rc;
}

/* ---- FindPeakPerformance of the early MultiStream ---------------------------------------------
 * The v0.5 rules' MultiStream metric: the largest stream count (samples per query) whose run meets
 * the tail-latency bound, found by doubling from the requested count (reference r0.5 loadgen.cc,
 * FindPeakPerformanceMode: "Check validity of the base settings field", FindBoundaries), a binary
 * search, then confirmation: the row's stability_runs runs at the count; if one fails the count is
 * reduced by one and confirmed again. Every trial is logged and returned in lg_run_result. */

const char *lg_peak_phase_name(lg_peak_phase p)
{
    static const char *const names[] = {"base", "boundary", "search", "confirm"};
    return (unsigned)p < 4 ? names[p] : "?";
}

static int peak_trial(lg_test *t, uint64_t n, lg_peak_phase phase, perf_run *out, lg_run_result *res)
{
    char msg[320];
    memset(out, 0, sizeof *out);
    out->ef = t->ef;
    out->ef.samples_per_query = n;
    out->ef.min_sample_count = out->ef.min_query_count * n;
    lg_lset *sets;
    size_t nsets;
    if (load_perf_set(t, &out->ef, &sets, &nsets) != 0)
        return -2;
    int rc = perf_series(t, &sets[0], out);
    if (rc == 0)
        log_series_end(t, &out->st, out->s);
    unload_set(t, &sets[0]);
    lg_lsets_free(sets, nsets);
    if (rc != 0) {
        perf_run_free(out); /* after a timeout its series stays with the test (t->cur) */
        return rc;
    }
    const lg_perf_result *r = &out->res;
    if (res->n_peak_trials < LG_MAX_PEAK_TRIALS) {
        lg_peak_trial *tr = &res->peak_trials[res->n_peak_trials++];
        tr->phase = phase;
        tr->streams = n;
        tr->passed = r->perf_constraints_met;
        tr->valid = r->valid;
        tr->intervals_target = r->intervals_target;
        tr->latency_target_ns = r->query.target;
        tr->queries = out->st.queries_issued;
        tr->overtime_queries = r->overtime_query_count;
        tr->skipped_intervals = r->skipped_intervals;
    }
    snprintf(msg, sizeof msg,
             "FindPeakStreams: %s run, %" PRIu64 " streams: %s (%lld intervals at the %g percentile, "
             "%" PRIu64 " overtime queries, %" PRIu64 " skipped intervals, %" PRIu64 " queries)",
             lg_peak_phase_name(phase), n, r->perf_constraints_met ? "meets the bound" : "fails the bound",
             (long long)r->intervals_target, t->ef.target_latency_percentile * 100, r->overtime_query_count,
             r->skipped_intervals, out->st.queries_issued);
    lg_detail_str(t->L, lg_logger_now(t->L), "generic_message", msg, LN);
    return 0;
}

static int find_peak_streams(lg_test *t, lg_run_result *res)
{
    lg_logger *L = t->L;
    char msg[256];
    const uint64_t cap = 1u << 20;
    int runs = t->vr->stability_runs > 0 ? t->vr->stability_runs : 1;
    generic(t, "Starting FindPeakPerformance mode", "Starting FindPeakPerformance mode:");
    perf_run best, trial;
    memset(&best, 0, sizeof best);
    int have_best = 0, rc;
    uint64_t lo = 0, hi, base = t->ef.samples_per_query;
    snprintf(msg, sizeof msg, "FindPeakPerformance: Check validity of the base settings field: %" PRIu64, base);
    lg_detail_str(L, lg_logger_now(L), "generic_message", msg, LN);
    if ((rc = peak_trial(t, base, LG_PEAK_BASE, &trial, res)) != 0)
        goto fail;
    if (trial.res.perf_constraints_met) {
        lo = base;
        perf_run_move(&best, &trial);
        have_best = 1;
        for (;;) {
            hi = lo * 2;
            if (hi > cap)
                break;
            if ((rc = peak_trial(t, hi, LG_PEAK_BOUNDARY, &trial, res)) != 0)
                goto fail;
            if (!trial.res.perf_constraints_met) {
                perf_run_free(&trial);
                break;
            }
            perf_run_free(&best);
            perf_run_move(&best, &trial);
            lo = hi;
        }
    } else {
        perf_run_move(&best, &trial); /* reported if nothing passes */
        have_best = 1;
        hi = base;
    }
    snprintf(msg, sizeof msg, "FindPeakPerformance: Found boundaries: [%" PRIu64 ", %" PRIu64 ")", lo, hi);
    lg_detail_str(L, lg_logger_now(L), "generic_message", msg, LN);
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if ((rc = peak_trial(t, mid, LG_PEAK_SEARCH, &trial, res)) != 0)
            goto fail;
        if (trial.res.perf_constraints_met) {
            if (have_best)
                perf_run_free(&best);
            perf_run_move(&best, &trial);
            have_best = 1;
            lo = mid;
        } else {
            perf_run_free(&trial);
            hi = mid;
        }
    }
    /* confirmation: every stability run must meet the bound, else one stream less */
    uint64_t n = lo;
    while (n >= 1) {
        int ok = 1;
        for (int i = 0; i < runs; i++) {
            if ((rc = peak_trial(t, n, LG_PEAK_CONFIRM, &trial, res)) != 0)
                goto fail;
            ok = trial.res.perf_constraints_met;
            if (have_best)
                perf_run_free(&best);
            perf_run_move(&best, &trial);
            have_best = 1;
            if (!ok)
                break;
        }
        if (ok)
            break;
        n--;
    }
    res->peak_found = 1;
    res->peak_streams = n;
    if (n == 0) {
        errorf(t, "error_runtime",
               "FindPeakPerformance: no stream count meets the performance constraints (1 stream "
               "fails the bound)");
    } else {
        snprintf(msg, sizeof msg, "FindPeakPerformance: Found peak performance field: %" PRIu64, n);
        lg_detail_str(L, lg_logger_now(L), "generic_message", msg, LN);
    }
    if (have_best) {
        write_perf_result(t, &best);
        res->ran_performance = 1;
        res->valid = n > 0 && best.res.valid;
        res->metric = (double)n;
        res->query_count = best.st.queries_issued;
        res->sample_count = best.st.samples_issued;
        perf_run_free(&best);
    }
    return 0;
fail:
    if (have_best)
        perf_run_free(&best);
    return rc;
}

/* ---- StartTest (reference loadgen.cc, StartTest) --------------------------------------------- */

void lg_test_free(lg_test *t)
{
    free(t);
}

static void test_datetime(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void build_date(char *local, char *utc, size_t n)
{
    /* __DATE__ "Mmm dd yyyy", __TIME__ "hh:mm:ss" of this file's compilation */
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    const char *d = __DATE__, *tm = __TIME__;
    char mon[4] = {d[0], d[1], d[2], 0};
    const char *m = strstr(months, mon);
    int month = m ? (int)(m - months) / 3 + 1 : 1;
    int day = atoi(d + 4), year = atoi(d + 7);
    snprintf(local, n, "%04d-%02d-%02dT%.8s.000000", year, month, day, tm);
    snprintf(utc, n, "%04d-%02d-%02dT%.8s.000000", year, month, day, tm);
}

static void log_version_block(lg_test *t)
{
    lg_logger *L = t->L;
    int64_t now = lg_logger_now(L);
    char ver[128], msg[256], bl[64], bu[64];
    snprintf(ver, sizeof ver, "%s @ NA", lg_compat_version(t->compat));
    lg_detail_str(L, now, "loadgen_version", ver, LN);
    build_date(bl, bu, sizeof bl);
    lg_detail_str(L, now, "loadgen_build_date_local", bl, LN);
    lg_detail_str(L, now, "loadgen_build_date_utc", bu, LN);
    lg_detail_str(L, now, "loadgen_git_commit_date", "NA", LN);
    snprintf(msg, sizeof msg, "mlsubmit %s embedded LoadGen, emulating MLCommons LoadGen %s",
#ifdef MLSUBMIT_VERSION
             MLSUBMIT_VERSION,
#else
             "dev",
#endif
             lg_compat_version(t->compat));
    lg_detail_str(L, now, "loadgen_git_log_message", msg, LN);
    lg_detail_str(L, now, "loadgen_git_status_message", "NA", LN);
    lg_detail_raw(L, now, "loadgen_file_sha1", lg_loadgen_file_sha1_json,
                  strlen(lg_loadgen_file_sha1_json), LN);
    if (!text_log(t))
        return;
    /* r0.5 version.cc LogLoadgenVersion; the SHA1 list as "<sha1> /<file>" lines */
    txt(t, "LoadgenVersionInfo:");
    txt(t, "version : %s", ver);
    txt(t, "build_date_local : %s", bl);
    txt(t, "build_date_utc   : %s", bu);
    txt(t, "git_commit_date  : %s", "NA");
    txt(t, "git_log :\n\n%s\n", msg);
    txt(t, "git_status :\n\n%s\n", "NA");
    ms_buf b = MS_BUF_INIT;
    ms_buf_puts(&b, "SHA1 of files :\n\n");
    const char *p = lg_loadgen_file_sha1_json;
    for (;;) { /* {"/file":"sha1",...}: plain names and hex digits, no escapes */
        const char *k = strchr(p, '"'), *ke = k ? strchr(k + 1, '"') : NULL;
        const char *v = ke ? strchr(ke + 1, '"') : NULL, *ve = v ? strchr(v + 1, '"') : NULL;
        if (!ve)
            break;
        ms_buf_printf(&b, "%.*s %.*s\n", (int)(ve - v - 1), v + 1, (int)(ke - k - 1), k + 1);
        p = ve + 1;
    }
    if (b.data)
        lg_detail_text(L, lg_logger_now(L), b.data, 0, LN);
    ms_buf_free(&b);
}

/* The settings both the requested and the effective block of the detail log show, in the
 * reference's order (test_settings_internal.cc, LogRequestedTestSettings and LogEffectiveSettings):
 * the offset of the field in lg_test_settings and in lg_effective, NO_FIELD where a block does not
 * show it; only: for the releases that log it (accuracy sample count, concatenation). */
enum { DF_U64, DF_DOUBLE, DF_BOOL };
#define NO_FIELD SIZE_MAX
#define REQ(m) offsetof(lg_test_settings, m)
#define EFF(m) offsetof(lg_effective, m)
typedef struct shared_setting {
    int kind;
    int only; /* 1: only where logs_accuracy_sample_count, 2: only where logs_concatenation
               * (test_settings_internal.cc of tag v4.1 first logs it) */
    const char *name;
    size_t req, eff;
} shared_setting;

static const shared_setting shared_settings[] = {
    {DF_U64, 0, "min_duration_ms", REQ(min_duration_ms), EFF(min_duration_ms)},
    {DF_U64, 0, "max_duration_ms", REQ(max_duration_ms), EFF(max_duration_ms)},
    {DF_U64, 0, "min_query_count", REQ(min_query_count), EFF(min_query_count)},
    {DF_U64, 0, "max_query_count", REQ(max_query_count), EFF(max_query_count)},
    {DF_U64, 0, "min_sample_count", NO_FIELD, EFF(min_sample_count)},
    {DF_U64, 0, "qsl_rng_seed", REQ(qsl_rng_seed), EFF(qsl_rng_seed)},
    {DF_U64, 0, "sample_index_rng_seed", REQ(sample_index_rng_seed), EFF(sample_index_rng_seed)},
    {DF_U64, 0, "schedule_rng_seed", REQ(schedule_rng_seed), EFF(schedule_rng_seed)},
    {DF_U64, 0, "accuracy_log_rng_seed", REQ(accuracy_log_rng_seed), EFF(accuracy_log_rng_seed)},
    {DF_DOUBLE, 0, "accuracy_log_probability", REQ(accuracy_log_probability), EFF(accuracy_log_probability)},
    {DF_U64, 0, "accuracy_log_sampling_target", REQ(accuracy_log_sampling_target), EFF(accuracy_log_sampling_target)},
    {DF_BOOL, 0, "print_timestamps", REQ(print_timestamps), EFF(print_timestamps)},
    {DF_BOOL, 0, "performance_issue_unique", REQ(performance_issue_unique), EFF(performance_issue_unique)},
    {DF_BOOL, 0, "performance_issue_same", REQ(performance_issue_same), EFF(performance_issue_same)},
    {DF_U64, 0, "performance_issue_same_index", REQ(performance_issue_same_index), EFF(performance_issue_same_index)},
    {DF_U64, 0, "performance_sample_count_override", REQ(performance_sample_count_override), NO_FIELD},
    {DF_U64, 0, "performance_sample_count", NO_FIELD, EFF(performance_sample_count)},
    {DF_U64, 1, "accuracy_sample_count_override", REQ(accuracy_sample_count_override), NO_FIELD},
    {DF_U64, 1, "accuracy_sample_count", NO_FIELD, EFF(accuracy_sample_count)},
    {DF_BOOL, 2, "sample_concatenate_permutation", REQ(sample_concatenate_permutation),
     EFF(sample_concatenate_permutation)},
};

/* base: the lg_test_settings (effective 0) or the lg_effective (effective 1) */
static void log_shared_settings(lg_test *t, int64_t now, const char *prefix, const void *base, int effective)
{
    for (size_t i = 0; i < sizeof shared_settings / sizeof *shared_settings; i++) {
        const shared_setting *f = &shared_settings[i];
        size_t off = effective ? f->eff : f->req;
        if (off == NO_FIELD || (f->only == 1 && !t->vr->logs_accuracy_sample_count) ||
            (f->only == 2 && !t->vr->logs_concatenation))
            continue;
        char key[96];
        snprintf(key, sizeof key, "%s%s", prefix, f->name);
        const char *p = (const char *)base + off;
        if (f->kind == DF_U64)
            lg_detail_u64(t->L, now, key, *(const uint64_t *)(const void *)p, LN);
        else if (f->kind == DF_DOUBLE)
            lg_detail_double(t->L, now, key, *(const double *)(const void *)p, LN);
        else
            lg_detail_bool(t->L, now, key, *(const int *)(const void *)p, LN);
    }
}

static void log_requested(lg_test *t)
{
    lg_logger *L = t->L;
    const lg_test_settings *r = &t->req;
    int64_t now = lg_logger_now(L);
    lg_detail_str(L, now, "requested_scenario", lg_scenario_name(r->scenario), LN);
    lg_detail_str(L, now, "requested_test_mode", lg_mode_name(r->mode), LN);
    switch (r->scenario) {
    case LG_SINGLE_STREAM:
        if (t->vr->integer_expected_latency)
            lg_detail_u64(L, now, "requested_single_stream_expected_latency_ns",
                          (uint64_t)r->single_stream_expected_latency_ns, LN);
        else
            lg_detail_double(L, now, "requested_single_stream_expected_latency_ns",
                             r->single_stream_expected_latency_ns, LN);
        lg_detail_double(L, now, "requested_single_stream_target_latency_percentile", r->single_stream_target_latency_percentile, LN);
        break;
    case LG_MULTI_STREAM:
        if (t->vr->early_multistream) {
            /* reference r1.1 test_settings_internal.cc, LogRequestedTestSettings */
            lg_detail_double(L, now, "requested_multi_stream_target_qps", r->multi_stream_target_qps, LN);
            lg_detail_u64(L, now, "requested_multi_stream_target_latency_ns", r->multi_stream_target_latency_ns, LN);
            lg_detail_double(L, now, "requested_multi_stream_target_latency_percentile", r->multi_stream_target_latency_percentile, LN);
            lg_detail_u64(L, now, "requested_multi_stream_samples_per_query", r->multi_stream_samples_per_query, LN);
            lg_detail_u64(L, now, "requested_multi_stream_max_async_queries", r->multi_stream_max_async_queries, LN);
            break;
        }
        lg_detail_double(L, now, "requested_multi_stream_expected_latency_ns", r->multi_stream_expected_latency_ns, LN);
        lg_detail_double(L, now, "requested_multi_stream_target_latency_percentile", r->multi_stream_target_latency_percentile, LN);
        lg_detail_u64(L, now, "requested_multi_stream_samples_per_query", r->multi_stream_samples_per_query, LN);
        break;
    case LG_SERVER:
        lg_detail_double(L, now, "requested_server_target_qps", r->server_target_qps, LN);
        lg_detail_u64(L, now, "requested_server_target_latency_ns", r->server_target_latency_ns, LN);
        lg_detail_double(L, now, "requested_server_target_latency_percentile", r->server_target_latency_percentile, LN);
        lg_detail_bool(L, now, "requested_server_coalesce_queries", r->server_coalesce_queries, LN);
        lg_detail_i64(L, now, "requested_server_find_peak_qps_decimals_of_precision", r->server_find_peak_qps_decimals_of_precision, LN);
        lg_detail_double(L, now, "requested_server_find_peak_qps_boundary_step_size", r->server_find_peak_qps_boundary_step_size, LN);
        lg_detail_u64(L, now, "requested_server_max_async_queries", r->server_max_async_queries, LN);
        lg_detail_u64(L, now, "requested_server_num_issue_query_threads", r->server_num_issue_query_threads, LN);
        break;
    case LG_OFFLINE:
        lg_detail_double(L, now, "requested_offline_expected_qps", r->offline_expected_qps, LN);
        break;
    }
    log_shared_settings(t, now, "requested_", r, 0);
    if (r->use_token_latencies) {
        lg_detail_bool(L, now, "requested_use_token_latencies", 1, LN);
        if (r->scenario != LG_OFFLINE) {
            lg_detail_u64(L, now, "requested_server_ttft_latency", r->server_ttft_latency, LN);
            lg_detail_u64(L, now, "requested_server_tpot_latency", r->server_tpot_latency, LN);
        }
    }
}

static void log_effective(lg_test *t)
{
    lg_logger *L = t->L;
    const lg_effective *e = &t->ef;
    int64_t now = lg_logger_now(L);
    lg_detail_str(L, now, "effective_scenario", lg_scenario_name(e->scenario), LN);
    lg_detail_str(L, now, "effective_test_mode", lg_mode_name(e->mode), LN);
    lg_detail_u64(L, now, "effective_samples_per_query", e->samples_per_query, LN);
    lg_detail_double(L, now, "effective_target_qps", e->target_qps, LN);
    lg_detail_u64(L, now, "effective_target_latency_ns", e->target_latency_ns, LN);
    lg_detail_double(L, now, "effective_target_latency_percentile", e->target_latency_percentile, LN);
    lg_detail_u64(L, now, "effective_max_async_queries", e->max_async_queries, LN);
    lg_detail_u64(L, now, "effective_target_duration_ms", e->target_duration_ms, LN);
    log_shared_settings(t, now, "effective_", e, 1);
}

int lg_start_test(const lg_sut *sut, const lg_qsl *qsl, const lg_test_settings *settings,
                  const lg_log_settings *log, const lg_run_options *opts_in, lg_run_result *result,
                  ms_err *e)
{
    lg_run_result dummy;
    lg_run_result *res = result ? result : &dummy;
    memset(res, 0, sizeof *res);
    lg_run_options defopts;
    if (!opts_in) {
        lg_run_options_default(&defopts);
        opts_in = &defopts;
    }
    lg_log_settings deflog;
    if (!log) {
        lg_log_settings_default(&deflog);
        log = &deflog;
    }
    if (!sut || !sut->issue_query || !sut->flush_queries || !sut->name || !qsl)
        return ms_err_set(e, MS_EUSAGE, "lg_start_test: the SUT needs name, issue_query and flush_queries callbacks, and a QSL");
    if (qsl->total_sample_count > UINT32_MAX)
        return ms_err_set(e, MS_EUSAGE, "QSL total_sample_count %zu exceeds 2^32-1", qsl->total_sample_count);

    lg_test *t = calloc(1, sizeof *t);
    if (!t)
        return ms_err_oom(e);
    t->sut = sut;
    t->qsl = qsl;
    t->opts = opts_in;
    t->compat = opts_in->compat;
    t->vr = lg_version_rules_of_compat(t->compat);
    t->req = *settings;
    lg_mt_seed(&t->acc_rng, 5489);
    t->token_mode = settings->use_token_latencies;
    t->first_token_scenario = settings->scenario != LG_OFFLINE;
    ms_progress_init(&t->prog, "loadgen");

    char dt[64];
    test_datetime(dt, sizeof dt);
    int rc = lg_logger_open(&t->L, log, dt, t->token_mode, t->first_token_scenario, opts_in, e);
    if (rc) {
        free(t);
        return rc;
    }
    lg_logger *L = t->L;
    if (t->vr->text_detail_log)
        lg_logger_set_text(L, 1);
    int64_t t_name0 = mono_now();
    const char *nm = sut->name(sut->ctx);
    int64_t name_dur = mono_now() - t_name0;
    snprintf(t->sut_name, sizeof t->sut_name, "%s", nm ? nm : "");
    /* config errors gathered before the test (user.conf parsing): TestSettings::FromConfig logs
     * them before StartTest, so the reference's detail log opens with them; the text-log
     * releases (r0.5 / v0.7.1 logging.cc) lose entries made before the logger starts */
    if (opts_in->conf && !t->vr->text_detail_log)
        for (size_t i = 0; i < lg_conf_session_nlog_errors(opts_in->conf); i++)
            errorf(t, "error_invalid_config", "%s", lg_conf_session_log_error(opts_in->conf, i));
    log_version_block(t);
    int64_t now = lg_logger_now(L);
    lg_detail_str(L, now, "test_datetime", dt, LN);
    lg_detail_str(L, now, "sut_name", t->sut_name, LN);
    lg_detail_i64(L, now, "get_sut_name_duration_ns", name_dur, LN);
    lg_detail_str(L, now, "qsl_name", qsl->name ? qsl->name(qsl->ctx) : "QSL", LN);
    lg_detail_u64(L, now, "qsl_reported_total_count", qsl->total_sample_count, LN);
    lg_detail_u64(L, now, "qsl_reported_performance_count", qsl->performance_sample_count, LN);
    /* r0.5 loadgen.cc StartTest */
    txt(t, "Date + time of test: %s", dt);
    txt(t, "System Under Test (SUT) name: %s", t->sut_name);
    txt(t, "Query Sample Library (QSL) name: %s", qsl->name ? qsl->name(qsl->ctx) : "QSL");
    txt(t, "QSL total size: %zu", qsl->total_sample_count);
    txt(t, "QSL performance size*: %zu", qsl->performance_sample_count);
    txt(t, "*TestSettings (performance_sample_count_override) can override");
    txt(t, "*Refer to Effective Settings for actual value");

    lg_conf_session *own = NULL, *cs = opts_in->conf;
    size_t logged_conf_errors = cs ? lg_conf_session_nlog_errors(cs) : 0;

    /* audit.config (reference loadgen.cc StartTest) */
    const char *ac = opts_in->audit_config_path;
    if (ac && *ac) {
        FILE *f = fopen(ac, "r");
        if (f) {
            fclose(f);
            /* a warning; a plain entry in the text log (loadgen.cc StartTest of r0.5 / v0.7.1) */
            generic_warning(t, "Found Audit Config file (audit.config). Overriding TestSettings from "
                               "audit.config file.");
            if (!cs) {
                ms_err e2;
                cs = own = lg_conf_session_new(t->compat, NULL, &e2);
            }
            if (cs) {
                lg_conf_session_set_audit_test05(cs, opts_in->audit_test05);
                lg_settings_from_config(cs, &t->req, ac, "*", lg_scenario_name(t->req.scenario), 2);
                lg_conf_session_set_audit_test05(cs, 0);
                for (size_t i = logged_conf_errors; i < lg_conf_session_nlog_errors(cs); i++)
                    errorf(t, "error_invalid_config", "%s", lg_conf_session_log_error(cs, i));
            }
        }
    }
    if (t->req.test05) {
        generic_warning(t, "Test05 flag detected Overriding random seeds");
        t->req.mode = LG_PERFORMANCE_ONLY;
        /* the seeds come from the caller's settings, not from audit.config (loadgen.cc
         * StartTest, tags v3.0 to v5.1.1: requested_settings.test05_*_rng_seed); only the
         * alternate-seed audit lets audit.config set them (audit_test05) */
        const lg_test_settings *sd = opts_in->audit_test05 ? &t->req : settings;
        t->req.qsl_rng_seed = sd->test05_qsl_rng_seed;
        t->req.sample_index_rng_seed = sd->test05_sample_index_rng_seed;
        t->req.schedule_rng_seed = sd->test05_schedule_rng_seed;
    }
    if (t->vr->integer_expected_latency) /* the release's field is a uint64_t */
        t->req.single_stream_expected_latency_ns = (double)(uint64_t)t->req.single_stream_expected_latency_ns;
    lg_effective_derive(&t->ef, &t->req, qsl->total_sample_count, qsl->performance_sample_count);
    lg_effective_apply_rules(&t->ef, &t->req, t->vr, t->req.multi_stream_target_qps,
                             t->req.multi_stream_max_async_queries);
    t->early_ms = t->vr->early_multistream && t->ef.scenario == LG_MULTI_STREAM;
    if (text_log(t)) {
        /* TestSettingsInternal of tags r0.5 / v0.7.1: detail.Error(message, "name", value, ...) */
        if (t->req.performance_issue_same && t->req.performance_issue_same_index >= t->ef.performance_sample_count)
            text_error(t, "Sample Idx to be repeated in performance_issue_same mode cannot be greater than "
                          "loaded performance_sample_count.\"performance_issue_same_index\" : %" PRIu64
                          ", \"performance_sample_count\" : %" PRIu64,
                       t->req.performance_issue_same_index, t->ef.performance_sample_count);
        if (t->req.performance_issue_unique && t->req.performance_issue_same)
            text_error(t, "%s", "Performance_issue_unique and performance_issue_same, both cannot be true at "
                                "the same time.\"performance_issue_unique\" : true, \"performance_issue_same\" : true");
        for (int i = 0; i < t->ef.n_errors; i++)
            if (!strstr(t->ef.errors[i], "performance_issue_same"))
                errorf(t, "error_invalid_test_settings", "%s", t->ef.errors[i]);
    } else {
        for (int i = 0; i < t->ef.n_errors; i++)
            errorf(t, "error_invalid_test_settings", "%s", t->ef.errors[i]);
    }
    int bad_early = t->early_ms && (!(t->req.multi_stream_target_qps > 0) ||
                                    t->req.multi_stream_max_async_queries == 0 ||
                                    t->ef.samples_per_query == 0);
    if (bad_early)
        errorf(t, "error_invalid_test_settings",
               "MultiStream of LoadGen %s needs multi_stream_target_qps > 0, "
               "multi_stream_max_async_queries >= 1 and multi_stream_samples_per_query >= 1",
               t->vr->name);
    log_requested(t);
    log_effective(t);
    text_settings(t);

    if (t->ef.scenario == LG_SERVER && t->ef.server_num_issue_query_threads > 0) {
        /* mlsubmit's SUT API has no RegisterIssueQueryThread: the StartTest thread issues,
         * and the reference's message for "no thread registered" is logged. */
        errorf(t, "error_runtime",
               "Mismatch between settings and number of registered IssueQueryThreads! "
               "settings.server_num_issue_query_threads = %" PRIu64 " but 0 threads registered.",
               t->ef.server_num_issue_query_threads);
    }
    int run_rc = 0;
    /* performance_issue_unique with performance_issue_same is logged as an error and the test
     * runs, unique winning (test_settings_internal.cc TestSettingsInternal and loadgen.cc
     * GenerateQueries, every tag from r0.5 to v5.1.1). An out-of-range same index is refused
     * here: the reference reads past its loaded set (undefined behaviour). */
    int bad_settings = bad_early;
    if (t->ef.performance_issue_same &&
        t->ef.performance_issue_same_index >= t->ef.performance_sample_count)
        bad_settings = 1;
    if (!bad_settings) {
        switch (t->ef.mode) {
        case LG_SUBMISSION_RUN:
            run_rc = run_accuracy(t);
            if (run_rc == 0)
                run_rc = run_performance(t, res);
            break;
        case LG_ACCURACY_ONLY:
            run_rc = run_accuracy(t);
            break;
        case LG_PERFORMANCE_ONLY:
            run_rc = run_performance(t, res);
            break;
        case LG_FIND_PEAK_PERFORMANCE:
            run_rc = t->early_ms ? find_peak_streams(t, res) : find_peak(t, res);
            break;
        }
    }
    /* num_errors: logged from tag v5.1.1 at the end of results.cc PerformanceSummary::LogDetail
     * (num_errors_logged 1); the newest rules (2) also log it after an accuracy run or a test
     * that could not run */
    if ((t->vr->num_errors_logged == 1 && res->ran_performance) ||
        (t->vr->num_errors_logged == 2 &&
         (res->ran_performance || run_rc != 0 || bad_settings || t->ef.mode == LG_ACCURACY_ONLY)))
        lg_detail_u64(L, lg_logger_now(L), "num_errors", lg_logger_errors(L), LN);
    res->n_errors = lg_logger_errors(L);
    res->n_warnings = lg_logger_warnings(L);
    res->timed_out = t->timed_out;
    res->canceled = canceled(t);
    lg_logger_first_error(L, res->first_error, sizeof res->first_error);
    gate_close(t);
    series_free(atomic_exchange(&t->cur, NULL)); /* kept after a timeout */
    /* a canceled test leaves its logs unnamed for the caller to finish as incomplete */
    rc = res->canceled ? MS_OK : lg_logger_close(L, e);
    lg_logger_free(L);
    t->L = NULL;
    lg_conf_session_free(own);
    int timed_out = t->timed_out, qsl_failed = t->qsl_failed;
    /* After a timeout the SUT may still call the completion functions with this test (they
     * are ignored): the caller frees it with lg_test_free once the SUT is stopped. */
    if (timed_out || res->canceled || opts_in->keep_test)
        res->abandoned = t;
    else
        free(t);
    if (rc)
        return rc;
    if (res->canceled)
        return ms_err_set(e, MS_ERUNTIME, "the test was canceled");
    if (timed_out)
        return ms_err_set(e, MS_ERUNTIME, "the SUT stopped answering (timeout); see the detail log");
    if (qsl_failed)
        return ms_err_set(e, MS_ERUNTIME, "the QSL failed to load samples; see the detail log");
    if (run_rc == -2)
        return ms_err_set(e, MS_ERUNTIME, "the test could not run: %s", res->first_error);
    return MS_OK;
}
