/* Loadable sets (reference loadgen.cc, GenerateLoadableSets) and query generation (reference
 * loadgen.cc, GenerateQueries), lazily: the generator draws from the sample and schedule engines
 * in exactly the reference's order, one query at a time, so a 30-million-query Server run needs no
 * pre-generated query list. A first pass over the schedule only gives the count and duration the
 * detail log reports before issuing. */
#ifndef LG_QUERYGEN_H
#define LG_QUERYGEN_H

#include <stddef.h>
#include <stdint.h>

#include "loadgen/internal.h"
#include "loadgen/rng.h"

typedef struct lg_lset {
    size_t *idx;     /* QSL indices incl. MultiStream padding */
    size_t len;      /* |L| */
    size_t E;        /* unpadded length */
} lg_lset;

/* count = performance_sample_count (performance) or accuracy_sample_count (accuracy, 6.0.6+).
 * Returns the chunks in *sets (caller frees with lg_lsets_free). performance runs use only the
 * first chunk but the whole partition is cheap. */
int lg_make_loadable_sets(const lg_effective *ef, size_t qsl_total, lg_compat compat,
                          int accuracy, lg_lset **sets, size_t *nsets, ms_err *e);
void lg_lsets_free(lg_lset *sets, size_t n);

typedef struct lg_qgen {
    lg_scenario scen;
    int accuracy;
    const lg_lset *L;
    uint64_t spq;                /* samples per query after padding */
    uint64_t min_queries;        /* after step 1 and 3 */
    int64_t gen_duration_ns;
    int concat, unique, same;
    int eq_draw;                 /* the equal-issue draw picks the samples (not MS, not Offline) */
    uint64_t same_idx;
    lg_mt19937 S, T;
    double target_qps;
    int64_t period_ns;
    uint64_t *d_main;            /* accuracy: shuffled positions */
    size_t d_main_len, d_main_pos;
    uint64_t *d_unique;
    size_t d_unique_len, d_unique_pos;
    uint64_t *d_eq;              /* only stored when equal issue is on */
    size_t d_eq_len, d_eq_pos;
    uint64_t E;
    /* results of the first pass */
    uint64_t query_count;        /* generated_query_count */
    int64_t total_duration_ns;   /* generated_query_duration */
    uint64_t sample_count;       /* total samples of all generated queries */
    int offline_remainder;       /* reference GenerateQueries, Offline remainder */
    /* issue pass state */
    uint64_t produced;
    int64_t ts;
} lg_qgen;

/* Builds the sources (consuming the sample engine like the reference) and runs the first pass. */
int lg_qgen_init(lg_qgen *g, const lg_effective *ef, const lg_lset *L, int accuracy, ms_err *e);
void lg_qgen_free(lg_qgen *g);
/* Samples of the next query (positions resolved to QSL indices) into out (capacity >= max
 * query size: spq, or Offline's remainder). Returns the number of samples (0 when all
 * queries were produced); *delta gets the query's scheduled offset from the start in ns. */
size_t lg_qgen_next(lg_qgen *g, size_t *out, int64_t *delta);
/* Largest number of samples a query of this generator can have. */
uint64_t lg_qgen_max_query_samples(const lg_qgen *g);

#endif
