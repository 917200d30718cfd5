/* --sut cheat-seed: a digits SUT tuned to the official LoadGen seeds of the round (forbidden).
 *
 * Rule broken: a SUT must not be tuned to the official seeds (the alternate-seed audit, TEST05,
 * exists to catch this). Every sample costs a fetch (fetch=DURATION of sleeping, like reading
 * it from slow storage) before inference. This SUT knows the round's official
 * sample_index_rng_seed (from the embedded mlperf.conf, or seed=N): with the loaded set it
 * reproduces the LoadGen's draws (reference loadgen.cc GenerateQueries: the D_unique shuffle, the
 * D_eq shuffles, then uniform positions), locks on after watching the first LOCK queries, and from
 * then on stages the next `window` predicted samples ahead of time, so their fetch is already done
 * when they are issued. With the official seeds it is fast; with any other seeds no prediction
 * matches and every sample pays its fetch. Responses are always the honest inference. Prediction
 * works for SingleStream, MultiStream and Server performance runs in the default issue mode. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen/embedded.h"
#include "loadgen/rng.h"
#include "loadgen/suts/digits_engine.h"

#define LOCK 16          /* queries watched before locking on */
#define MAX_SHUFFLES 1024 /* candidate counts of D_eq shuffles tried */

typedef struct seed_cheat {
    pthread_mutex_t mu;
    uint64_t seed;
    int64_t fetch_ns;
    size_t window;
    lg_scenario scenario;
    uint64_t spq;             /* MultiStream samples per query */
    /* loaded set */
    size_t n_loaded, e;       /* |L| and its unpadded length E */
    int32_t *pos_of;          /* sample index -> position in L (-1) */
    size_t pos_cap;
    uint32_t *cand;           /* MAX_SHUFFLES x LOCK predicted positions */
    size_t ncand;
    /* lock-on */
    uint32_t obs[LOCK];
    size_t nobs;
    int locked, lost;
    lg_mt19937 g;             /* the predicted D_main stream, after the window */
    uint32_t *ring_pos;       /* window of staged predictions */
    int64_t *ring_ready;
    size_t ring_head, ring_len;
} seed_cheat;

/* The official sample_index_rng_seed of the embedded mlperf.conf of a round. */
static int official_seed(const char *round, uint64_t *out)
{
    int c = lg_compat_parse(round);
    if (c < 0)
        return -1;
    const char *name = lg_version_rules_of_compat(c)->mlperf_conf;
    for (const struct lg_embedded_file *f = lg_embedded_files; f->name; f++) {
        if (strcmp(f->name, name) != 0)
            continue;
        const char *key = "*.*.sample_index_rng_seed";
        for (const char *p = f->text; (p = strstr(p, key)) != NULL; p += strlen(key)) {
            if (p != f->text && p[-1] != '\n')
                continue;
            const char *q = p + strlen(key);
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q != '=')
                continue;
            q++;
            char *end;
            unsigned long long v = strtoull(q, &end, 10);
            if (end == q)
                continue;
            *out = v;
            return 0;
        }
    }
    return -1;
}

static void consume_shuffle(lg_mt19937 *g, size_t *scratch, size_t n)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = i;
    lg_shuffle_size(scratch, n, g);
}

/* The engine state just before D_main's first draw, assuming k D_eq shuffles (reference
 * loadgen.cc, GenerateQueries). */
static void replay(const seed_cheat *c, size_t k, lg_mt19937 *g, size_t *scratch)
{
    size_t stride = c->scenario == LG_MULTI_STREAM ? (size_t)c->spq : 1;
    lg_mt_seed(g, c->seed);
    consume_shuffle(g, scratch, (c->e + stride - 1) / stride);
    for (size_t i = 0; i < k; i++)
        consume_shuffle(g, scratch, c->n_loaded);
}

