/* libFuzzer harness: the :::MLLOG detail-log reader and its value accessors. */
#include <stdint.h>
#include <stdlib.h>

#include "common/mllog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_mllog log;
    ms_err e;
    if (ms_mllog_parse(&log, (const char *)data, size, "fuzz", &e) != MS_OK)
        return 0;
    for (size_t i = 0; i < log.nrecs; i++) {
        const ms_mllog_rec *r = &log.recs[i];
        uint64_t u;
        int64_t s;
        double d;
        int b;
        (void)ms_mllog_rec_u64(r, &u);
        (void)ms_mllog_rec_i64(r, &s);
        (void)ms_mllog_rec_double(r, &d);
        (void)ms_mllog_rec_bool(r, &b);
        free(ms_mllog_rec_str(r));
        uint64_t *arr;
        size_t n;
        if (ms_mllog_rec_u64_list(r, &arr, &n) == 0)
            free(arr);
    }
    (void)ms_mllog_find(&log, "result_validity");
    ms_mllog_free(&log);
    return 0;
}
