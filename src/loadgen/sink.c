/* Completion sinks (loadgen.h): an lg_test that belongs to no run, for serving a SUT outside a
 * LoadGen test (the network SUT node, src/net/node.c). The completion calls of run.c check for
 * a sink first and hand it the responses untouched. */
#include <stdlib.h>

#include "loadgen/internal.h"

lg_test *lg_sink_new(lg_sink_fn fn, void *ctx, ms_err *e)
{
    if (!fn) {
        ms_err_set(e, MS_EUSAGE, "lg_sink_new: no callback");
        return NULL;
    }
    lg_test *t = lg_test_new_sink(fn, ctx);
    if (!t)
        ms_err_oom(e);
    return t;
}

void lg_sink_free(lg_test *sink)
{
    lg_test_free(sink);
}
