/* --sut cheat-acc[:recs]: answers accurately only when it sees accuracy mode (forbidden).
 *
 * Rule broken: the SUT must run the same inference in performance mode as in accuracy mode.
 * Unlike cheat-perf (garbage bytes that any comparison spots), this SUT answers plausibly in
 * performance mode, without inference:
 *   digits (default) every image is classified as the same digit (0), a valid class;
 *   recs             every prediction is 0.5, a valid probability, in the right payload format.
 * Accuracy-mode runs are honest, so the submission's accuracy passes. TEST07 (the whole
 * compliance dataset scored in performance mode against a threshold) catches the digits form,
 * TEST08 (performance-mode normalised entropy against the accuracy run's) the recs form. */
#include <stdlib.h>
#include <string.h>

#include "loadgen/suts/digits_engine.h"
#include "loadgen/suts/recs.h"

static int ca_answer(void *ctx, lg_sample_index idx, unsigned char out[DIGITS_RESPONSE_SIZE])
{
    (void)idx;
    if (!*(int *)ctx)
        return 0;
    digits_encode_response(0, out);
    return 1;
}

static int cheat_acc_create(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e)
{
    if (lg_sut_opt_flag(opts, "recs"))
        return recs_start(si, opts, env, 1, e);
    dg_options d;
    int rc = dg_parse_options(opts, env, &d, e);
    if (rc != MS_OK)
        return rc;
    int *perf = calloc(1, sizeof *perf);
    if (!perf)
        return ms_err_oom(e);
    *perf = env && env->settings &&
            (env->settings->mode == LG_PERFORMANCE_ONLY || env->settings->mode == LG_FIND_PEAK_PERFORMANCE);
    dg_hooks h = {.ctx = perf, .answer = ca_answer, .destroy = free};
    return dg_engine_start(si, &d, env, "cheat-acc", &h, e);
}

LG_SUT_DEFINE(cheat_acc, "CHEATER (TEST07/TEST08): accurate only in accuracy mode, a plausible guess without inference in performance mode",
              "               breaks: the same inference in performance as in accuracy mode (TEST07, TEST08 catch it)\n"
              "               default: a digits SUT answering class 0 in performance mode; the digits options:\n" DG_OPTIONS_HELP
              "               recs: a recs SUT predicting 0.5 in performance mode; the recs options:\n" RECS_OPTIONS_HELP,
              cheat_acc_create)
