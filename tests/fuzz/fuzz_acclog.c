/* libFuzzer harness: the streaming accuracy-log reader, with and without the raw hex. */
#include <stdint.h>

#include "common/acclog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (unsigned flags = 0; flags <= MS_ACCLOG_KEEP_HEX; flags++) {
        ms_err e;
        ms_acclog *r = ms_acclog_open_mem(data, size, "fuzz.json", flags, &e);
        if (!r)
            continue;
        ms_acc_entry ent;
        size_t n = 0;
        while (ms_acclog_next(r, &ent, &e) == 1 && n++ < 1000000)
            ;
        ms_acclog_close(r);
    }
    return 0;
}
