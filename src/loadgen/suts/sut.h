/* Writing a reference SUT: one file in src/loadgen/suts/ that defines
 *
 *     LG_SUT_DEFINE(mysut, "one-line summary", "option help lines", mysut_create)
 *
 * The build finds the macro (tools/gen-sut-registry.sh) and registers the SUT under --sut
 * mysut[:options]. create() parses its options with lg_sut_opt_*, fills si->sut (and si->qsl if
 * it brings a dataset; otherwise the counting QSL sized by --total-samples is used), sets
 * si->priv / si->destroy, and returns MS_OK or an error naming the bad option. */
#ifndef LG_SUTS_SUT_H
#define LG_SUTS_SUT_H

#include <stdint.h>

#include "loadgen/loadgen.h"

typedef struct lg_sut_opt {
    char *key;
    char *value;   /* "" for a bare flag */
    int used;
} lg_sut_opt;

typedef struct lg_sut_opts {
    const char *sut_name;
    lg_sut_opt *v;
    size_t n;
} lg_sut_opts;

/* A SUT whose QSL holds sample bytes (the network SUT sends them with each query). */
typedef struct lg_sut_data {
    const char *dataset;    /* the --sut name that loads the same QSL (e.g. "digits"); NULL = none */
    size_t sample_size;     /* bytes per sample */
    /* the bytes of sample i (priv is the instance's priv); 0, or -1 if i is outside the QSL */
    int (*sample)(void *priv, lg_sample_index i, const void **p, size_t *n);
    /* issue_query with each sample's bytes (sample_size each, valid during the call only),
     * inferred from instead of the SUT's own copy (ctx is sut.ctx) */
    void (*issue)(void *ctx, lg_test *test, const lg_query_sample *s, const void *const *data, size_t n);
} lg_sut_data;

struct lg_sut_instance {
    lg_sut_data data;        /* optional (dataset SUTs) */
    lg_sut sut;
    lg_qsl qsl;
    int has_qsl;             /* set by create() when it fills qsl */
    void *priv;
    void (*destroy)(void *priv);
    /* lg_sut_instance_on_fatal (read by SUTs through lg_sut_fatal) */
    void (*fatal)(void *ctx, const char *msg);
    void *fatal_ctx;
    /* built-in counting QSL state */
    char qsl_name[64];
};

typedef struct lg_sut_type {
    const char *name;
    const char *summary;
    const char *options_help;
    int (*create)(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e);
} lg_sut_type;

#define LG_SUT_DEFINE(id, summary, help, create_fn) \
    const lg_sut_type lg_sut_type_##id = {#id, summary, help, create_fn};

/* Option accessors: look up key (marking it used); return 0 if absent (out untouched), 1 if
 * present and valid, -1 on a bad value (e is set naming the SUT, option and expected form). */
int lg_sut_opt_duration(lg_sut_opts *o, const char *key, int64_t *ns, ms_err *e);
/* "A..B" durations (e.g. 1ms..3ms) or a single duration (lo == hi). */
int lg_sut_opt_duration_range(lg_sut_opts *o, const char *key, int64_t *lo, int64_t *hi, ms_err *e);
int lg_sut_opt_u64(lg_sut_opts *o, const char *key, uint64_t min, uint64_t max, uint64_t *v, ms_err *e);
/* "A..B" unsigned range or a single value. */
int lg_sut_opt_u64_range(lg_sut_opts *o, const char *key, uint64_t *lo, uint64_t *hi, ms_err *e);
int lg_sut_opt_double(lg_sut_opts *o, const char *key, double *v, ms_err *e);
int lg_sut_opt_flag(lg_sut_opts *o, const char *key);  /* bare "key" present: 1 */
const char *lg_sut_opt_str(lg_sut_opts *o, const char *key);
/* Called by the framework after create(): any option not used is an error. */
int lg_sut_opts_check_unused(const lg_sut_opts *o, ms_err *e);

/* Tells the instance's fatal callback (lg_sut_instance_on_fatal) msg; 0 if there was one. */
int lg_sut_fatal(lg_sut_instance *si, const char *msg);

/* A flush_queries callback for SUTs that hold no queries back (the reference SUTs' empty
 * FlushQueries). */
void lg_sut_flush_none(void *ctx);

/* Monotonic nanoseconds (the LoadGen's clock). */
int64_t lg_sut_now_ns(void);

/* A timer thread that completes samples at given deadlines (for sleep-based SUTs). */
typedef struct lg_sut_timer lg_sut_timer;
lg_sut_timer *lg_sut_timer_new(ms_err *e);
/* Queues completion of sample id (payload = 4-byte little-endian index) at deadline_ns
 * (lg_sut_now_ns clock) with n_tokens; first_token_ns > 0 also sends a first token at that
 * time. Thread-safe. Returns 0 or -1 on allocation failure. */
int lg_sut_timer_add(lg_sut_timer *t, lg_test *test, lg_response_id id, lg_sample_index index,
                     int64_t first_token_ns, int64_t deadline_ns, int64_t n_tokens);
void lg_sut_timer_free(lg_sut_timer *t);

#endif
