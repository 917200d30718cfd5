#include "loadgen/querygen.h"

#include <stdlib.h>
#include <string.h>

void lg_lsets_free(lg_lset *sets, size_t n)
{
    if (!sets)
        return;
    for (size_t i = 0; i < n; i++)
        free(sets[i].idx);
    free(sets);
}

int lg_make_loadable_sets(const lg_effective *ef, size_t qsl_total, lg_compat compat,
                          int accuracy, lg_lset **sets, size_t *nsets, ms_err *e)
{
    *sets = NULL;
    *nsets = 0;
    uint64_t P = ef->performance_sample_count;
    if (P == 0)
        return ms_err_set(e, MS_EINPUT, "performance_sample_count is 0 (the QSL reports 0 and no "
                                        "performance_sample_count_override is set)");
    if (qsl_total == 0)
        return ms_err_set(e, MS_EINPUT, "the QSL reports 0 samples");
    size_t K;
    if (!lg_version_rules_of_compat(compat)->loaded_set_from_count) {
        K = qsl_total;
    } else {
        uint64_t C = accuracy ? ef->accuracy_sample_count : P;
        K = C < qsl_total ? (size_t)C : qsl_total;
    }
    size_t *list = malloc(K * sizeof *list);
    if (!list)
        return ms_err_oom(e);
    for (size_t i = 0; i < K; i++)
        list[i] = i;
    lg_mt19937 g;
    lg_mt_seed_lib(&g, ef->qsl_rng_seed, (lg_stdlib)ef->stdlib);
    lg_shuffle_size(list, K, &g);
    size_t nchunks = (K + P - 1) / P;
    if (!accuracy)
        nchunks = 1; /* performance runs use only the first chunk */
    lg_lset *out = calloc(nchunks, sizeof *out);
    if (!out) {
        free(list);
        return ms_err_oom(e);
    }
    size_t pad = ef->scenario == LG_MULTI_STREAM && ef->samples_per_query > 0
                     ? (size_t)ef->samples_per_query - 1
                     : 0;
    for (size_t c = 0; c < nchunks; c++) {
        size_t start = c * (size_t)P;
        size_t E = K - start < P ? K - start : (size_t)P;
        out[c].idx = malloc((E + pad) * sizeof(size_t));
        if (!out[c].idx) {
            lg_lsets_free(out, nchunks);
            free(list);
            return ms_err_oom(e);
        }
        memcpy(out[c].idx, list + start, E * sizeof(size_t));
        for (size_t i = 0; i < pad; i++)
            out[c].idx[E + i] = out[c].idx[i]; /* cyclic when the chunk is shorter */
        out[c].len = E + pad;
        out[c].E = E;
    }
    free(list);
    *sets = out;
    *nsets = nchunks;
    return MS_OK;
}

static uint64_t *position_list(uint64_t E, uint64_t stride, size_t *n)
{
    size_t cnt = stride ? (size_t)((E + stride - 1) / stride) : 0;
    uint64_t *l = malloc((cnt ? cnt : 1) * sizeof *l);
    if (!l)
        return NULL;
    for (size_t i = 0; i < cnt; i++)
        l[i] = i * stride;
    *n = cnt;
    return l;
}

