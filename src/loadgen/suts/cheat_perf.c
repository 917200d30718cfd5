/* --sut cheat-perf: a digits SUT that is honest in accuracy mode and returns garbage in
 * performance mode (forbidden).
 *
 * Rule broken: the SUT must run the same inference in performance mode as in accuracy mode
 * (TEST01's purpose). This SUT assumes that only accuracy-mode responses are ever checked: it
 * infers honestly in AccuracyOnly runs and in the accuracy part of a SubmissionRun (the first
 * ceil(accuracy samples / performance samples) loaded sets), and for every sample of a
 * performance series it skips inference (and the emulated cost) and answers the 4 bytes
 * FF FF FF FF (class -1, never a label). TEST01, which logs a sample of performance-mode
 * responses and compares them with the accuracy log, must catch it. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen/suts/digits_engine.h"

typedef struct perf_cheat {
    lg_mode mode;
    size_t accuracy_sets;   /* loaded sets of the accuracy part of a SubmissionRun */
    size_t loads;
    atomic_int garbage;
} perf_cheat;

static void pc_on_load(void *ctx, const lg_sample_index *idx, size_t n)
{
    perf_cheat *p = ctx;
    (void)idx, (void)n;
    p->loads++;
    int g = p->mode == LG_PERFORMANCE_ONLY || p->mode == LG_FIND_PEAK_PERFORMANCE ||
            (p->mode == LG_SUBMISSION_RUN && p->loads > p->accuracy_sets);
    atomic_store(&p->garbage, g);
}

static int pc_answer(void *ctx, lg_sample_index idx, unsigned char out[DIGITS_RESPONSE_SIZE])
{
    perf_cheat *p = ctx;
    (void)idx;
    if (!atomic_load(&p->garbage))
        return 0;
    memset(out, 0xFF, DIGITS_RESPONSE_SIZE);
    return 1;
}

static void pc_free(void *ctx)
{
    free(ctx);
}

static int cheat_perf_create(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e)
{
    dg_options d;
    int rc = dg_parse_options(opts, env, &d, e);
    if (rc != MS_OK)
        return rc;
    perf_cheat *p = calloc(1, sizeof *p);
    if (!p)
        return ms_err_oom(e);
    p->mode = env && env->settings ? env->settings->mode : LG_PERFORMANCE_ONLY;
    dg_hooks h = {.ctx = p, .answer = pc_answer, .on_load = pc_on_load, .destroy = pc_free};
    rc = dg_engine_start(si, &d, env, "cheat-perf", &h, e);
    if (rc != MS_OK)
        return rc;
    /* accuracy loadable sets (reference loadgen.cc, GenerateLoadableSets): ceil(min(accuracy
     * count, N) / P) */
    size_t total = si->qsl.total_sample_count, perf = si->qsl.performance_sample_count;
    const lg_test_settings *s = env ? env->settings : NULL;
    if (s && s->performance_sample_count_override)
        perf = (size_t)s->performance_sample_count_override;
    size_t acc = s && s->accuracy_sample_count_override && s->accuracy_sample_count_override < total
                     ? (size_t)s->accuracy_sample_count_override
                     : total;
    p->accuracy_sets = perf ? (acc + perf - 1) / perf : 1;
    return MS_OK;
}

LG_SUT_DEFINE(cheat_perf, "CHEATER (TEST01): digits SUT, honest in accuracy mode, FF FF FF FF without inference in performance mode",
              "               breaks: the same inference in performance as in accuracy mode (TEST01 catches it)\n"
              "               the digits options:\n" DG_OPTIONS_HELP, cheat_perf_create)