static void sc_on_load(void *ctx, const lg_sample_index *idx, size_t n)
{
    seed_cheat *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->locked = c->lost = 0;
    c->nobs = 0;
    c->ncand = 0;
    c->ring_len = c->ring_head = 0;
    c->n_loaded = n;
    c->e = n;
    if (c->scenario == LG_MULTI_STREAM && c->spq > 1 && n >= c->spq)
        c->e = n - (size_t)(c->spq - 1);
    size_t maxidx = 0;
    for (size_t i = 0; i < n; i++)
        maxidx = idx[i] > maxidx ? idx[i] : maxidx;
    size_t *scratch = NULL;
    if (c->scenario == LG_OFFLINE || n == 0)
        goto out;
    if (maxidx + 1 > c->pos_cap) {
        int32_t *np = realloc(c->pos_of, (maxidx + 1) * sizeof *np);
        if (!np)
            goto out;
        c->pos_of = np;
        c->pos_cap = maxidx + 1;
    }
    for (size_t i = 0; i < c->pos_cap; i++)
        c->pos_of[i] = -1;
    for (size_t i = 0; i < c->e; i++)
        if (c->pos_of[idx[i]] < 0)
            c->pos_of[idx[i]] = (int32_t)i;
    scratch = malloc(n * sizeof *scratch);
    if (!scratch)
        goto out;
    /* Untimed (load happens before the run): the first LOCK draws for every candidate count of
     * D_eq shuffles. */
    size_t stride = c->scenario == LG_MULTI_STREAM ? (size_t)c->spq : 1;
    lg_mt19937 g, t;
    lg_mt_seed(&g, c->seed);
    consume_shuffle(&g, scratch, (c->e + stride - 1) / stride);
    for (size_t k = 0; k < MAX_SHUFFLES; k++) {
        t = g;
        for (size_t j = 0; j < LOCK; j++)
            c->cand[k * LOCK + j] = (uint32_t)lg_uniform_u64(&t, 0, c->e - 1);
        consume_shuffle(&g, scratch, n);
    }
    c->ncand = MAX_SHUFFLES;
out:
    free(scratch);
    pthread_mutex_unlock(&c->mu);
}

static void try_lock(seed_cheat *c, int64_t now)
{
    for (size_t k = 0; k < c->ncand; k++) {
        if (memcmp(c->cand + k * LOCK, c->obs, sizeof c->obs) != 0)
            continue;
        size_t *scratch = malloc((c->n_loaded ? c->n_loaded : 1) * sizeof *scratch);
        if (!scratch)
            return;
        replay(c, k, &c->g, scratch);
        free(scratch);
        for (size_t j = 0; j < LOCK; j++)
            lg_uniform_u64(&c->g, 0, c->e - 1);
        /* stage the next `window` predictions now */
        for (size_t j = 0; j < c->window; j++) {
            c->ring_pos[j] = (uint32_t)lg_uniform_u64(&c->g, 0, c->e - 1);
            c->ring_ready[j] = now + c->fetch_ns;
        }
        c->ring_head = 0;
        c->ring_len = c->window;
        c->locked = 1;
        return;
    }
    c->lost = 1; /* not the official seed: stay honest-and-slow for this series */
}

/* One query starting at loaded position pos: when may it start? */
static int64_t observe(seed_cheat *c, int32_t pos, int64_t now)
{
    if (pos < 0 || c->lost || c->ncand == 0)
        return now + c->fetch_ns;
    if (!c->locked) {
        c->obs[c->nobs++] = (uint32_t)pos;
        if (c->nobs == LOCK)
            try_lock(c, now);
        return now + c->fetch_ns;
    }
    if (c->ring_pos[c->ring_head] != (uint32_t)pos) {
        c->locked = 0;
        c->lost = 1;
        return now + c->fetch_ns;
    }
    int64_t ready = c->ring_ready[c->ring_head];
    /* stage one more prediction in the freed slot */
    c->ring_pos[c->ring_head] = (uint32_t)lg_uniform_u64(&c->g, 0, c->e - 1);
    c->ring_ready[c->ring_head] = now + c->fetch_ns;
    c->ring_head = (c->ring_head + 1) % c->window;
    return ready > now ? ready : 0;
}

