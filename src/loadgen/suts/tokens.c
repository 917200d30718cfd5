/* --sut tokens: an LLM-style streaming SUT for the token-latency paths of the LoadGen (TTFT,
 * TPOT, tokens/s, token-latency constraints, the Interactive-style Server runs).
 *
 * For each issued sample it draws a length n in len=LO..HI and a token sequence, both a pure
 * function of (seed, sample index), so the same sample gives the same bytes in every mode and
 * run. The first token is reported (lg_first_token_complete, payload = the first token) ttft
 * after the issue, and the sample completes (payload = all n tokens, little-endian int32 each,
 * n_tokens = n) ttft + (n - 1) * tpot after the issue. A scheduler thread sends every event on
 * time, batching events that fall due together. In Offline no first token is sent (the
 * LoadGen never records TTFT there). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "loadgen/suts/tokens.h"

#define MAX_DUE 4096  /* events sent per wake-up at most */

typedef struct tk_event {
    int64_t t;
    uint64_t seq;             /* FIFO among equal times */
    lg_test *test;
    lg_response_id id;
    lg_sample_index index;
    uint32_t n_tokens;
    int first;                /* 1 = first token, 0 = completion */
} tk_event;

typedef struct tokens_sut {
    int64_t ttft, tpot;
    uint64_t lo, hi, seed;
    int offline;
    tk_cheat cheat;           /* all zero for the honest SUT */
    int perf_mode;            /* a PerformanceOnly / FindPeak run */
    char name[160];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    tk_event *heap;
    size_t n, cap;
    uint64_t seq;
    int stop;
    pthread_t thread;
    int started;
} tokens_sut;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t splitmix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint32_t tk_gen_len(uint64_t seed, uint64_t lo, uint64_t hi, uint64_t idx)
{
    uint64_t span = hi - lo + 1;
    return (uint32_t)(lo + splitmix(seed * 0x100000001B3ull ^ idx) % span);
}

uint32_t tk_gen_token(uint64_t seed, uint64_t idx, uint32_t k)
{
    return (uint32_t)(splitmix(splitmix(seed ^ (idx << 20)) + k) % 32000u);
}

static uint32_t sample_len(const tokens_sut *t, lg_sample_index idx)
{
    uint64_t n = tk_gen_len(t->seed, t->lo, t->hi, (uint64_t)idx);
    if (t->perf_mode && t->cheat.perf_len_num && t->cheat.perf_len_den) {
        n = n * t->cheat.perf_len_num / t->cheat.perf_len_den;
        if (n < 2)
            n = 2; /* the LoadGen needs more than one token per sample */
    }
    return (uint32_t)n;
}

/* Token k of sample idx: an id in [0, 32000). */
static uint32_t token(const tokens_sut *t, lg_sample_index idx, uint32_t k)
{
    return tk_gen_token(t->seed, (uint64_t)idx, k);
}

/* ---- min-heap ------------------------------------------------------------------------------- */

static int before(const tk_event *a, const tk_event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int heap_push(tokens_sut *t, tk_event ev)
{
    if (MS_GROW(t->heap, t->cap, t->n + 1, 1024))
        return -1;
    ev.seq = t->seq++;
    size_t i = t->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&ev, &t->heap[p]))
            break;
        t->heap[i] = t->heap[p];
        i = p;
    }
    t->heap[i] = ev;
    return 0;
}

static tk_event heap_pop(tokens_sut *t)
{
    tk_event top = t->heap[0], last = t->heap[--t->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= t->n)
            break;
        if (c + 1 < t->n && before(&t->heap[c + 1], &t->heap[c]))
            c++;
        if (!before(&t->heap[c], &last))
            break;
        t->heap[i] = t->heap[c];
        i = c;
    }
    if (t->n)
        t->heap[i] = last;
    return top;
}

/* ---- scheduler thread ----------------------------------------------------------------------- */

static void send(tokens_sut *t, tk_event *ev, size_t n, int first, ms_buf *payload, lg_response *resp)
{
    size_t k = 0, bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (ev[i].first == first)
            bytes += first ? 4 : 4 * ((size_t)ev[i].n_tokens + t->cheat.extra_eos);
    ms_buf_reset(payload);
    if (ms_buf_reserve(payload, bytes) != 0)
        return; /* out of memory: the LoadGen's timeout reports the missing answers */
    unsigned char *p = (unsigned char *)payload->data;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].first != first)
            continue;
        uint32_t cnt = first ? 1 : ev[i].n_tokens + t->cheat.extra_eos;
        int64_t reported = (int64_t)cnt * (t->cheat.count_mul ? t->cheat.count_mul : 1);
        resp[k] = (lg_response){ev[i].id, (uintptr_t)p, 4 * (size_t)cnt, first ? 0 : reported};
        for (uint32_t j = 0; j < cnt; j++, p += 4) {
            uint32_t v = j >= ev[i].n_tokens ? TK_EOS_ID : token(t, ev[i].index, j);
            if (first)
                v = (v + t->cheat.first_shift) % 32000u;
            p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16),
            p[3] = (unsigned char)(v >> 24);
        }
        k++;
    }
    /* group by test (in practice every event of one wake-up belongs to the same test) */
    size_t start = 0, j = 0;
    lg_test *cur = NULL;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].first != first)
            continue;
        if (j > start && ev[i].test != cur) {
            (first ? lg_first_token_complete : lg_query_samples_complete)(cur, resp + start, j - start);
            start = j;
        }
        cur = ev[i].test;
        j++;
    }
    if (j > start)
        (first ? lg_first_token_complete : lg_query_samples_complete)(cur, resp + start, j - start);
}

