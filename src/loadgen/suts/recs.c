/* --sut recs: a DLRMv3-style recommendation SUT over a counting QSL (for TEST08).
 *
 * Sample index i is the query (ts_idx = i / 16, query_idx = i % 16) of a streaming dataset
 * with n = 2 + i % 3 candidates. Its predictions are a pure function of (seed, i, candidate),
 * its labels are drawn with those probabilities (so the predictions carry information) and
 * every weight is 1. The response is a float32 array in the payload format of the DLRMv3
 * reference (mlcommons/inference recommendation/dlrm_v3, read by compliance/TEST08):
 *   accuracy mode:    [ts_idx, query_idx, predictions x n, labels x n, weights x n, n]
 *   performance mode: [ts_idx, query_idx, predictions x n]
 * Every sample is answered at once, inside issue_query. */
#include <stdlib.h>
#include <string.h>

#include "loadgen/suts/recs.h"

#define RECS_MAX_FLOATS 15 /* 3 + 3 x 4 */

typedef struct recs_sut {
    uint64_t seed;
    int perf_mode;
    int cheat;
    float *buf;     /* RECS_MAX_FLOATS per sample of the current chunk */
    lg_response *resp;
    char name[96];
} recs_sut;

enum { RECS_CHUNK = 4096 };

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static double unit(uint64_t x)
{
    return (double)(mix(x) >> 11) / 9007199254740992.0;
}

/* Fills out (little-endian float32 on the platforms mlsubmit builds for) and returns the count. */
static size_t recs_answer(const recs_sut *r, lg_sample_index i, float *out)
{
    size_t n = 2 + (size_t)(i % 3), k = 0;
    out[k++] = (float)(i / 16);
    out[k++] = (float)(i % 16);
    for (size_t c = 0; c < n; c++) {
        double p = 0.05 + 0.9 * unit(r->seed * 0x100000001B3ull ^ ((uint64_t)i << 3 | c));
        out[k++] = r->perf_mode && r->cheat ? 0.5f : (float)p;
    }
    if (r->perf_mode)
        return k;
    for (size_t c = 0; c < n; c++) {
        double p = out[2 + c];
        out[k++] = unit(~r->seed ^ ((uint64_t)i << 3 | c)) < p ? 1.0f : 0.0f;
    }
    for (size_t c = 0; c < n; c++)
        out[k++] = 1.0f;
    out[k++] = (float)n;
    return k;
}

static const char *recs_name(void *ctx)
{
    return ((recs_sut *)ctx)->name;
}

static void recs_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    recs_sut *r = ctx;
    for (size_t off = 0; off < n; off += RECS_CHUNK) {
        size_t m = n - off < RECS_CHUNK ? n - off : RECS_CHUNK;
        for (size_t j = 0; j < m; j++) {
            float *f = r->buf + j * RECS_MAX_FLOATS;
            size_t k = recs_answer(r, s[off + j].index, f);
            r->resp[j] = (lg_response){s[off + j].id, (uintptr_t)f, k * sizeof *f, 0};
        }
        lg_query_samples_complete(test, r->resp, m);
    }
}

static void recs_free(void *priv)
{
    recs_sut *r = priv;
    if (!r)
        return;
    free(r->buf);
    free(r->resp);
    free(r);
}

int recs_start(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, int cheat, ms_err *e)
{
    uint64_t seed = 1;
    if (lg_sut_opt_u64(opts, "seed", 0, UINT64_MAX, &seed, e) < 0)
        return MS_EUSAGE;
    recs_sut *r = calloc(1, sizeof *r);
    if (!r)
        return ms_err_oom(e);
    r->buf = malloc((size_t)RECS_CHUNK * RECS_MAX_FLOATS * sizeof *r->buf);
    r->resp = malloc((size_t)RECS_CHUNK * sizeof *r->resp);
    if (!r->buf || !r->resp) {
        recs_free(r);
        return ms_err_oom(e);
    }
    r->seed = seed;
    r->cheat = cheat;
    r->perf_mode = env && env->settings &&
                   (env->settings->mode == LG_PERFORMANCE_ONLY || env->settings->mode == LG_FIND_PEAK_PERFORMANCE);
    snprintf(r->name, sizeof r->name, "%s (DLRMv3-style payloads, seed %llu)", cheat ? "cheat-acc recs" : "recs",
             (unsigned long long)seed);
    si->priv = r;
    si->destroy = recs_free;
    si->sut = (lg_sut){r, recs_name, recs_issue, lg_sut_flush_none};
    return MS_OK;
}

static int recs_create(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e)
{
    return recs_start(si, opts, env, 0, e);
}

LG_SUT_DEFINE(recs, "DLRMv3-style recommendation payloads (float32 predictions, labels, weights) over a counting QSL",
              RECS_OPTIONS_HELP, recs_create)
