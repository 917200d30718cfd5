/* --sut latency:fixed=D or latency:uniform=A..B[,seed=N][,tokens=N]: every sample completes
 * D (or a seeded uniform draw in [A, B]) after it was issued, from a timer thread, so the
 * issuing thread never blocks; with tokens=N a first token is reported at half the delay.
 * Payload: the 4-byte sample index. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "loadgen/rng.h"
#include "loadgen/suts/sut.h"

typedef struct latency_sut {
    int64_t lo, hi;
    int64_t tokens;
    int sync;
    lg_mt19937 rng;
    pthread_mutex_t mu;
    lg_sut_timer *timer;
} latency_sut;

static const char *latency_name(void *ctx)
{
    (void)ctx;
    return "mlsubmit latency SUT";
}

static void latency_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    latency_sut *ls = ctx;
    int64_t now = lg_sut_now_ns();
    for (size_t i = 0; i < n; i++) {
        int64_t lat = ls->lo;
        if (ls->hi > ls->lo) {
            pthread_mutex_lock(&ls->mu);
            lat = (int64_t)lg_uniform_u64(&ls->rng, (uint64_t)ls->lo, (uint64_t)ls->hi);
            pthread_mutex_unlock(&ls->mu);
        }
        if (ls->sync) {
            /* a synchronous SUT: blocks the issuing thread, then answers inline */
            struct timespec ts = {lat / 1000000000, lat % 1000000000};
            while (nanosleep(&ts, &ts) != 0)
                ;
            uint32_t payload = (uint32_t)s[i].index;
            lg_response r = {s[i].id, (uintptr_t)&payload, sizeof payload, ls->tokens};
            if (ls->tokens)
                lg_first_token_complete(test, &r, 1);
            lg_query_samples_complete(test, &r, 1);
            continue;
        }
        int64_t ft = ls->tokens ? now + lat / 2 : 0;
        if (lg_sut_timer_add(ls->timer, test, s[i].id, s[i].index, ft, now + lat, ls->tokens) != 0) {
            uint32_t payload = (uint32_t)s[i].index; /* no memory to defer: answer now */
            lg_response r = {s[i].id, (uintptr_t)&payload, sizeof payload, ls->tokens};
            if (ls->tokens)
                lg_first_token_complete(test, &r, 1);
            lg_query_samples_complete(test, &r, 1);
        }
    }
}

static void latency_destroy(void *priv)
{
    latency_sut *ls = priv;
    if (!ls)
        return;
    lg_sut_timer_free(ls->timer);
    pthread_mutex_destroy(&ls->mu);
    free(ls);
}

static int latency_create(lg_sut_instance *si, lg_sut_opts *o, const lg_sut_env *env, ms_err *e)
{
    (void)env;
    int64_t fixed = 0, lo = 0, hi = 0;
    uint64_t seed = 1, tokens = 0;
    int rf = lg_sut_opt_duration(o, "fixed", &fixed, e);
    int ru = lg_sut_opt_duration_range(o, "uniform", &lo, &hi, e);
    if (rf < 0 || ru < 0 || lg_sut_opt_u64(o, "seed", 0, UINT64_MAX, &seed, e) < 0 ||
        lg_sut_opt_u64(o, "tokens", 0, INT64_MAX, &tokens, e) < 0)
        return MS_EUSAGE;
    if (rf + ru != 1)
        return ms_err_set(e, MS_EUSAGE, "--sut latency needs exactly one of fixed=DURATION or uniform=LOW..HIGH");
    latency_sut *ls = calloc(1, sizeof *ls);
    if (!ls)
        return ms_err_oom(e);
    ls->lo = rf ? fixed : lo;
    ls->hi = rf ? fixed : hi;
    ls->tokens = (int64_t)tokens;
    ls->sync = lg_sut_opt_flag(o, "sync");
    lg_mt_seed(&ls->rng, seed);
    pthread_mutex_init(&ls->mu, NULL);
    si->priv = ls;
    si->destroy = latency_destroy;
    ls->timer = lg_sut_timer_new(e);
    if (!ls->timer)
        return MS_ERUNTIME;
    si->sut = (lg_sut){ls, latency_name, latency_issue, lg_sut_flush_none};
    return MS_OK;
}

LG_SUT_DEFINE(latency, "completes each sample after a fixed or seeded-uniform delay",
              "               fixed=D | uniform=A..B   delay per sample (e.g. 1ms, 1ms..3ms)\n"
              "               seed=N                   seed of the uniform draws (default 1)\n"
              "               tokens=N                 first token at half the delay, N output tokens\n"
              "               sync                     block issue_query for the delay, answer inline\n",
              latency_create)
