/* --sut batch:max=N,timeout=D,workers=W[,cost=D][,per_sample=D]: a batching server. Queries
 * go into a queue; each of W workers takes up to N samples, waiting at most D after the oldest
 * queued sample for a full batch, "computes" for cost + per_sample * batch, and completes the
 * batch with one call. A flush sends partial batches at once. Payload: the 4-byte index. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loadgen/suts/sut.h"

typedef struct item {
    lg_test *test;
    lg_response_id id;
    uint32_t index;
    int64_t arrival;
} item;

typedef struct batch_sut {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    item *q;
    size_t head, n, cap;
    uint64_t max;
    int64_t timeout, cost, per_sample;
    uint64_t nworkers;
    pthread_t *workers;
    int stop, flushing;
} batch_sut;

static const char *batch_name(void *ctx)
{
    (void)ctx;
    return "mlsubmit batching SUT";
}

static int grow(batch_sut *b, size_t need)
{
    if (need <= b->cap)
        return 0;
    size_t nc = b->cap ? b->cap * 2 : 1024;
    while (nc < need)
        nc *= 2;
    item *nq = malloc(nc * sizeof *nq);
    if (!nq)
        return -1;
    for (size_t i = 0; i < b->n; i++)
        nq[i] = b->q[(b->head + i) % b->cap];
    free(b->q);
    b->q = nq;
    b->head = 0;
    b->cap = nc;
    return 0;
}

static void batch_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    batch_sut *b = ctx;
    int64_t now = lg_sut_now_ns();
    pthread_mutex_lock(&b->mu);
    if (grow(b, b->n + n) != 0) {
        pthread_mutex_unlock(&b->mu);
        for (size_t i = 0; i < n; i++) { /* no memory to queue: answer now */
            uint32_t payload = (uint32_t)s[i].index;
            lg_response r = {s[i].id, (uintptr_t)&payload, sizeof payload, 0};
            lg_query_samples_complete(test, &r, 1);
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        b->q[(b->head + b->n + i) % b->cap] = (item){test, s[i].id, (uint32_t)s[i].index, now};
    b->n += n;
    b->flushing = 0;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static void batch_flush(void *ctx)
{
    batch_sut *b = ctx;
    pthread_mutex_lock(&b->mu);
    b->flushing = 1;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static void sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {ns / 1000000000, ns % 1000000000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void *batch_worker(void *arg)
{
    batch_sut *b = arg;
    item *mine = malloc(b->max * sizeof *mine);
    uint32_t *payload = malloc(b->max * sizeof *payload);
    lg_response *resp = malloc(b->max * sizeof *resp);
    if (!mine || !payload || !resp) {
        free(mine);
        free(payload);
        free(resp);
        return NULL;
    }
    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (!b->stop && b->n == 0)
            pthread_cond_wait(&b->cv, &b->mu);
        if (b->stop)
            break;
        /* wait for a full batch, at most timeout after the oldest sample arrived */
        while (!b->stop && b->n < b->max && !b->flushing) {
            int64_t deadline = b->q[b->head].arrival + b->timeout;
            if (lg_sut_now_ns() >= deadline)
                break;
            struct timespec ts = {deadline / 1000000000, deadline % 1000000000};
            pthread_cond_timedwait(&b->cv, &b->mu, &ts);
            if (b->n == 0)
                break;
        }
        if (b->stop)
            break;
        size_t take = b->n < b->max ? b->n : (size_t)b->max;
        for (size_t i = 0; i < take; i++)
            mine[i] = b->q[(b->head + i) % b->cap];
        b->head = (b->head + take) % (b->cap ? b->cap : 1);
        b->n -= take;
        pthread_mutex_unlock(&b->mu);
        if (take) {
            sleep_ns(b->cost + b->per_sample * (int64_t)take);
            /* one completion call per test (a batch never mixes tests in practice) */
            size_t start = 0;
            while (start < take) {
                size_t end = start;
                while (end < take && mine[end].test == mine[start].test) {
                    payload[end] = mine[end].index;
                    resp[end] = (lg_response){mine[end].id, (uintptr_t)&payload[end], sizeof payload[end], 0};
                    end++;
                }
                lg_query_samples_complete(mine[start].test, resp + start, end - start);
                start = end;
            }
        }
        pthread_mutex_lock(&b->mu);
    }
    pthread_mutex_unlock(&b->mu);
    free(mine);
    free(payload);
    free(resp);
    return NULL;
}

static void batch_destroy(void *priv)
{
    batch_sut *b = priv;
    if (!b)
        return;
    pthread_mutex_lock(&b->mu);
    b->stop = 1;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    for (uint64_t i = 0; i < b->nworkers && b->workers; i++)
        if (b->workers[i])
            pthread_join(b->workers[i], NULL);
    free(b->workers);
    free(b->q);
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
    free(b);
}

static int batch_create(lg_sut_instance *si, lg_sut_opts *o, const lg_sut_env *env, ms_err *e)
{
    (void)env;
    uint64_t max = 64, workers = 2;
    int64_t timeout = 1000000, cost = 0, per_sample = 0;
    if (lg_sut_opt_u64(o, "max", 1, 1u << 24, &max, e) < 0 ||
        lg_sut_opt_u64(o, "workers", 1, 256, &workers, e) < 0 ||
        lg_sut_opt_duration(o, "timeout", &timeout, e) < 0 ||
        lg_sut_opt_duration(o, "cost", &cost, e) < 0 ||
        lg_sut_opt_duration(o, "per_sample", &per_sample, e) < 0)
        return MS_EUSAGE;
    batch_sut *b = calloc(1, sizeof *b);
    if (!b)
        return ms_err_oom(e);
    b->max = max;
    b->timeout = timeout;
    b->cost = cost;
    b->per_sample = per_sample;
    pthread_mutex_init(&b->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&b->cv, &ca);
    pthread_condattr_destroy(&ca);
    si->priv = b;
    si->destroy = batch_destroy;
    b->workers = calloc(workers, sizeof *b->workers);
    if (!b->workers)
        return ms_err_oom(e);
    for (uint64_t i = 0; i < workers; i++) {
        if (pthread_create(&b->workers[i], NULL, batch_worker, b) != 0)
            return ms_err_set(e, MS_ERUNTIME, "--sut batch: cannot start worker thread %llu",
                              (unsigned long long)i);
        b->nworkers++;
    }
    si->sut = (lg_sut){b, batch_name, batch_issue, batch_flush};
    return MS_OK;
}

LG_SUT_DEFINE(batch, "batches queued samples on a worker pool",
              "               max=N (64)  timeout=D (1ms)  workers=W (2)  cost=D (0)  per_sample=D (0)\n",
              batch_create)