int lg_qgen_init(lg_qgen *g, const lg_effective *ef, const lg_lset *L, int accuracy, ms_err *e)
{
    memset(g, 0, sizeof *g);
    g->scen = ef->scenario;
    g->accuracy = accuracy;
    g->L = L;
    g->E = L->E;
    g->concat = ef->sample_concatenate_permutation;
    g->unique = ef->performance_issue_unique;
    g->same = ef->performance_issue_same;
    g->same_idx = ef->performance_issue_same_index;
    g->target_qps = ef->target_qps;
    uint64_t Llen = L->len;
    if (Llen == 0)
        return ms_err_set(e, MS_EINPUT, "empty loadable set");
    /* performance_issue_same_index past the loaded set (an accuracy set shorter than the
     * performance sample count): the reference reads past its vector (loaded_samples[same_sample]
     * in loadgen.cc GenerateQueries, undefined behaviour); here it wraps, never reading out of
     * bounds */
    if (g->same_idx >= Llen)
        g->same_idx %= Llen;

    /* Step 1: sizes */
    g->gen_duration_ns = (int64_t)(g->scen == LG_SERVER ? 1 : 2) * (int64_t)ef->target_duration_ms * 1000000;
    uint64_t min_queries = ef->min_query_count;
    uint64_t spq = ef->samples_per_query;
    if (accuracy && g->scen == LG_OFFLINE)
        spq = L->E;
    if (spq == 0)
        return ms_err_set(e, MS_EINPUT, "samples_per_query is 0");
    const lg_version_rules *vr = ef->rules ? ef->rules : lg_version_rules_latest();
    if (accuracy || g->unique || (g->same && vr->issue_same_as_unique)) {
        g->gen_duration_ns = 0;
        min_queries = Llen / spq;
    }
    uint64_t stride = g->scen == LG_MULTI_STREAM ? spq : 1;

    /* Step 2: sources, in the reference's order (each may consume the sample engine) */
    lg_mt_seed_lib(&g->S, ef->sample_index_rng_seed, (lg_stdlib)ef->stdlib);
    lg_mt_seed_lib(&g->T, ef->schedule_rng_seed, (lg_stdlib)ef->stdlib);
    if (accuracy) {
        g->d_main = position_list(L->E, stride, &g->d_main_len);
        if (!g->d_main)
            return ms_err_oom(e);
        lg_shuffle_u64(g->d_main, g->d_main_len, &g->S);
    }
    g->d_unique = position_list(L->E, stride, &g->d_unique_len);
    if (!g->d_unique) {
        lg_qgen_free(g);
        return ms_err_oom(e);
    }
    lg_shuffle_u64(g->d_unique, g->d_unique_len, &g->S);
    /* The equal-issue draw (loadgen.cc SampleDistributionEqualIssue, from tag v2.0) is built,
     * and shuffles with the sample engine, whether or not it is used; a release without
     * sample_concatenate_permutation (equal_issue 0: GenerateQueries of tag v1.0.1) has none. */
    if (vr->equal_issue) {
        uint64_t *base = malloc(Llen * sizeof *base);
        if (!base) {
            lg_qgen_free(g);
            return ms_err_oom(e);
        }
        for (uint64_t i = 0; i < Llen; i++)
            base[i] = i;
        uint64_t blocks = (min_queries + Llen - 1) / Llen;
        if (g->concat && blocks) {
            if (blocks > SIZE_MAX / 8 / Llen) {
                free(base);
                lg_qgen_free(g);
                return ms_err_oom(e);
            }
            g->d_eq = malloc(blocks * Llen * sizeof *g->d_eq);
            if (!g->d_eq) {
                free(base);
                lg_qgen_free(g);
                return ms_err_oom(e);
            }
        }
        for (uint64_t b = 0; b < blocks; b++) {
            lg_shuffle_u64(base, Llen, &g->S);
            if (g->d_eq)
                memcpy(g->d_eq + b * Llen, base, Llen * sizeof *base);
        }
        g->d_eq_len = g->d_eq ? blocks * Llen : 0;
        free(base);
    }

    /* Step 3: equal-issue padding (GenerateQueries of the release: vr->equal_issue) */
    if (g->concat && vr->equal_issue == 1) {
        if (g->scen == LG_OFFLINE && spq % Llen)
            spq += Llen - spq % Llen;
    } else if (g->concat && vr->equal_issue >= 2 && !accuracy) {
        if (g->scen == LG_OFFLINE && spq % Llen)
            spq += Llen - spq % Llen;
        else if ((g->scen != LG_OFFLINE || vr->equal_issue_pads_offline_queries) && min_queries % Llen)
            min_queries += Llen - min_queries % Llen;
    }
    int bump = g->concat && vr->equal_issue >= 2;
    /* equal_issue 1 draws from it in SingleStream only (loadgen.cc GenerateQueries of tag v2.1:
     * equal_issue = sample_concatenate_permutation && SingleStream), 2 in Server too (tag v4.0:
     * enable_equal_issue) */
    g->eq_draw = g->concat && (vr->equal_issue >= 2 || g->scen == LG_SINGLE_STREAM);
    g->spq = spq;
    g->min_queries = min_queries;
    if (g->scen != LG_SERVER)
        g->period_ns = (int64_t)((1.0 / g->target_qps) * 1e9);

    /* First pass: how many queries and how long the schedule is. */
    lg_mt19937 T = g->T;
    int64_t ts = 0, prev = 0;
    uint64_t count = 0, mq = min_queries;
    while (prev < g->gen_duration_ns || count < mq) {
        count++;
        prev = ts;
        ts += g->scen == LG_SERVER ? lg_seconds_to_ns(lg_exponential(&T, g->target_qps)) : g->period_ns;
        if (bump && count >= mq && prev < g->gen_duration_ns && g->scen != LG_OFFLINE)
            mq += Llen;
    }
    g->offline_remainder = g->scen == LG_OFFLINE && accuracy && (Llen % spq) != 0;
    g->query_count = count + (g->offline_remainder ? 1 : 0);
    g->total_duration_ns = ts;
    g->sample_count = count * spq + (g->offline_remainder ? Llen % spq : 0);
    return MS_OK;
}