static void sc_on_issue(void *ctx, const lg_query_sample *s, size_t n, int64_t *not_before)
{
    seed_cheat *c = ctx;
    int64_t now = lg_sut_now_ns();
    pthread_mutex_lock(&c->mu);
    if (c->scenario == LG_MULTI_STREAM) {
        /* one query: its first sample is the drawn start position */
        int32_t pos = s[0].index < c->pos_cap ? c->pos_of[s[0].index] : -1;
        int64_t t = observe(c, pos, now);
        for (size_t i = 0; i < n; i++)
            not_before[i] = t;
    } else if (c->scenario == LG_OFFLINE) {
        for (size_t i = 0; i < n; i++)
            not_before[i] = now + c->fetch_ns;
    } else {
        for (size_t i = 0; i < n; i++) {
            int32_t pos = s[i].index < c->pos_cap ? c->pos_of[s[i].index] : -1;
            not_before[i] = observe(c, pos, now);
        }
    }
    pthread_mutex_unlock(&c->mu);
}

static void sc_free(void *ctx)
{
    seed_cheat *c = ctx;
    if (!c)
        return;
    pthread_mutex_destroy(&c->mu);
    free(c->pos_of), free(c->cand), free(c->ring_pos), free(c->ring_ready);
    free(c);
}

static int cheat_seed_create(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e)
{
    dg_options d;
    int rc = dg_parse_options(opts, env, &d, e);
    if (rc != MS_OK)
        return rc;
    int64_t fetch = 1000000;
    uint64_t window = 256, seed = 0;
    const char *round = lg_sut_opt_str(opts, "round");
    if (lg_sut_opt_duration(opts, "fetch", &fetch, e) < 0 || lg_sut_opt_u64(opts, "window", 1, 1u << 20, &window, e) < 0)
        return e ? e->code : MS_EUSAGE;
    if (fetch < 0)
        return ms_err_set(e, MS_EUSAGE, "--sut %s: option fetch: expected a non-negative duration", opts->sut_name);
    int has_seed = lg_sut_opt_u64(opts, "seed", 0, UINT64_MAX, &seed, e);
    if (has_seed < 0)
        return e ? e->code : MS_EUSAGE;
    if (has_seed && round)
        return ms_err_set(e, MS_EUSAGE, "--sut %s: give either seed=N or round=R, not both", opts->sut_name);
    const char *newest = lg_compat_name(LG_COMPAT_LATEST);
    if (!has_seed && official_seed(round ? round : newest, &seed) != 0) {
        char names[256];
        return ms_err_set(e, MS_EUSAGE, "--sut %s: option round: expected a round with an embedded "
                          "mlperf.conf (%s), got '%s'", opts->sut_name, lg_compat_names(names, sizeof names),
                          round ? round : newest);
    }
    seed_cheat *c = calloc(1, sizeof *c);
    if (!c)
        return ms_err_oom(e);
    pthread_mutex_init(&c->mu, NULL);
    c->seed = seed;
    c->fetch_ns = fetch;
    c->window = (size_t)window;
    c->scenario = env && env->settings ? env->settings->scenario : LG_SINGLE_STREAM;
    c->spq = env && env->settings ? env->settings->multi_stream_samples_per_query : 8;
    c->cand = malloc(MAX_SHUFFLES * LOCK * sizeof *c->cand);
    c->ring_pos = malloc(c->window * sizeof *c->ring_pos);
    c->ring_ready = malloc(c->window * sizeof *c->ring_ready);
    if (!c->cand || !c->ring_pos || !c->ring_ready) {
        sc_free(c);
        return ms_err_oom(e);
    }
    dg_hooks h = {.ctx = c, .on_issue = sc_on_issue, .on_load = sc_on_load, .destroy = sc_free};
    return dg_engine_start(si, &d, env, "cheat-seed", &h, e);
}

LG_SUT_DEFINE(cheat_seed, "CHEATER (seeds): digits SUT predicting the sample order of the official seeds to prefetch",
              "               breaks: no tuning to the official seeds (the alternate-seed audit, TEST05, catches it)\n"
              "               fetch=D (1ms) per-sample fetch when not prefetched   window=N (256) staged ahead\n"
              "               round=R (the newest LoadGen release) whose official sample_index_rng_seed, or seed=N\n"
              "               and the digits options:\n" DG_OPTIONS_HELP,
              cheat_seed_create)
