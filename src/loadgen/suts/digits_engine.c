/* The engine behind the digits SUTs: see digits_engine.h. */
#include "loadgen/suts/digits_engine.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/fsutil.h"

typedef struct dg_item {
    lg_test *test;
    lg_response_id id;
    lg_sample_index index;
    int64_t not_before;
    int has_px;                    /* the sample's bytes came with the query (network node) */
    uint8_t px[DIGITS_PIXELS];
} dg_item;

struct dg_engine {
    dg_options opt;
    dg_hooks hooks;
    int has_hooks;
    char name[128];
    /* the QSL: validation rows */
    size_t total, perf;
    uint8_t (*px)[DIGITS_PIXELS];
    digits_fp32 *fp32;
    digits_int8 *int8;
    /* work queue */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    dg_item *q;
    size_t qhead, qtail, qcap;
    int stop;
    pthread_t *threads;
    size_t nthreads;
};

int dg_parse_options(lg_sut_opts *o, const lg_sut_env *env, dg_options *d, ms_err *e)
{
    memset(d, 0, sizeof *d);
    d->workers = 2;
    d->batch = 32;
    const char *i8 = lg_sut_opt_str(o, "int8");
    if (i8 && *i8)
        return ms_err_set(e, MS_EUSAGE, "--sut %s: option 'int8=%s': int8 is a flag and takes no value (write :int8)",
                          o->sut_name, i8);
    d->int8 = i8 != NULL;
    if (lg_sut_opt_u64(o, "workers", 1, 256, &d->workers, e) < 0 || lg_sut_opt_u64(o, "batch", 1, 65536, &d->batch, e) < 0 ||
        lg_sut_opt_duration(o, "cost", &d->cost_ns, e) < 0)
        return e ? e->code : MS_EUSAGE;
    if (d->cost_ns < 0)
        return ms_err_set(e, MS_EUSAGE, "--sut %s: option cost: expected a non-negative duration", o->sut_name);
    d->data_dir = lg_sut_opt_str(o, "data");
    d->model_path = lg_sut_opt_str(o, "model");
    if (d->data_dir && !*d->data_dir)
        return ms_err_set(e, MS_EUSAGE, "--sut %s: option data: expected a folder", o->sut_name);
    if (d->model_path && !*d->model_path)
        return ms_err_set(e, MS_EUSAGE, "--sut %s: option model: expected a file", o->sut_name);
    (void)env;
    return MS_OK;
}

void dg_sleep_until(int64_t t)
{
    for (;;) {
        int64_t now = lg_sut_now_ns();
        if (now >= t)
            return;
        int64_t d = t - now;
        struct timespec ts = {(time_t)(d / 1000000000), (long)(d % 1000000000)};
        nanosleep(&ts, NULL);
    }
}

void dg_engine_infer(const dg_engine *g, lg_sample_index idx, unsigned char out[DIGITS_RESPONSE_SIZE])
{
    int cls = g->opt.int8 ? digits_predict_int8(g->int8, g->px[idx]) : digits_predict_fp32(g->fp32, g->px[idx]);
    digits_encode_response(cls, out);
}

size_t dg_engine_total(const dg_engine *g)
{
    return g->total;
}

size_t dg_engine_perf_count(const dg_engine *g)
{
    return g->perf;
}

/* ---- workers -------------------------------------------------------------------------------- */

static void *worker(void *arg)
{
    dg_engine *g = arg;
    size_t cap = g->opt.batch;
    dg_item *items = malloc(cap * sizeof *items);
    lg_response *resp = malloc(cap * sizeof *resp);
    unsigned char(*out)[DIGITS_RESPONSE_SIZE] = malloc(cap * sizeof *out);
    if (!items || !resp || !out) {
        /* Cannot work without buffers: leave the queue to the other workers. The LoadGen's
         * timeout reports a SUT that stops answering. */
        free(items), free(resp), free(out);
        return NULL;
    }
    pthread_mutex_lock(&g->mu);
    for (;;) {
        while (!g->stop && g->qhead == g->qtail)
            pthread_cond_wait(&g->cv, &g->mu);
        if (g->stop)
            break;
        size_t k = g->qtail - g->qhead;
        if (k > cap)
            k = cap;
        memcpy(items, g->q + g->qhead, k * sizeof *items);
        g->qhead += k;
        if (g->qhead == g->qtail)
            g->qhead = g->qtail = 0;
        pthread_mutex_unlock(&g->mu);

        size_t inferred = 0;
        for (size_t i = 0; i < k; i++) {
            if (items[i].not_before)
                dg_sleep_until(items[i].not_before);
            int answered = g->has_hooks && g->hooks.answer && g->hooks.answer(g->hooks.ctx, items[i].index, out[i]);
            if (!answered && items[i].has_px) {
                const uint8_t *px = items[i].px;
                digits_encode_response(g->opt.int8 ? digits_predict_int8(g->int8, px) : digits_predict_fp32(g->fp32, px),
                                       out[i]);
                inferred++;
            } else if (!answered) {
                dg_engine_infer(g, items[i].index, out[i]);
                inferred++;
                if (g->has_hooks && g->hooks.computed)
                    g->hooks.computed(g->hooks.ctx, items[i].index, out[i]);
            }
            resp[i].id = items[i].id;
            resp[i].data = (uintptr_t)out[i];
            resp[i].size = DIGITS_RESPONSE_SIZE;
            resp[i].n_tokens = 0;
        }
        if (g->opt.cost_ns && inferred)
            dg_sleep_until(lg_sut_now_ns() + g->opt.cost_ns * (int64_t)inferred);
        /* one completion call per test in the batch (a batch never mixes tests in practice) */
        size_t start = 0;
        for (size_t i = 1; i <= k; i++)
            if (i == k || items[i].test != items[start].test) {
                lg_query_samples_complete(items[start].test, resp + start, i - start);
                start = i;
            }
        pthread_mutex_lock(&g->mu);
    }
    pthread_mutex_unlock(&g->mu);
    free(items), free(resp), free(out);
    return NULL;
}

