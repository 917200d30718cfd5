/* --sut digits[:int8,...]: the digits reference benchmark (loadgen/digits.h) as an honest SUT. */
#include "loadgen/suts/digits_engine.h"

static int digits_create(lg_sut_instance *si, lg_sut_opts *opts, const lg_sut_env *env, ms_err *e)
{
    dg_options d;
    int rc = dg_parse_options(opts, env, &d, e);
    if (rc != MS_OK)
        return rc;
    return dg_engine_start(si, &d, env, "digits", NULL, e);
}

LG_SUT_DEFINE(digits, "digits benchmark: MLP on 8x8 handwritten digits, FP32 (or int8), batching worker pool, own QSL (537 images)",
              DG_OPTIONS_HELP, digits_create)
