/* The engine behind the digits SUTs (digits, cheat-cache, cheat-perf, cheat-seed): the QSL over
 * the validation split, a work queue, a worker pool that takes up to `batch` queued samples at a
 * time, infers them (FP32 or INT8, see loadgen/digits.h) and completes each batch with one
 * lg_query_samples_complete call. Cheaters plug in through hooks. No LG_SUT_DEFINE here. */
#ifndef LG_SUTS_DIGITS_ENGINE_H
#define LG_SUTS_DIGITS_ENGINE_H

#include "loadgen/digits.h"
#include "loadgen/suts/sut.h"

typedef struct dg_options {
    int int8;
    uint64_t workers;
    uint64_t batch;
    int64_t cost_ns;          /* emulated extra device time per inferred sample */
    const char *data_dir;     /* folder with digits.csv.gz and digits-fp32.bin */
    const char *model_path;   /* NULL = <data_dir>/digits-fp32.bin */
} dg_options;

/* Option help shared by every digits SUT. */
#define DG_OPTIONS_HELP                                                                        \
    "               int8          the INT8 model (post-training quantised) instead of FP32\n"       \
    "               workers=N (2) worker threads    batch=N (32) largest batch a worker takes\n"  \
    "               cost=D (0)    emulated extra device time per inferred sample (e.g. 200us)\n"  \
    "               data=DIR      dataset folder (default: <--data>/digits)   model=FILE weights\n"

/* Parses the options above (marking them used). */
int dg_parse_options(lg_sut_opts *o, const lg_sut_env *env, dg_options *d, ms_err *e);

typedef struct dg_hooks {
    void *ctx;
    /* Issue order (from issue_query, on the LoadGen's thread): may set not_before[i], an
     * lg_sut_now_ns() time before which sample i must not start (0 = at once). */
    void (*on_issue)(void *ctx, const lg_query_sample *s, size_t n, int64_t *not_before);
    /* Worker, before inferring sample idx: return 1 after filling out to skip the inference
     * (and its cost). */
    int (*answer)(void *ctx, lg_sample_index idx, unsigned char out[DIGITS_RESPONSE_SIZE]);
    /* Worker, after inferring sample idx. */
    void (*computed)(void *ctx, lg_sample_index idx, const unsigned char out[DIGITS_RESPONSE_SIZE]);
    void (*on_load)(void *ctx, const lg_sample_index *idx, size_t n);
    void (*on_flush)(void *ctx);
    void (*destroy)(void *ctx);
} dg_hooks;

typedef struct dg_engine dg_engine;

/* Loads the dataset and model, starts the workers and fills si (sut, qsl, priv, destroy).
 * hooks may be NULL (the honest SUT); label names the SUT in sut_name. */
int dg_engine_start(lg_sut_instance *si, const dg_options *d, const lg_sut_env *env, const char *label,
                    const dg_hooks *hooks, ms_err *e);

/* Inference of one validation sample with the engine's model (for hooks). */
void dg_engine_infer(const dg_engine *g, lg_sample_index idx, unsigned char out[DIGITS_RESPONSE_SIZE]);
size_t dg_engine_total(const dg_engine *g);
size_t dg_engine_perf_count(const dg_engine *g);

/* Sleeps until the lg_sut_now_ns() time t. */
void dg_sleep_until(int64_t t);

#endif
