/* --sut cheat-cache: a digits SUT that caches responses by sample index (forbidden).
 *
 * Rule broken: MLPerf Inference rules forbid caching queries or responses: every sample must be
 * inferred when it is issued. This SUT keeps the responses of the sample indices it has seen in
 * an LRU cache of cap entries and answers a repeat from the cache at once, without inference
 * and without the emulated cost. Its bytes are the cached (correct) bytes, so accuracy audits
 * pass; TEST04 (the same sample issued for the whole run) must catch the speed-up. With cap=all
 * (a cache as large as the QSL) the normal performance run is served from the cache as well, so
 * upstream's TEST04 comparison passes: mlsubmit's STRICT unique-index run (README, Audits) catches
 * it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen/suts/digits_engine.h"

typedef struct cache {
    pthread_mutex_t mu;
    size_t cap, used, n;   /* n = QSL size (indices are < n) */
    int32_t *prev, *next;  /* LRU list over sample indices, -1 = none */
    int32_t head, tail;    /* head = most recent */
    unsigned char *present;
    unsigned char (*val)[DIGITS_RESPONSE_SIZE];
} cache;

static void unlink_idx(cache *c, int32_t i)
{
    if (c->prev[i] >= 0)
        c->next[c->prev[i]] = c->next[i];
    else
        c->head = c->next[i];
    if (c->next[i] >= 0)
        c->prev[c->next[i]] = c->prev[i];
    else
        c->tail = c->prev[i];
}

static void push_front(cache *c, int32_t i)
{
    c->prev[i] = -1;
    c->next[i] = c->head;
    if (c->head >= 0)
        c->prev[c->head] = i;
    c->head = i;
    if (c->tail < 0)
        c->tail = i;
}

static int cache_answer(void *ctx, lg_sample_index idx, unsigned char out[DIGITS_RESPONSE_SIZE])
{
    cache *c = ctx;
    int hit = 0;
    pthread_mutex_lock(&c->mu);
    if (idx < c->n && c->present[idx]) {
        memcpy(out, c->val[idx], DIGITS_RESPONSE_SIZE);
        unlink_idx(c, (int32_t)idx);
        push_front(c, (int32_t)idx);
        hit = 1;
    }
    pthread_mutex_unlock(&c->mu);
    return hit;
}

static void cache_computed(void *ctx, lg_sample_index idx, const unsigned char out[DIGITS_RESPONSE_SIZE])
{
    cache *c = ctx;
    if (idx >= c->n)
        return;
    pthread_mutex_lock(&c->mu);
    if (!c->present[idx]) {
        if (c->used == c->cap) {
            int32_t old = c->tail;
            unlink_idx(c, old);
            c->present[old] = 0;
            c->used--;
        }
        c->present[idx] = 1;
        c->used++;
        push_front(c, (int32_t)idx);
    }
    memcpy(c->val[idx], out, DIGITS_RESPONSE_SIZE);
    pthread_mutex_unlock(&c->mu);
}

static void cache_free(void *ctx)
{
    cache *c = ctx;
    if (!c)
        return;
    pthread_mutex_destroy(&c->mu);
    free(c->prev), free(c->next), free(c->present), free(c->val);
    free(c);
}

static int cheat_cache_create(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e)
{
    dg_options d;
    int rc = dg_parse_options(opts, env, &d, e);
    if (rc != MS_OK)
        return rc;
    uint64_t cap = 64;
    const char *cs = lg_sut_opt_str(opts, "cap");
    int all = cs && !strcmp(cs, "all");
    if (!all && lg_sut_opt_u64(opts, "cap", 1, 1u << 30, &cap, e) < 0)
        return ms_err_set(e, MS_EUSAGE, "--sut %s: option cap: expected 'all' or an integer >= 1, got '%s'",
                          opts->sut_name, cs ? cs : "");
    /* indices are < the validation split size (537) */
    size_t n = digits_split_rows(DIGITS_ROWS, DIGITS_SPLIT_VAL, NULL);
    cache *c = calloc(1, sizeof *c);
    if (!c)
        return ms_err_oom(e);
    pthread_mutex_init(&c->mu, NULL);
    c->n = n;
    c->cap = all || cap > n ? n : (size_t)cap;
    c->head = c->tail = -1;
    c->prev = malloc(n * sizeof *c->prev);
    c->next = malloc(n * sizeof *c->next);
    c->present = calloc(n, 1);
    c->val = malloc(n * sizeof *c->val);
    if (!c->prev || !c->next || !c->present || !c->val) {
        cache_free(c);
        return ms_err_oom(e);
    }
    dg_hooks h = {.ctx = c, .answer = cache_answer, .computed = cache_computed, .destroy = cache_free};
    return dg_engine_start(si, &d, env, all ? "cheat-cache (cap=all)" : "cheat-cache", &h, e);
}

LG_SUT_DEFINE(cheat_cache, "CHEATER (caching): digits SUT answering repeated sample indices from an LRU cache",
              "               breaks: no caching of responses (TEST04 catches cap=N; cap=all needs its unique-index run)\n"
              "               cap=N|all (64) cache entries; all = every QSL sample (defeats upstream TEST04)\n"
              "               and the digits options:\n" DG_OPTIONS_HELP,
              cheat_cache_create)
