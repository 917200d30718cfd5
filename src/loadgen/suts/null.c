/* --sut null: answers every sample at once, inside issue_query, with 4 bytes (the sample
 * index, little-endian). Measures the LoadGen's own overhead. With tokens=N it first reports
 * a first token (the same 4 bytes) and then completes with n_tokens = N. */
#include <stdlib.h>
#include <string.h>

#include "loadgen/suts/sut.h"

typedef struct null_sut {
    int64_t tokens;
    uint32_t *payload;
    lg_response *resp;
} null_sut;

static const char *null_name(void *ctx)
{
    (void)ctx;
    return "mlsubmit null SUT";
}

/* Answers in chunks so that a multi-million-sample Offline query needs no giant response
 * array; every chunk is completed before issue_query returns. */
enum { NULL_CHUNK = 65536 };

static void null_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    null_sut *ns = ctx;
    enum { SMALL = 64 };
    uint32_t pl_small[SMALL];
    lg_response r_small[SMALL];
    uint32_t *pl = pl_small;
    lg_response *r = r_small;
    size_t chunk = SMALL;
    if (n > SMALL && !ns->payload) {
        /* issue_query is called from one thread at a time: allocate once, reuse */
        ns->payload = malloc(NULL_CHUNK * sizeof *ns->payload);
        ns->resp = malloc(NULL_CHUNK * sizeof *ns->resp);
        if (!ns->payload || !ns->resp) {
            free(ns->payload);
            free(ns->resp);
            ns->payload = NULL;
            ns->resp = NULL;
        }
    }
    if (n > SMALL && ns->payload) {
        pl = ns->payload;
        r = ns->resp;
        chunk = NULL_CHUNK;
    }
    for (size_t off = 0; off < n; off += chunk) {
        size_t m = n - off < chunk ? n - off : chunk;
        for (size_t i = 0; i < m; i++) {
            pl[i] = (uint32_t)s[off + i].index;
            r[i].id = s[off + i].id;
            r[i].data = (uintptr_t)&pl[i];
            r[i].size = sizeof pl[i];
            r[i].n_tokens = ns->tokens;
        }
        if (ns->tokens)
            lg_first_token_complete(test, r, m);
        lg_query_samples_complete(test, r, m);
    }
}

static void null_destroy(void *priv)
{
    null_sut *ns = priv;
    if (!ns)
        return;
    free(ns->payload);
    free(ns->resp);
    free(ns);
}

static int null_create(lg_sut_instance *si, lg_sut_opts *o, const lg_sut_env *env, ms_err *e)
{
    (void)env;
    uint64_t tokens = 0;
    if (lg_sut_opt_u64(o, "tokens", 0, INT64_MAX, &tokens, e) < 0)
        return MS_EUSAGE;
    null_sut *ns = calloc(1, sizeof *ns);
    if (!ns)
        return ms_err_oom(e);
    ns->tokens = (int64_t)tokens;
    si->priv = ns;
    si->destroy = null_destroy;
    si->sut = (lg_sut){ns, null_name, null_issue, lg_sut_flush_none};
    return MS_OK;
}

LG_SUT_DEFINE(null, "answers every sample at once with 4 bytes (the sample index)",
              "               tokens=N   also report a first token, and N output tokens\n",
              null_create)