/* ---- SUT and QSL callbacks ------------------------------------------------------------------ */

static const char *sut_name(void *ctx)
{
    return ((dg_engine *)ctx)->name;
}

/* data (may be NULL): each sample's DIGITS_PIXELS bytes, sent with the query (issue_data). */
static void enqueue(dg_engine *g, lg_test *test, const lg_query_sample *s, const void *const *data, size_t n)
{
    int64_t stack_nb[64], *nb = stack_nb;
    if (n > 64 && !(nb = calloc(n, sizeof *nb)))
        nb = NULL;
    else
        memset(nb, 0, n * sizeof *nb);
    if (nb && g->has_hooks && g->hooks.on_issue)
        g->hooks.on_issue(g->hooks.ctx, s, n, nb);
    pthread_mutex_lock(&g->mu);
    if (g->qtail + n > g->qcap) {
        /* compact, then grow */
        if (g->qhead) {
            memmove(g->q, g->q + g->qhead, (g->qtail - g->qhead) * sizeof *g->q);
            g->qtail -= g->qhead;
            g->qhead = 0;
        }
        size_t cap = g->qcap ? g->qcap : 1024;
        while (cap < g->qtail + n)
            cap *= 2;
        dg_item *nq = cap > g->qcap ? realloc(g->q, cap * sizeof *nq) : g->q;
        if (!nq) {
            /* Out of memory: the samples cannot be queued; the LoadGen's timeout reports the
             * SUT as not answering (spec: the SUT must not crash the test). */
            pthread_mutex_unlock(&g->mu);
            if (nb != stack_nb)
                free(nb);
            return;
        }
        g->q = nq;
        g->qcap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        dg_item *it = &g->q[g->qtail++];
        it->test = test;
        it->id = s[i].id;
        it->index = s[i].index;
        it->not_before = nb ? nb[i] : 0;
        it->has_px = data != NULL;
        if (data)
            memcpy(it->px, data[i], DIGITS_PIXELS);
    }
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    if (nb != stack_nb)
        free(nb);
}

static void issue_query(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    enqueue(ctx, test, s, NULL, n);
}

/* A network node's query: the sample bytes the QDL sent (the QSL's row), checked by the node
 * to be sample_size bytes each; the SUT infers from them, not from its own copy. */
static void issue_data(void *ctx, lg_test *test, const lg_query_sample *s, const void *const *data, size_t n)
{
    enqueue(ctx, test, s, data, n);
}

static int sample_data(void *priv, lg_sample_index i, const void **p, size_t *n)
{
    dg_engine *g = priv;
    if (i >= g->total)
        return -1;
    *p = g->px[i];
    *n = DIGITS_PIXELS;
    return 0;
}

static void flush_queries(void *ctx)
{
    dg_engine *g = ctx;
    if (g->has_hooks && g->hooks.on_flush)
        g->hooks.on_flush(g->hooks.ctx);
}

static const char *qsl_name(void *ctx)
{
    (void)ctx;
    return "digits validation split";
}

static int load_samples(void *ctx, const lg_sample_index *idx, size_t n)
{
    dg_engine *g = ctx;
    for (size_t i = 0; i < n; i++)
        if (idx[i] >= g->total)
            return -1;
    if (g->has_hooks && g->hooks.on_load)
        g->hooks.on_load(g->hooks.ctx, idx, n);
    return 0;
}