void lg_qgen_free(lg_qgen *g)
{
    free(g->d_main);
    free(g->d_unique);
    free(g->d_eq);
    g->d_main = g->d_unique = g->d_eq = NULL;
}

uint64_t lg_qgen_max_query_samples(const lg_qgen *g)
{
    return g->spq;
}

static uint64_t next_main(lg_qgen *g)
{
    if (g->accuracy)
        return g->d_main_len ? g->d_main[g->d_main_pos++ % g->d_main_len] : 0;
    return lg_uniform_u64(&g->S, 0, g->E - 1);
}

static uint64_t next_unique(lg_qgen *g)
{
    return g->d_unique_len ? g->d_unique[g->d_unique_pos++ % g->d_unique_len] : 0;
}

static uint64_t next_eq(lg_qgen *g)
{
    return g->d_eq_len ? g->d_eq[g->d_eq_pos++ % g->d_eq_len] : 0;
}

size_t lg_qgen_next(lg_qgen *g, size_t *out, int64_t *delta)
{
    if (g->produced >= g->query_count)
        return 0;
    const size_t *L = g->L->idx;
    size_t Llen = g->L->len;
    size_t n;
    if (g->offline_remainder && g->produced == g->query_count - 1) {
        /* reference loadgen.cc GenerateQueries, Offline: the accuracy remainder drawn from D_main
         * */
        n = Llen % g->spq;
        for (size_t i = 0; i < n; i++)
            out[i] = L[next_main(g)];
        *delta = g->ts;
        g->produced++;
        return n;
    }
    switch (g->scen) {
    case LG_MULTI_STREAM: {
        uint64_t start = g->unique ? next_unique(g) : g->same ? g->same_idx : next_main(g);
        n = (size_t)g->spq;
        for (size_t i = 0; i < n; i++)
            out[i] = L[(start + i) % Llen];
        break;
    }
    case LG_OFFLINE: {
        n = (size_t)g->spq;
        if (g->same) {
            for (size_t i = 0; i < n; i++)
                out[i] = L[g->same_idx];
            break;
        }
        size_t full = n / Llen, rem = n % Llen;
        for (size_t k = 0; k < full; k++) {
            memcpy(out + k * Llen, L, Llen * sizeof *out);
            if (g->concat)
                lg_shuffle_size(out + k * Llen, Llen, &g->S);
        }
        memcpy(out + full * Llen, L, rem * sizeof *out);
        break;
    }
    default:
        n = (size_t)g->spq;
        for (size_t i = 0; i < n; i++) {
            uint64_t pos = g->unique ? next_unique(g)
                           : g->same ? g->same_idx
                           : g->eq_draw ? next_eq(g)
                                       : next_main(g);
            out[i] = L[pos];
        }
        break;
    }
    *delta = g->ts;
    g->ts += g->scen == LG_SERVER ? lg_seconds_to_ns(lg_exponential(&g->T, g->target_qps)) : g->period_ns;
    g->produced++;
    return n;
}