static void *scheduler(void *arg)
{
    tokens_sut *t = arg;
    tk_event *due = malloc(MAX_DUE * sizeof *due);
    lg_response *resp = malloc(MAX_DUE * sizeof *resp);
    ms_buf payload = MS_BUF_INIT;
    if (!due || !resp) {
        free(due), free(resp);
        return NULL;
    }
    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        if (t->n == 0) {
            pthread_cond_wait(&t->cv, &t->mu);
            continue;
        }
        int64_t now = mono_ns();
        if (t->heap[0].t > now) {
            struct timespec ts = {(time_t)(t->heap[0].t / 1000000000), (long)(t->heap[0].t % 1000000000)};
            pthread_cond_timedwait(&t->cv, &t->mu, &ts);
            continue;
        }
        size_t n = 0;
        while (t->n && n < MAX_DUE && t->heap[0].t <= now)
            due[n++] = heap_pop(t);
        pthread_mutex_unlock(&t->mu);
        send(t, due, n, 1, &payload, resp);
        send(t, due, n, 0, &payload, resp);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    free(due), free(resp);
    ms_buf_free(&payload);
    return NULL;
}

/* ---- SUT callbacks -------------------------------------------------------------------------- */

static const char *tk_name(void *ctx)
{
    return ((tokens_sut *)ctx)->name;
}

static void tk_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    tokens_sut *t = ctx;
    int64_t now = mono_ns();
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < n; i++) {
        uint32_t len = sample_len(t, s[i].index);
        int64_t first = now + t->ttft, done = first + t->tpot * (int64_t)(len - 1);
        /* On allocation failure the sample is never answered; the LoadGen's timeout reports it. */
        if (!t->offline)
            (void)heap_push(t, (tk_event){first, 0, test, s[i].id, s[i].index, len, 1});
        (void)heap_push(t, (tk_event){done, 0, test, s[i].id, s[i].index, len, 0});
    }
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

static void tk_free(void *priv)
{
    tokens_sut *t = priv;
    if (!t)
        return;
    if (t->started) {
        pthread_mutex_lock(&t->mu);
        t->stop = 1;
        pthread_cond_signal(&t->cv);
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->thread, NULL);
    }
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
    free(t->heap);
    free(t);
}

int tk_start(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, const tk_cheat *cheat,
             const char *label, ms_err *e)
{
    tokens_sut *t = calloc(1, sizeof *t);
    if (!t)
        return ms_err_oom(e);
    if (cheat)
        t->cheat = *cheat;
    t->ttft = 50000000;
    t->tpot = 5000000;
    t->lo = 32;
    t->hi = 256;
    t->seed = 1;
    if (lg_sut_opt_duration(opts, "ttft", &t->ttft, e) < 0 || lg_sut_opt_duration(opts, "tpot", &t->tpot, e) < 0 ||
        lg_sut_opt_u64_range(opts, "len", &t->lo, &t->hi, e) < 0 ||
        lg_sut_opt_u64(opts, "seed", 0, UINT64_MAX, &t->seed, e) < 0) {
        free(t);
        return e ? e->code : MS_EUSAGE;
    }
    if (t->ttft < 0 || t->tpot < 0) {
        free(t);
        return ms_err_set(e, MS_EUSAGE, "--sut %s: options ttft and tpot: expected non-negative durations",
                          opts->sut_name);
    }
    if (t->lo < 2 || t->hi < t->lo || t->hi > 1000000) {
        uint64_t lo = t->lo, hi = t->hi;
        free(t);
        return ms_err_set(e, MS_EUSAGE,
                          "--sut %s: option len: expected LO..HI with 2 <= LO <= HI <= 1000000 (the LoadGen needs "
                          "more than one token per sample), got %llu..%llu",
                          opts->sut_name, (unsigned long long)lo, (unsigned long long)hi);
    }
    t->offline = env && env->settings && env->settings->scenario == LG_OFFLINE;
    t->perf_mode = env && env->settings &&
                   (env->settings->mode == LG_PERFORMANCE_ONLY || env->settings->mode == LG_FIND_PEAK_PERFORMANCE);
    snprintf(t->name, sizeof t->name, "%s (ttft %lld ns, tpot %lld ns, %llu..%llu tokens, seed %llu)",
             label, (long long)t->ttft, (long long)t->tpot, (unsigned long long)t->lo, (unsigned long long)t->hi,
             (unsigned long long)t->seed);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, &ca);
    pthread_condattr_destroy(&ca);
    int er = pthread_create(&t->thread, NULL, scheduler, t);
    if (er) {
        tk_free(t);
        return ms_err_errno(e, MS_ERUNTIME, er, "--sut %s: cannot start the scheduler thread", opts->sut_name);
    }
    t->started = 1;
    si->sut = (lg_sut){t, tk_name, tk_issue, lg_sut_flush_none};
    si->priv = t;
    si->destroy = tk_free;
    return MS_OK;
}

static int tokens_create(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e)
{
    return tk_start(si, opts, env, NULL, "tokens", e);
}

LG_SUT_DEFINE(tokens, "LLM-style streaming: first token after ttft, then n tokens at tpot each",
              TK_OPTIONS_HELP, tokens_create)