static int unload_samples(void *ctx, const lg_sample_index *idx, size_t n)
{
    (void)ctx, (void)idx, (void)n;
    return 0;
}

static void engine_free(void *priv)
{
    dg_engine *g = priv;
    if (!g)
        return;
    if (g->threads) {
        pthread_mutex_lock(&g->mu);
        g->stop = 1;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        for (size_t i = 0; i < g->nthreads; i++)
            pthread_join(g->threads[i], NULL);
        free(g->threads);
    }
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    if (g->has_hooks && g->hooks.destroy)
        g->hooks.destroy(g->hooks.ctx);
    free(g->q);
    free(g->px);
    free(g->fp32);
    free(g->int8);
    free(g);
}

int dg_engine_start(lg_sut_instance *si, const dg_options *d, const lg_sut_env *env, const char *label,
                    const dg_hooks *hooks, ms_err *e)
{
    dg_engine *g = calloc(1, sizeof *g);
    if (!g) {
        if (hooks && hooks->destroy)
            hooks->destroy(hooks->ctx);
        return ms_err_oom(e);
    }
    g->opt = *d;
    if (hooks) {
        g->hooks = *hooks;
        g->has_hooks = 1;
    }
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    snprintf(g->name, sizeof g->name, "%s (digits MLP, %s)", label, d->int8 ? "INT8" : "FP32");

    int rc = MS_OK;
    char *dir = NULL, *model = NULL;
    digits_dataset ds = {0};
    /* the SUT's data= option, else the run's --data, else the default places */
    if (!(dir = digits_find_dir(d->data_dir ? d->data_dir : env ? env->data_dir : NULL, e))) {
        rc = e && e->code ? e->code : MS_EINPUT;
        goto fail;
    }
    model = d->model_path ? strdup(d->model_path) : ms_path_join(dir, DIGITS_MODEL_NAME);
    g->fp32 = malloc(sizeof *g->fp32);
    g->int8 = malloc(sizeof *g->int8);
    if (!model || !g->fp32 || !g->int8) {
        rc = ms_err_oom(e);
        goto fail;
    }
    if ((rc = digits_load_dir(dir, &ds, e)) != MS_OK || (rc = digits_fp32_load(model, g->fp32, e)) != MS_OK ||
        (rc = digits_quantize(g->fp32, &ds, g->int8, e)) != MS_OK)
        goto fail;
    size_t nval = digits_split_rows(ds.n, DIGITS_SPLIT_VAL, NULL);
    size_t *rows = malloc(nval * sizeof *rows);
    g->px = malloc(nval * sizeof *g->px);
    if (!rows || !g->px) {
        free(rows);
        rc = ms_err_oom(e);
        goto fail;
    }
    digits_split_rows(ds.n, DIGITS_SPLIT_VAL, rows);
    for (size_t i = 0; i < nval; i++)
        memcpy(g->px[i], ds.pixels[rows[i]], DIGITS_PIXELS);
    free(rows);
    g->total = nval;
    if (env && env->total_sample_count) {
        if (env->total_sample_count > nval) {
            rc = ms_err_set(e, MS_EUSAGE, "--sut %s: the digits QSL has %zu samples (the validation split); "
                            "--total-samples %zu is larger", label, nval,
                            env->total_sample_count);
            goto fail;
        }
        g->total = env->total_sample_count;
    }
    g->perf = env && env->performance_sample_count ? env->performance_sample_count : g->total;
    if (g->perf > g->total) {
        rc = ms_err_set(e, MS_EUSAGE, "--sut %s: --performance-samples %zu is larger than the %zu samples of the QSL",
                        label, g->perf, g->total);
        goto fail;
    }
    g->threads = calloc(d->workers, sizeof *g->threads);
    if (!g->threads) {
        rc = ms_err_oom(e);
        goto fail;
    }
    for (size_t i = 0; i < d->workers; i++) {
        int er = pthread_create(&g->threads[i], NULL, worker, g);
        if (er) {
            rc = ms_err_errno(e, MS_ERUNTIME, er, "--sut %s: cannot start worker thread %zu", label, i);
            goto fail;
        }
        g->nthreads++;
    }
    digits_dataset_free(&ds);
    free(dir);
    free(model);

    si->sut = (lg_sut){g, sut_name, issue_query, flush_queries};
    si->qsl = (lg_qsl){g, qsl_name, g->total, g->perf, load_samples, unload_samples};
    si->has_qsl = 1;
    si->priv = g;
    si->destroy = engine_free;
    si->data = (lg_sut_data){"digits", DIGITS_PIXELS, sample_data, issue_data};
    return MS_OK;
fail:
    digits_dataset_free(&ds);
    free(dir);
    free(model);
    engine_free(g);
    return rc;
}
