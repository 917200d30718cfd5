/* libFuzzer harness: ms_json_loadb (src/common/jsonfast.c) against Jansson's json_loadb, for
 * each flag set the fast path takes or declines: both fail with the same error text, line and
 * column, or both give the same value (compared as Jansson's dump: types and key order). */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/jschema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t flag_sets[] = {0, JSON_DECODE_ANY, JSON_ALLOW_NUL, JSON_REJECT_DUPLICATES};
    for (size_t f = 0; f < sizeof flag_sets / sizeof *flag_sets; f++) {
        json_error_t e1, e2;
        json_t *a = json_loadb((const char *)data, size, flag_sets[f], &e1);
        json_t *b = ms_json_loadb((const char *)data, size, flag_sets[f], &e2);
        if ((a == NULL) != (b == NULL) || e1.line != e2.line || e1.column != e2.column ||
            e1.position != e2.position || (!a && strcmp(e1.text, e2.text)))
            abort();
        if (a) {
            char *da = json_dumps(a, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
            char *db = json_dumps(b, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
            if (!da || !db || strcmp(da, db) || !json_equal(a, b))
                abort();
            free(da);
            free(db);
        }
        json_decref(a);
        json_decref(b);
    }
    return 0;
}
