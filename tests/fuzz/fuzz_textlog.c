/* libFuzzer harness: the text detail-log reader of LoadGen 0.5/0.7 and the format detector. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/textlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)ms_log_detect((const char *)data, size);
    ms_err e;
    ms_textlog log;
    if (ms_textlog_parse(&log, (const char *)data, size, &e) != MS_OK)
        return 0;
    for (size_t i = 0; i < log.nrecs; i++) {
        const ms_textlog_rec *r = &log.recs[i];
        /* every key and value lies inside the copied text */
        if (r->key < log.text || r->key + r->key_len > log.text + log.len ||
            r->value < log.text || r->value + r->value_len > log.text + log.len)
            abort();
        char *v = ms_textlog_value(r);
        free(v);
    }
    (void)ms_textlog_find(&log, "Scenario");
    ms_textlog_free(&log);
    return 0;
}
