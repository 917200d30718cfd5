/* libFuzzer harness: the issued-query trace reader, and a trace compared with itself. */
#include <stdint.h>

#include "loadgen/loadgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_issued_trace t;
    ms_err e;
    if (lg_issued_trace_parse((const char *)data, size, "fuzz.trace", &t, &e) != MS_OK)
        return 0;
    char msg[512];
    if (lg_issued_trace_diff(&t, &t, msg, sizeof msg) != 0)
        __builtin_trap(); /* a trace always equals itself */
    lg_issued_trace_free(&t);
    return 0;
}
